#include "core/policyfiletext.h"
#include "core/policylimits.h"

#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>

namespace airlock {

Result<PolicyFileText> readPolicyFile(const QString &path)
{
    const QString what = QStringLiteral("cannot read the policy file %1").arg(path);
    const QFileInfo info(path);
    if (!info.exists())
        return Error{what, QStringLiteral("there is no such file")};
    if (!info.isFile())
        return Error{what, QStringLiteral("it is not a regular file")};
    // The daemon's bound: a longer file would be refused there anyway.
    if (info.size() > kMaxPolicyFileBytes)
        return Error{what, QStringLiteral("it is larger than %1 KiB; a policy file holds at most %2 rules")
                               .arg(kMaxPolicyFileBytes / 1024).arg(kMaxPolicyRules)};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{what, file.errorString()};
    const QByteArray bytes = file.read(kMaxPolicyFileBytes + 1);
    if (bytes.size() > kMaxPolicyFileBytes)
        return Error{what, QStringLiteral("it grew past %1 KiB while being read").arg(kMaxPolicyFileBytes / 1024)};
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8(bytes);
    if (utf8.hasError())
        return Error{what, QStringLiteral("it is not UTF-8 text")};
    return PolicyFileText{text, info.absoluteFilePath()};
}

PolicyFileFormat policyFileFormatOf(const QString &path)
{
    return path.endsWith(QLatin1String(".yaml"), Qt::CaseInsensitive) || path.endsWith(QLatin1String(".yml"), Qt::CaseInsensitive)
               ? PolicyFileFormat::Yaml
               : PolicyFileFormat::Json;
}

} // namespace airlock

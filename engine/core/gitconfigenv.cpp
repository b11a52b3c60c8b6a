#include "core/gitconfigenv.h"

namespace airlock {

namespace {

const QString kCount = QStringLiteral("GIT_CONFIG_COUNT");

QString keyVar(int i) { return QStringLiteral("GIT_CONFIG_KEY_%1").arg(i); }
QString valueVar(int i) { return QStringLiteral("GIT_CONFIG_VALUE_%1").arg(i); }

int countOf(const QMap<QString, QString> &env)
{
    bool number = false;
    const int n = env.value(kCount).toInt(&number);
    return number && n >= 0 && n <= 1000 ? n : 0;
}

bool isGitEntry(const QString &name)
{
    return name == kCount || name.startsWith(QLatin1String("GIT_CONFIG_KEY_")) || name.startsWith(QLatin1String("GIT_CONFIG_VALUE_"));
}

} // namespace

QMap<QString, QString> withGitConfig(QMap<QString, QString> base, const QMap<QString, QString> &added)
{
    const int first = countOf(base);
    const int extra = countOf(added);
    for (auto it = added.cbegin(); it != added.cend(); ++it)
        if (!isGitEntry(it.key()))
            base.insert(it.key(), it.value());
    if (extra == 0)
        return base;
    for (int i = 0; i < extra; ++i) {
        base.insert(keyVar(first + i), added.value(keyVar(i)));
        base.insert(valueVar(first + i), added.value(valueVar(i)));
    }
    base.insert(kCount, QString::number(first + extra));
    return base;
}

} // namespace airlock

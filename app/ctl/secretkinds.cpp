#include "ctl/secretkinds.h"
#include "core/resourcedir.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace airlock::ctl {

QList<SecretKind> secretKinds(QString *error)
{
    const QDir dir(resourceDirectory("AIRLOCK_SECRET_KINDS_DIR", QStringLiteral("secret-kinds")));
    QList<SecretKind> kinds;
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(file));
        QJsonParseError parseError{};
        const QJsonObject o = f.size() <= (64 << 10) && f.open(QIODevice::ReadOnly)
                                  ? QJsonDocument::fromJson(f.readAll(), &parseError).object()
                                  : QJsonObject();
        Result<proto::TemplateSecret> shape = proto::TemplateSecret::fromJson(o);
        if (!shape || shape->hosts.isEmpty() || shape->header.isEmpty()) {
            *error = QStringLiteral("the secret kind %1 is not valid (%2)")
                         .arg(f.fileName(), shape ? QStringLiteral("no hosts or header") : shape.error().message());
            continue;
        }
        kinds.append({shape.value(), o.value(QStringLiteral("description")).toString()});
    }
    if (kinds.isEmpty() && error->isEmpty())
        *error = QStringLiteral("no secret kinds in %1; set AIRLOCK_SECRET_KINDS_DIR").arg(dir.path());
    return kinds;
}

std::optional<SecretKind> findSecretKind(const QString &name, QString *error)
{
    QStringList names;
    for (const SecretKind &k : secretKinds(error)) {
        if (k.shape.name == name)
            return k;
        names << k.shape.name;
    }
    *error = QStringLiteral("no secret kind named \"%1\"; the kinds are: %2 (airlockctl secret kinds)")
                 .arg(name, names.join(QStringLiteral(", ")));
    return std::nullopt;
}

} // namespace airlock::ctl

#include "strictjson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace airlock {

QString unknownKey(const QJsonObject &o, std::initializer_list<const char *> known)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        bool ok = false;
        for (const char *k : known)
            ok = ok || it.key() == QLatin1String(k);
        if (!ok)
            return it.key();
    }
    return {};
}

std::optional<int> optionalPort(const QJsonObject &o)
{
    if (!o.contains(QLatin1String("port")))
        return 0;
    const QJsonValue port = o.value(QLatin1String("port"));
    const double v = port.toDouble(-1);
    // The range first: converting a double outside int's range is undefined behaviour.
    if (!port.isDouble() || !(v >= 1 && v <= 65535) || v != std::trunc(v))
        return std::nullopt;
    return int(v);
}

QByteArray jsonQuoted(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

} // namespace airlock

#include "protocol/status.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject EgressStatus::toJson() const
{
    return {{QStringLiteral("enforcing"), enforcing}, {QStringLiteral("nft_table"), nftTable},
            {QStringLiteral("proxy_port"), proxyPort}, {QStringLiteral("dns_port"), dnsPort},
            {QStringLiteral("sandboxes"), sandboxes}, {QStringLiteral("hold_timeout_s"), holdTimeoutS},
            {QStringLiteral("events_not_stored"), eventsNotStored}, {QStringLiteral("event_log_error"), eventLogError}};
}

Result<EgressStatus> EgressStatus::fromJson(const QJsonObject &object)
{
    Fields f(object, "egress status");
    EgressStatus s{f.boolean("enforcing"), f.string("nft_table"), int(f.integer("proxy_port")), int(f.integer("dns_port")),
                   int(f.integer("sandboxes")), int(f.integer("hold_timeout_s")),
                   f.optInteger("events_not_stored").value_or(0), f.optString("event_log_error").value_or(QString())};
    return f.done(s);
}

QJsonObject DaemonStatus::toJson() const
{
    QJsonObject o{{QStringLiteral("version"), version}, {QStringLiteral("libvirt_uri"), libvirtUri},
                  {QStringLiteral("accel"), accel}, {QStringLiteral("vault"), toString(vault)},
                  {QStringLiteral("sandboxes"), sandboxes}};
    if (egress)
        o.insert(QStringLiteral("egress"), egress->toJson());
    return o;
}

Result<DaemonStatus> DaemonStatus::fromJson(const QJsonObject &object)
{
    Fields f(object, "status");
    DaemonStatus s{f.string("version"), f.string("libvirt_uri"), f.string("accel"), f.vaultState("vault"),
                   int(f.integer("sandboxes")), f.optObject<EgressStatus>("egress")};
    return f.done(s);
}

} // namespace airlock::proto

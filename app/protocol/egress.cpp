#include "protocol/egress.h"
#include "protocol/jsonfields.h"
#include "core/requestrule.h"

namespace airlock::proto {

AIRLOCK_PAYLOAD_JSON(GuestProcess, "guest process")
AIRLOCK_PAYLOAD_JSON(EgressEvent, "egress event")
AIRLOCK_PAYLOAD_JSON(EgressListParams, "egress.list params")
AIRLOCK_PAYLOAD_JSON(EgressConfigureParams, "egress.configure params")
AIRLOCK_PAYLOAD_JSON(EgressDecideParams, "egress.decide params")
AIRLOCK_PAYLOAD_JSON(RuleListParams, "rule.list params")
AIRLOCK_PAYLOAD_JSON(RuleAddParams, "rule.add params")
AIRLOCK_PAYLOAD_JSON(IdParams, "id")

QString GuestProcess::describe() const
{
    QString text;
    if (chain.isEmpty()) {
        text = QStringLiteral("the guest reports: %1 (pid %2").arg(comm).arg(pid);
        text += parent.isEmpty() ? QStringLiteral(", ppid %1)").arg(ppid) : QStringLiteral(", parent %1 %2)").arg(parent).arg(ppid);
    } else {
        // The agent at the top, the process that dialled last, as a person reads a call chain.
        text = QStringLiteral("the guest reports: %1 → %2 (pid %3, parent %4)").arg(chain.join(QStringLiteral(" → ")), comm).arg(pid).arg(ppid);
    }
    if (!cmdline.isEmpty())
        text += QStringLiteral(": ") + cmdline;
    return text;
}

QString RuleInfo::requestText() const
{
    return RequestRule{method, path, git, repo}.text();
}

QJsonObject RuleInfo::toJson() const
{
    JsonWriter w;
    fields(*this, w);
    w("scope", sandbox ? QStringLiteral("sandbox") : QStringLiteral("global"));
    w("action", allow ? QStringLiteral("allow") : QStringLiteral("deny"));
    return w.object();
}

Result<RuleInfo> RuleInfo::fromJson(const QJsonObject &object)
{
    JsonReader f(object, "rule");
    RuleInfo r;
    QString scope, action;
    fields(r, f);
    f("scope", scope)("action", action);
    if (f.failed())
        return f.done(r);
    if (action != QLatin1String("allow") && action != QLatin1String("deny"))
        return Error{QStringLiteral("invalid rule"), QStringLiteral("\"action\" must be allow or deny"), kInvalidPayload};
    if (scope != (r.sandbox ? QLatin1String("sandbox") : QLatin1String("global")))
        return Error{QStringLiteral("invalid rule"),
                     QStringLiteral("\"scope\" must be sandbox when \"sandbox\" names one, else global"), kInvalidPayload};
    r.allow = action == QLatin1String("allow");
    return r;
}

} // namespace airlock::proto

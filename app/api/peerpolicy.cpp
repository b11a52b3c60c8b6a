#include "api/peerpolicy.h"
#include "api/jsonrpc.h"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <vector>

namespace airlock {

namespace {

bool uidInGroup(uid_t uid, gid_t group)
{
    const passwd *pw = ::getpwuid(uid);
    if (!pw)
        return false;
    int count = 64;
    std::vector<gid_t> groups(count);
    if (::getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) {
        groups.resize(count);
        if (::getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0)
            return false;
    }
    groups.resize(count);
    for (gid_t g : groups)
        if (g == group)
            return true;
    return false;
}

// Who may call a method: any admitted peer (the handler answers only with what is the
// caller's own), the owner of the object it names, or an administrator only.
enum class Need { Member, Owner, Administrator };

struct MethodRule {
    const char *method;
    Need need;
    ObjectKind kind = ObjectKind::None;
    const char *param = nullptr; // the param naming the object
};

// Every method airlockd serves. Vault administration is the administrators': the vault
// holds every user's secrets under one key, so a member who could lock it, re-key it or
// claim it uninitialised would cut every other user off their secrets (or own them).
const MethodRule kRules[] = {
    {"status", Need::Member},
    {"template.list", Need::Member},
    {"preset.list", Need::Member},
    {"image.list", Need::Member},
    {"image.build", Need::Owner, ObjectKind::Image, "name"}, // a new name is free; rebuilding is the builder's
    {"image.import", Need::Owner, ObjectKind::Image, "name"}, // as image.build: a new name is free
    {"image.cancel", Need::Owner, ObjectKind::Build, "name"},
    {"image.remove", Need::Owner, ObjectKind::Image, "name"},
    {"sandbox.create", Need::Member},
    {"sandbox.list", Need::Member},
    {"sandbox.start", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.stop", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.kill", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.pause", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.resume", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.remove", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.exec", Need::Owner, ObjectKind::Sandbox, "name"},
    {"sandbox.fork", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"snapshot.create", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"snapshot.list", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"snapshot.restore", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"snapshot.remove", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"snapshot.schedule", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"file.push", Need::Owner, ObjectKind::Sandbox, "name"},
    {"file.pull", Need::Owner, ObjectKind::Sandbox, "name"},
    {"console.attach", Need::Owner, ObjectKind::Sandbox, "name"},
    {"console.write", Need::Owner, ObjectKind::Sandbox, "name"},
    {"console.resize", Need::Owner, ObjectKind::Sandbox, "name"},
    {"console.detach", Need::Owner, ObjectKind::Sandbox, "name"},
    {"egress.list", Need::Owner, ObjectKind::Sandbox, "sandbox"}, // without a sandbox: the caller's rows only
    {"egress.decide", Need::Owner, ObjectKind::PendingRequest, "id"},
    {"egress.configure", Need::Administrator}, // every sandbox's holds
    {"port.expose", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"port.unexpose", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"port.list", Need::Owner, ObjectKind::Sandbox, "sandbox"}, // without a sandbox: the caller's ports only
    {"rule.list", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"rule.add", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"rule.remove", Need::Owner, ObjectKind::Rule, "id"},
    {"policy.export", Need::Owner, ObjectKind::Sandbox, "sandbox"}, // global: the caller's global rules, as rule.list
    {"policy.learn", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"policy.import", Need::Owner, ObjectKind::Sandbox, "sandbox"},
    {"secret.set", Need::Member}, // the vault keeps each user's secrets apart by owner
    {"secret.list", Need::Member},
    {"secret.remove", Need::Member},
    {"vault.status", Need::Member},
    {"vault.unlock", Need::Member}, // with the passphrase: knowing it is the authority
    {"vault.init", Need::Administrator},
    {"vault.lock", Need::Administrator},
    {"vault.change_passphrase", Need::Administrator},
    {"vault.keyring", Need::Administrator},
};

const MethodRule *ruleOf(const QString &method)
{
    for (const MethodRule &r : kRules)
        if (method == QLatin1String(r.method))
            return &r;
    return nullptr;
}

QString keyOf(const QJsonObject &params, const char *param)
{
    const QJsonValue v = params.value(QLatin1String(param));
    if (v.isDouble())
        return QString::number(qint64(v.toDouble()));
    return v.toString();
}

// Variants of a method that reach beyond the caller's own objects: why this call needs an
// administrator, or empty when it does not.
QString variantForAdministrators(const QString &method, const QJsonObject &params)
{
    if (method == QLatin1String("egress.decide") && params.value(QLatin1String("scope")).toString() == QLatin1String("global"))
        return QStringLiteral("a global rule applies to every user's sandboxes, so only root may make one; answer with "
                              "--scope sandbox (or once) instead, or ask your administrator for a global rule");
    if ((method == QLatin1String("rule.add") || method == QLatin1String("policy.import")) && params.value(QLatin1String("global")).toBool())
        return QStringLiteral("global rules apply to every user's sandboxes, so only root may add them; add a rule "
                              "for your sandbox instead (--sandbox NAME) or ask your administrator");
    if (method == QLatin1String("vault.unlock") && params.value(QLatin1String("keyring")).toBool())
        return QStringLiteral("the keyring slot is the daemon's own credential, so only root may unlock with it; unlock "
                              "with the passphrase instead (airlockctl vault unlock)");
    return {};
}

QString administratorsOnly(const QString &method)
{
    if (method.startsWith(QLatin1String("vault.")))
        return QStringLiteral("the vault holds every user's secrets under one key, so only root may create, lock or "
                              "re-key it or change its keyring slot; ask your administrator (sudo airlockctl vault %1)")
            .arg(method.mid(6).replace(QLatin1Char('_'), QLatin1Char('-')));
    return QStringLiteral("%1 is for root only; ask your administrator").arg(method);
}

QString whose(ObjectKind kind, const QString &key)
{
    switch (kind) {
    case ObjectKind::Sandbox:
        return QStringLiteral("sandbox %1 belongs to another user: only its owner or root may use it; see your own "
                              "sandboxes with `airlockctl ls`, or create one under another name").arg(key);
    case ObjectKind::PendingRequest:
        return QStringLiteral("request %1 belongs to another user's sandbox: only that sandbox's owner or root may "
                              "answer it; see yours with `airlockctl egress ls --pending`").arg(key);
    case ObjectKind::Rule:
        return QStringLiteral("rule %1 belongs to another user (or is a global rule root made): only its owner or "
                              "root may remove it; see yours with `airlockctl rule ls`").arg(key);
    case ObjectKind::Image:
        return QStringLiteral("image %1 was built by another user (or before owners were recorded): only its builder "
                              "or root may remove or rebuild it; build your own under another name "
                              "(airlockctl image build RECIPE --name NAME)").arg(key);
    case ObjectKind::Build:
        return QStringLiteral("the build of image %1 was started by another user: only they or root may cancel it").arg(key);
    case ObjectKind::None:
        break;
    }
    return {};
}

} // namespace

PeerPolicy::PeerPolicy(AccessPolicy access) : m_access(access) {}

bool PeerPolicy::admit(const PeerCredentials &peer, QString *why) const
{
    if (isAdministrator(peer.uid))
        return true;
    if (m_access.groupAccess && (peer.gid == m_access.group || uidInGroup(peer.uid, m_access.group)))
        return true;
    if (why)
        *why = m_access.groupAccess
            ? QStringLiteral("uid %1 is not root and not in the airlock group; ask an administrator to run "
                             "`usermod -aG airlock <user>` and log in again").arg(peer.uid)
            : QStringLiteral("uid %1 may not use the airlockd of uid %2; start your own airlockd or use "
                             "that user's account").arg(peer.uid).arg(m_access.daemonUid);
    return false;
}

bool PeerPolicy::mayConnect(uid_t uid, int heldByUid, int total, int maxTotal, QString *why) const
{
    if (total >= maxTotal) {
        *why = QStringLiteral("too many clients are connected (%1); close some and retry").arg(maxTotal);
        return false;
    }
    if (isAdministrator(uid))
        return true;
    if (heldByUid >= kMaxConnectionsPerUid) {
        *why = QStringLiteral("uid %1 already holds %2 connections, the most one user may; close some of yours "
                              "(other airlockctl or airlock windows) and retry").arg(uid).arg(kMaxConnectionsPerUid);
        return false;
    }
    if (total >= maxTotal - kAdministratorReserve) {
        *why = QStringLiteral("the connections users may hold are all in use (%1 are kept for root); retry later or "
                              "ask your administrator").arg(kAdministratorReserve);
        return false;
    }
    return true;
}

bool PeerPolicy::knows(const QString &method) { return ruleOf(method) != nullptr; }

std::optional<Refusal> PeerPolicy::check(uid_t uid, const QString &method, const QJsonObject &params) const
{
    const MethodRule *rule = ruleOf(method);
    if (!isAdministrator(uid)) {
        if (!rule)
            return Refusal{rpc::PermissionDenied, administratorsOnly(method)};
        if (const QString why = variantForAdministrators(method, params); !why.isEmpty())
            return Refusal{rpc::PermissionDenied, why};
        if (rule->need == Need::Administrator)
            return Refusal{rpc::PermissionDenied, administratorsOnly(method)};
    }
    if (!rule || rule->need != Need::Owner || actsOnEverything(uid))
        return std::nullopt;
    QString key = keyOf(params, rule->param);
    if (key.isEmpty() && method == QLatin1String("image.build"))
        key = keyOf(params, "recipe"); // the image is named after its recipe
    if (key.isEmpty())
        return std::nullopt; // nothing named: the handler answers with the caller's own (or a usage error)
    const std::optional<uid_t> owner = ownerOf(rule->kind, key);
    if (!owner || mayActOn(uid, *owner))
        return std::nullopt; // no such object: the handler says so (or makes it)
    return Refusal{rpc::PermissionDenied, whose(rule->kind, key)};
}

std::optional<Refusal> PeerPolicy::checkTopic(uid_t uid, const QString &topic) const
{
    static const QLatin1String console("console:");
    if (!topic.startsWith(console) || mayActOnSandbox(uid, topic.mid(console.size())) ||
        !ownerOf(ObjectKind::Sandbox, topic.mid(console.size())))
        return std::nullopt;
    return Refusal{rpc::PermissionDenied, whose(ObjectKind::Sandbox, topic.mid(console.size()))};
}

std::optional<uid_t> PeerPolicy::ownerOf(ObjectKind kind, const QString &key) const
{
    const auto lookup = m_lookups.constFind(int(kind));
    if (lookup == m_lookups.constEnd() || !*lookup)
        return std::nullopt;
    return (*lookup)(key);
}

bool PeerPolicy::mayActOnSandbox(uid_t uid, const QString &name) const
{
    if (actsOnEverything(uid))
        return true;
    const std::optional<uid_t> owner = ownerOf(ObjectKind::Sandbox, name);
    return owner && *owner == uid;
}

Audience PeerPolicy::audienceOfSandbox(const QString &name) const
{
    const std::optional<uid_t> owner = ownerOf(ObjectKind::Sandbox, name);
    return owner ? Audience::of(*owner) : Audience::administrators();
}

bool PeerPolicy::maySee(uid_t uid, const Audience &audience) const
{
    switch (audience.kind) {
    case Audience::Everyone:
        return true;
    case Audience::Owner:
        return mayActOn(uid, audience.owner);
    case Audience::Administrators:
        break;
    }
    return isAdministrator(uid);
}

bool peerCredentials(int fd, PeerCredentials *out)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return false;
    out->pid = cred.pid;
    out->uid = cred.uid;
    out->gid = cred.gid;
    return true;
}

} // namespace airlock

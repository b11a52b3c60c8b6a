#pragma once
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <functional>
#include <optional>
#include <sys/types.h>

namespace airlock {

struct PeerCredentials {
    pid_t pid = -1;
    uid_t uid = static_cast<uid_t>(-1);
    gid_t gid = static_cast<gid_t>(-1);
};

// How the daemon was installed: a per-user daemon admits its own user; the system service
// (socket 0660, group `airlock`) also admits that group's members.
struct AccessPolicy {
    uid_t daemonUid = 0;
    bool groupAccess = false;
    gid_t group = static_cast<gid_t>(-1);
};

// Reads SO_PEERCRED of a connected Unix socket.
bool peerCredentials(int fd, PeerCredentials *out);

// The objects a request can name; each has an owner uid the policy asks a service for.
enum class ObjectKind { None, Sandbox, PendingRequest, Rule, Image, Build };

// Whom an event concerns: the owner of the sandbox it is about, or, for events about no
// sandbox, everyone admitted or the administrators only.
struct Audience {
    enum Kind { Owner, Everyone, Administrators };
    Kind kind = Administrators;
    uid_t owner = 0;
    static Audience of(uid_t uid) { return {Owner, uid}; }
    static Audience everyone() { return {Everyone, 0}; }
    static Audience administrators() { return {Administrators, 0}; }
};

// A refusal: the JSON-RPC code and a message that says why and what to do.
struct Refusal {
    int code = 0;
    QString message;
};

// The one place that answers who may do what with airlockd: which peers are admitted,
// how many connections each uid may hold, whether uid U may call method M on the object
// its params name, and whether U may see an event. Everyone acts on what their uid owns;
// root acts on everything. Administrators (root and the daemon's own user: for the system
// service that is root alone) also administer the vault and make global rules, but even
// the daemon's own user acts only on its own sandboxes (root's stay root's). Thread-safe
// once the lookups are set (before the server listens): services ask it from any thread.
class PeerPolicy {
public:
    // The owner of the object named `key`, or nothing when there is no such object.
    using OwnerLookup = std::function<std::optional<uid_t>(const QString &key)>;

    // Connections: every uid but the administrators' holds at most this many, and together
    // the others leave kAdministratorReserve of the server's maximum free.
    static constexpr int kMaxConnectionsPerUid = 64;
    static constexpr int kAdministratorReserve = 32;

    explicit PeerPolicy(AccessPolicy access = {});

    const AccessPolicy &access() const { return m_access; }
    bool isAdministrator(uid_t uid) const { return uid == 0 || uid == m_access.daemonUid; }
    static bool actsOnEverything(uid_t uid) { return uid == 0; }
    static bool mayActOn(uid_t uid, uid_t owner) { return actsOnEverything(uid) || uid == owner; }

    // Root, the daemon's own user and, for the system service, members of its group.
    bool admit(const PeerCredentials &peer, QString *why) const;
    // Whether one more connection of `uid` fits, given how many it and everyone hold now.
    bool mayConnect(uid_t uid, int heldByUid, int total, int maxTotal, QString *why) const;

    // Every method the daemon serves is named here; an unlisted one is for administrators.
    static bool knows(const QString &method);
    // Whether `uid` may call `method` with `params`; the refusal says why.
    std::optional<Refusal> check(uid_t uid, const QString &method, const QJsonObject &params) const;

    // Whether `uid` may subscribe to `topic` (another user's console is refused outright;
    // every event is still filtered by maySee when it is sent).
    std::optional<Refusal> checkTopic(uid_t uid, const QString &topic) const;

    void setOwnerLookup(ObjectKind kind, OwnerLookup lookup) { m_lookups.insert(int(kind), std::move(lookup)); }
    std::optional<uid_t> ownerOf(ObjectKind kind, const QString &key) const;
    // May `uid` act on the sandbox `name`? A sandbox nobody knows is only the administrators'.
    bool mayActOnSandbox(uid_t uid, const QString &name) const;
    // Who sees events about the sandbox `name` (its owner; the administrators when unknown).
    Audience audienceOfSandbox(const QString &name) const;
    bool maySee(uid_t uid, const Audience &audience) const;

private:
    AccessPolicy m_access;
    QHash<int, OwnerLookup> m_lookups;
};

} // namespace airlock

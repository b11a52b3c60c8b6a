#pragma once
#include <QString>
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

// The one peer check (design.md, "Privilege model"): root, the daemon's own user and, for
// the system service, members of the airlock group are admitted; anyone else is refused with
// the reason in `why`.
bool admitPeer(const PeerCredentials &peer, const AccessPolicy &policy, QString *why);

// Reads SO_PEERCRED of a connected Unix socket.
bool peerCredentials(int fd, PeerCredentials *out);

// True when `uid` may act on an object created by `owner` (root sees everything).
inline bool mayActOn(uid_t uid, uid_t owner) { return uid == 0 || uid == owner; }

} // namespace airlock

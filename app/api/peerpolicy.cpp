#include "api/peerpolicy.h"

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
} // namespace

bool admitPeer(const PeerCredentials &peer, const AccessPolicy &policy, QString *why)
{
    if (peer.uid == 0 || peer.uid == policy.daemonUid)
        return true;
    if (policy.groupAccess && (peer.gid == policy.group || uidInGroup(peer.uid, policy.group)))
        return true;
    if (why)
        *why = policy.groupAccess
            ? QStringLiteral("uid %1 is not root and not in the airlock group; ask an administrator to run "
                             "`usermod -aG airlock <user>` and log in again").arg(peer.uid)
            : QStringLiteral("uid %1 may not use the airlockd of uid %2; start your own airlockd or use "
                             "that user's account").arg(peer.uid).arg(policy.daemonUid);
    return false;
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

#include "daemon/daemon.h"
#include "protocol/names.h"
#include "daemon/services.h"
#include "core/logging.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocalSocket>
#include <grp.h>
#include <unistd.h>

namespace airlock {

namespace {

// The installed system service shares its socket with the `airlock` group; root's daemon
// shares it with another group when told to (--socket-group).
Result<AccessPolicy> accessPolicyFor(const DaemonConfig &config, const QString &socketGroup)
{
    AccessPolicy policy;
    policy.daemonUid = ::geteuid();
    if (!socketGroup.isEmpty() && policy.daemonUid != 0)
        return Error{QStringLiteral("cannot share the socket with group %1").arg(socketGroup),
                     QStringLiteral("only root's airlockd serves several users; drop --socket-group")};
    const bool system = config.socketPath == QLatin1String("/run/airlock/airlockd.sock");
    if (policy.daemonUid != 0 || (socketGroup.isEmpty() && !system))
        return policy;
    const QString name = socketGroup.isEmpty() ? QStringLiteral("airlock") : socketGroup;
    if (const group *g = ::getgrnam(name.toLocal8Bit().constData())) {
        policy.groupAccess = true;
        policy.group = g->gr_gid;
    } else if (!socketGroup.isEmpty()) {
        return Error{QStringLiteral("there is no group %1").arg(socketGroup),
                     QStringLiteral("create it (groupadd %1) or name another with --socket-group").arg(socketGroup)};
    }
    return policy;
}

bool somebodyListens(const QString &path)
{
    QLocalSocket probe;
    probe.connectToServer(path);
    const bool alive = probe.waitForConnected(500);
    probe.abort();
    return alive;
}

} // namespace

Daemon::Daemon(DaemonConfig config, QObject *parent) : QObject(parent), m_config(std::move(config)) {}

Daemon::~Daemon() { stop(); }

Status Daemon::start()
{
    if (!QDir().mkpath(m_config.dataDir))
        return Error{QStringLiteral("cannot create the data directory %1").arg(m_config.dataDir),
                     QStringLiteral("check its parent's permissions or pass another --data-dir")};
    QFile::setPermissions(m_config.dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (Status s = m_lock.acquire(m_config.lockPath()); !s)
        return s;
    if (QFileInfo::exists(m_config.socketPath) && somebodyListens(m_config.socketPath))
        return Error{QStringLiteral("another daemon is listening on %1").arg(m_config.socketPath),
                     QStringLiteral("stop it or pass another --socket")};

    Result<Store> store = Store::open(m_config.databasePath());
    if (!store)
        return store.error();
    m_store = std::move(store.value());

    Result<AccessPolicy> access = accessPolicyFor(m_config, m_socketGroup);
    if (!access)
        return access.error();
    m_api = std::make_unique<ApiServer>(access.value());
    m_api->registerMethod(proto::method::Status, [this](const Call &call) { call.reply(status().toJson()); });

    m_services = makeServices(*this);
    for (auto &service : m_services) {
        if (Status s = service->start(); !s)
            return Error{QStringLiteral("cannot start %1").arg(service->name()), s.error().message(), s.error().kind};
        service->registerMethods(*m_api);
    }
    if (Status s = m_api->listen(m_config.socketPath); !s)
        return s;
    m_started = true;
    qCInfo(lcDaemon) << "airlockd" << AIRLOCK_VERSION << "serving" << m_config.dataDir << "on" << m_config.socketPath;
    return ok();
}

void Daemon::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_api.reset(); // stop taking requests before the services go away
    for (auto it = m_services.rbegin(); it != m_services.rend(); ++it)
        (*it)->stop();
    qCInfo(lcDaemon) << "airlockd stopped";
}

proto::DaemonStatus Daemon::status() const
{
    proto::DaemonStatus s;
    s.version = QStringLiteral(AIRLOCK_VERSION);
    s.libvirtUri = m_config.libvirtUri;
    s.accel = m_config.accel == AccelChoice::Kvm ? QStringLiteral("kvm") : QStringLiteral("tcg");
    // Services that own the vault's state and the sandbox count fill them in from memory:
    // status must not touch the disk.
    for (const auto &service : m_services)
        service->contributeStatus(s);
    return s;
}

} // namespace airlock

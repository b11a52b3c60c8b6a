#pragma once
#include "api/apiserver.h"
#include "core/config.h"
#include "store/store.h"
#include "daemon/instancelock.h"
#include "daemon/service.h"

#include <QObject>
#include <memory>
#include <vector>

namespace airlock {

// airlockd's core: holds the instance lock, the store and the socket, and hosts the services.
class Daemon : public QObject {
    Q_OBJECT
public:
    explicit Daemon(DaemonConfig config, QObject *parent = nullptr);
    ~Daemon() override;

    // Shares the socket (mode 0660) with the members of `group` (root's daemon only); set
    // before start(). Without it only the system socket is shared, with the group airlock.
    void setSocketGroup(const QString &group) { m_socketGroup = group; }

    // Lock, open the store, start the services, listen. On error nothing is left listening.
    Status start();
    void stop();

    const DaemonConfig &config() const { return m_config; }
    Store &store() { return m_store; }
    ApiServer &api() { return *m_api; }
    proto::DaemonStatus status() const;

private:
    DaemonConfig m_config;
    QString m_socketGroup;
    InstanceLock m_lock;
    Store m_store;
    std::unique_ptr<ApiServer> m_api;
    std::vector<std::unique_ptr<Service>> m_services;
    bool m_started = false;
};

} // namespace airlock

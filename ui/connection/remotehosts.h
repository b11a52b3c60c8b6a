#pragma once
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

namespace airlock::ui {

// The airlockd instances on other machines the user keeps in the Hosts menu, like
// virt-manager's connections. Each is reached through a command whose stdin/stdout carry
// the API, `ssh HOST airlockctl proxy` by default. Kept in the user's settings.
class RemoteHosts : public QObject {
    Q_OBJECT
public:
    struct Host {
        QString name;
        QStringList command;
    };

    explicit RemoteHosts(QObject *parent = nullptr);

    const QList<Host> &hosts() const { return m_hosts; }
    const Host *find(const QString &name) const;
    // Empty on success, else what was wrong (and what to do).
    QString add(const QString &name, const QStringList &command);
    void remove(const QString &name);

    // {"ssh", destination, "airlockctl", "proxy"}.
    static QStringList sshCommand(const QString &destination);

Q_SIGNALS:
    void changed();

private:
    void load();
    void save() const;

    QList<Host> m_hosts;
};

} // namespace airlock::ui

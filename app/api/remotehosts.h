#pragma once
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace airlock {

// The airlockd instances on other machines, one list for the desktop app's Hosts menu and
// airlockctl's `remote` commands (like docker contexts). Each is reached through a command
// whose stdin/stdout carry the API, `ssh HOST airlockctl proxy` by default. Kept in
// $XDG_CONFIG_HOME/airlock/remotes.conf, with the one airlockctl uses when told nothing
// (`remote use`). Every change re-reads the file first, so the app and airlockctl editing
// the list at the same time lose nothing of each other's.
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
    // Empty on success, else what was wrong.
    QString remove(const QString &name);

    // The remote airlockctl uses when neither --remote nor AIRLOCK_REMOTE says; empty for
    // this machine.
    QString current() const { return m_current; }
    // Empty on success; `local` (or empty) goes back to this machine.
    QString setCurrent(const QString &name);

    // Which remote a program reaches when started: `flag` (--remote), else, unless a socket
    // was named (`socketGiven`: --socket), $AIRLOCK_REMOTE, else, unless $AIRLOCK_SOCKET is
    // set, current(). Empty (or localName()) means this machine. airlockctl and the desktop
    // app both ask this, so they agree on where "the daemon" is.
    QString chosen(const std::optional<QString> &flag, bool socketGiven) const;

    // {"ssh", destination, "airlockctl", "proxy"}.
    static QStringList sshCommand(const QString &destination);
    // The name that always means this machine.
    static QString localName() { return QStringLiteral("local"); }
    static QString filePath();

Q_SIGNALS:
    void changed();

private:
    void load();
    void save() const;

    QList<Host> m_hosts;
    QString m_current;
};

} // namespace airlock

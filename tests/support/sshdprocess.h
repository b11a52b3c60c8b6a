#pragma once
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

// A real OpenSSH server on 127.0.0.1 for the tests of remote hosts: its own host key and
// one client key that logs in as the user running the test; nothing of /etc/ssh or
// ~/.ssh is read on either side. Stopped on destruction.
class SshdProcess {
public:
    SshdProcess() = default;
    ~SshdProcess();

    // Generates the keys, starts sshd and waits until it accepts; false with error().
    bool start();
    quint16 port() const { return m_port; }
    QString error() const { return m_error; }
    // What sshd logged (accepted keys, sessions): the proof a test went through it.
    QString log() const;

    // The client side: ssh to this server that runs `remote` there, as a remote host's
    // command is written (ssh ... airlockctl proxy).
    QStringList sshCommand(const QStringList &remote) const;
    // As sshCommand, to a port where nothing listens: a remote host that cannot be reached.
    QStringList unreachableCommand(const QStringList &remote) const;

private:
    QStringList clientOptions(quint16 port) const;

    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_error;
};

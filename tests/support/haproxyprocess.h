#pragma once
#include <QByteArray>
#include <QHostAddress>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

// haproxy as a reference relay for the benchmarks: the configuration goes to haproxy.cfg in a
// directory of its own (certificates a configuration names can be written beside it, see
// dir()), haproxy runs in the foreground (-db) in the caller's network namespace, and is
// stopped on destruction.
class HaproxyProcess {
public:
    HaproxyProcess() = default;
    ~HaproxyProcess();

    // Starts haproxy on `config` and waits until `address`:`port` (one of its binds) accepts;
    // false with error() when haproxy is missing, rejects the configuration or never listens.
    bool start(const QByteArray &config, const QHostAddress &address, quint16 port);
    QString error() const { return m_error; }
    QString dir() const { return m_dir.path(); }
    qint64 pid() const { return m_process.processId(); }
    QString log() const; // what haproxy printed (its warnings and alerts)

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    QString m_error;
};

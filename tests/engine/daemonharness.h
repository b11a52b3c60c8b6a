#pragma once
// A real airlockd for engine tests: own socket in a temp dir, the shared engine data dir
// (so the tiny image is built once per run), qemu:///system, and airlockctl --json calls.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

struct CtlResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonValue json() const { return QJsonDocument::fromJson(out).isArray() ? QJsonValue(QJsonDocument::fromJson(out).array())
                                                                             : QJsonValue(QJsonDocument::fromJson(out).object()); }
};

class DaemonHarness {
public:
    // AIRLOCK_ENGINE_TEST_DATA (set by CMake) or a fresh temp dir.
    static QString sharedDataDir();
    static QString libvirtUri() { return QStringLiteral("qemu:///system"); }
    // The test's "internet" for every airlockd this process starts from now on: writes the
    // hosts file (names -> the test's servers) and, if given, the CA of its TLS servers into
    // `dir`, and exports AIRLOCK_UPSTREAM_HOSTS / AIRLOCK_UPSTREAM_CA.
    static bool setUpstream(const QString &dir, const QByteArray &hosts, const QByteArray &caPem, QString *error);

    ~DaemonHarness();
    // Starts airlockd and waits for its socket; false with `error` set on failure.
    bool start(const QString &dataDir, QString *error, const QStringList &extraArgs = {},
               const QStringList &extraEnv = {});
    // start() on the shared data dir, and false unless it holds the tiny image (which
    // test_engine_image, the ctest fixture, builds).
    bool startWithTinyImage(QString *error);
    bool running() const { return m_daemon.state() == QProcess::Running; }
    qint64 pid() const { return m_daemon.processId(); }
    bool waitForExit(int ms) { return m_daemon.waitForFinished(ms); }
    void stop();
    void killHard(); // SIGKILL, for crash tests
    CtlResult ctl(const QStringList &args, int timeoutMs = 300000, const QByteArray &input = {}) const;
    // airlockctl without --json: the text a person reads (exec prints the guest's own output).
    CtlResult ctlText(const QStringList &args, int timeoutMs = 300000, const QByteArray &input = {}) const;
    // Runs argv in the guest through its agent (airlockctl exec); input goes to its stdin.
    CtlResult guestExec(const QString &sandbox, const QStringList &argv, int timeoutMs = 120000,
                        const QByteArray &input = {}) const;
    CtlResult guestSh(const QString &sandbox, const QString &script, int timeoutMs = 120000,
                      const QByteArray &input = {}) const;
    // A kept data dir may hold a vault of an earlier run: init it when new, unlock it otherwise.
    CtlResult initOrUnlockVault(const QByteArray &passphrase, int timeoutMs = 60000) const;
    // Powers the sandbox off (rm refuses a running one) and removes it; false if it is left behind.
    bool killAndRemove(const QString &sandbox) const;
    QString socketPath() const { return m_dir.path() + QStringLiteral("/airlockd.sock"); }
    QByteArray log() const;

private:
    CtlResult runCtl(const QStringList &args, int timeoutMs, const QByteArray &input) const;
    QTemporaryDir m_dir;
    QProcess m_daemon;
};

// Unique per process, so parallel runs never collide on names.
QString uniqueName(const QString &prefix);

#include "connection/daemonconnection.h"
#include "api/jsonrpc.h"
#include "common/replies.h"
#include "protocol/names.h"
#include "protocol/snapshots.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QSignalBlocker>
#include <QStandardPaths>

namespace airlock::ui {

namespace {
// Topics every view of the app listens to; console topics are added per terminal. Not
// `pending`: its events are the `egress` events that open a held request, sent twice.
const QStringList kTopics = {proto::topic::Sandbox, proto::topic::Egress, proto::topic::Image, proto::topic::Snapshot,
                             proto::topic::Alert, proto::topic::Port};

// Parses one event's data and hands it to `emitIt`; data the protocol refuses is dropped
// with a warning naming the field, so no view ever sees half an object.
template <typename T, typename Emit>
void parseAndEmit(const QString &topic, const QJsonObject &data, Emit emitIt)
{
    Result<T> parsed = T::fromJson(data);
    if (!parsed) {
        qWarning("airlock: ignored a \"%s\" event: %s", qPrintable(topic), qPrintable(parsed.error().message()));
        return;
    }
    emitIt(parsed.value());
}
} // namespace

DaemonConnection::DaemonConnection(const QString &socketPath, QObject *parent)
    : QObject(parent), m_client(new ApiClient(this)), m_socketPath(socketPath)
{
    connect(m_client, &ApiClient::connected, this, &DaemonConnection::onConnected);
    connect(m_client, &ApiClient::disconnected, this, &DaemonConnection::onConnectFailed);
    connect(m_client, &ApiClient::event, this, &DaemonConnection::onEvent);
    m_reconnectTimer.setInterval(2000);
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, [this] { attempt(false, true); });
    m_statusTimer.setInterval(10000);
    connect(&m_statusTimer, &QTimer::timeout, this, &DaemonConnection::refreshStatus);
}

DaemonConnection::~DaemonConnection()
{
    if (m_daemonProcess)
        m_daemonProcess->disconnect(this);
}

QString DaemonConnection::defaultDaemonProgram()
{
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/airlockd");
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString inPath = QStandardPaths::findExecutable(QStringLiteral("airlockd"));
    if (!inPath.isEmpty())
        return inPath;
    // airlockd is installed to sbin, which a user's PATH may lack.
    return QStandardPaths::findExecutable(QStringLiteral("airlockd"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")});
}

void DaemonConnection::start() { attempt(true, false); }

void DaemonConnection::retry()
{
    m_reconnectTimer.stop();
    attempt(true, false);
}

void DaemonConnection::attempt(bool mayStartDaemon, bool quiet)
{
    if (m_state == State::Connected || m_state == State::StartingDaemon)
        return;
    m_mayStartDaemon = mayStartDaemon;
    m_quietAttempt = quiet;
    m_attempting = true;
    if (!quiet)
        setState(State::Connecting);
    if (m_command.isEmpty())
        m_client->connectTo(m_socketPath);
    else
        m_client->connectToCommand(m_command.first(), m_command.mid(1));
}

QString DaemonConnection::target() const
{
    return m_command.isEmpty() ? m_socketPath : m_command.join(QLatin1Char(' '));
}

void DaemonConnection::switchTo(const QStringList &command)
{
    m_reconnectTimer.stop();
    m_statusTimer.stop();
    {
        const QSignalBlocker quiet(m_client); // not a lost connection: the user left it
        m_client->disconnectFromDaemon();
    }
    m_command = command;
    m_attempting = false;
    m_status = {};
    m_reason.clear();
    m_hint.clear();
    m_details.clear();
    setState(State::NotConnected);
    attempt(m_command.isEmpty(), false);
}

void DaemonConnection::onConnected()
{
    // A command "connects" when it starts; only the status answer shows airlockd is there.
    m_attempting = !m_command.isEmpty();
    m_reconnectTimer.stop();
    m_reason.clear();
    m_hint.clear();
    m_details.clear();
    m_client->call(proto::method::Subscribe, proto::TopicsParams{kTopics}.toJson(), this, {});
    m_client->call(proto::method::Status, {}, this, [this](const ApiClient::Reply &r) { onStatusReply(r); });
    m_statusTimer.start();
}

void DaemonConnection::onStatusReply(const ApiClient::Reply &r)
{
    const Result<proto::DaemonStatus> status = replyAs<proto::DaemonStatus>(r);
    if (!status) {
        fail(tr("airlockd answered but its status failed: %1").arg(status.error().message()),
             tr("Look at airlockd's log (an airlockd of another version may speak differently), then press Retry."));
        m_client->disconnectFromDaemon();
        return;
    }
    m_attempting = false;
    m_status = status.value();
    setState(State::Connected);
    Q_EMIT statusChanged(m_status);
}

void DaemonConnection::onEvent(const QString &topic, const QJsonObject &data)
{
    namespace topics = proto::topic;
    if (topic == topics::Sandbox) {
        refreshStatus(); // the sandbox count changed, perhaps
        parseAndEmit<proto::SandboxRow>(topic, data, [this](const auto &row) { Q_EMIT sandboxChanged(row); });
    } else if (topic == topics::Egress) {
        parseAndEmit<proto::EgressEvent>(topic, data, [this](const auto &e) { Q_EMIT egressEvent(e); });
    } else if (topic == topics::Image) {
        parseAndEmit<proto::ImageProgress>(topic, data, [this](const auto &p) { Q_EMIT imageProgress(p); });
    } else if (topic == topics::Snapshot) {
        parseAndEmit<proto::SnapshotProgress>(topic, data, [this](const auto &p) { Q_EMIT snapshotProgress(p); });
    } else if (topic == topics::Alert) {
        parseAndEmit<proto::Alert>(topic, data, [this](const auto &a) { Q_EMIT alert(a); });
    } else if (topic == topics::Port) {
        parseAndEmit<proto::PortsChanged>(topic, data, [this](const auto &p) { Q_EMIT portsChanged(p); });
    } else if (topic.startsWith(topics::ConsolePrefix)) {
        const QString sandbox = topic.mid(topics::ConsolePrefix.size());
        parseAndEmit<proto::ConsoleOutput>(topic, data, [this, &sandbox](const auto &o) { Q_EMIT consoleOutput(sandbox, o.data); });
    }
}

void DaemonConnection::onConnectFailed(const QString &why)
{
    m_statusTimer.stop();
    if (m_state == State::StartingDaemon)
        return;
    const bool wasConnected = m_state == State::Connected;
    const bool wasAttempting = std::exchange(m_attempting, false);
    if (!wasConnected && !wasAttempting)
        return; // a second signal for the same loss
    if (wasConnected) {
        fail(tr("The connection to airlockd was lost: the daemon stopped or restarted."),
             tr("Airlock reconnects as soon as airlockd is back. Start it again with `airlockd`, or press Retry to let Airlock start it."));
        m_reconnectTimer.start();
        return;
    }

    if (!m_command.isEmpty()) {
        if (!m_quietAttempt)
            fail(tr("Cannot reach airlockd through `%1`: %2").arg(target(), why),
                 tr("Check that this command works in a terminal (ssh access to the host, airlockctl installed there and "
                    "you in its airlock group), then press Retry."),
                 why);
        m_reconnectTimer.start();
        return;
    }
    const QFileInfo socket(m_socketPath);
    if (socket.exists() && !socket.isWritable()) {
        fail(tr("Permission denied on %1.").arg(m_socketPath),
             tr("airlockd admits root and members of the airlock group: run `sudo adduser $USER airlock`, log out and in again, then press Retry."));
        m_reconnectTimer.start();
        return;
    }
    if (m_mayStartDaemon && m_autoStart && !m_daemonProgram.isEmpty()) {
        startDaemon();
        return;
    }
    if (!m_quietAttempt) {
        if (!m_autoStart)
            fail(why, tr("Start airlockd (run `airlockd`, or `sudo systemctl start airlockd` where it is installed as a service), then press Retry."));
        else if (m_daemonProgram.isEmpty())
            fail(why, tr("airlockd was not found next to airlock nor in PATH: install it, or start it yourself, then press Retry."));
        else
            fail(why, tr("Start airlockd, or press Retry to let Airlock start it."));
    }
    m_reconnectTimer.start();
}

void DaemonConnection::startDaemon()
{
    setState(State::StartingDaemon);
    auto *process = new QProcess(this);
    m_daemonProcess = process;
    process->setProgram(m_daemonProgram);
    process->setArguments({QStringLiteral("--socket"), m_socketPath});
    process->setProcessChannelMode(QProcess::SeparateChannels);
    process->setStandardOutputFile(QProcess::nullDevice());
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        process->deleteLater();
        m_state = State::NotConnected;
        fail(tr("Could not start airlockd (%1): %2").arg(m_daemonProgram, process->errorString()),
             tr("Check that airlockd is installed and executable, then press Retry."));
        m_reconnectTimer.start();
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus exitStatus) {
        process->deleteLater();
        const QString stderrText = QString::fromLocal8Bit(process->readAllStandardError()).trimmed();
        m_state = State::NotConnected;
        if (exitStatus == QProcess::NormalExit && exitCode == 0) {
            attempt(false, false); // the daemon is listening now
            return;
        }
        QString hint = tr("Read airlockd's message below, fix what it names, then press Retry.");
        if (stderrText.contains(QLatin1String("libvirt"), Qt::CaseInsensitive))
            hint = tr("libvirtd seems to be down or unreachable: start it (`sudo systemctl start libvirtd`), then press Retry.");
        else if (stderrText.contains(QLatin1String("another airlockd"), Qt::CaseInsensitive))
            hint = tr("Another airlockd serves this data directory on another socket: use that socket (--socket), or stop it, then press Retry.");
        else if (stderrText.contains(QLatin1String("ermission")))
            hint = tr("airlockd lacks a permission (libvirt group, CAP_NET_ADMIN or its data directory): see below, then press Retry.");
        fail(tr("airlockd failed to start (exit code %1).").arg(exitCode), hint,
             stderrText.isEmpty() ? tr("airlockd printed nothing.") : stderrText);
        m_reconnectTimer.start();
    });
    process->start();
}

void DaemonConnection::refreshStatus()
{
    if (m_state != State::Connected)
        return;
    m_client->call(proto::method::Status, {}, this, [this](const ApiClient::Reply &r) {
        if (!r.ok || m_state != State::Connected)
            return;
        const Result<proto::DaemonStatus> status = replyAs<proto::DaemonStatus>(r);
        if (!status) {
            qWarning("airlock: ignored a status answer: %s", qPrintable(status.error().message()));
            return;
        }
        m_status = status.value();
        Q_EMIT statusChanged(m_status);
    });
}

void DaemonConnection::setState(State s)
{
    if (m_state == s)
        return;
    m_state = s;
    Q_EMIT stateChanged(s);
}

void DaemonConnection::fail(const QString &reason, const QString &hint, const QString &details)
{
    // Messages from the socket layer start in lower case; the banner shows sentences.
    m_reason = reason;
    if (!m_reason.isEmpty()) {
        m_reason[0] = m_reason[0].toUpper();
        if (!m_reason.endsWith(QLatin1Char('.')))
            m_reason += QLatin1Char('.');
    }
    m_hint = hint;
    m_details = details;
    m_status = {};
    if (m_state == State::NotConnected)
        Q_EMIT stateChanged(m_state); // new reason, same state
    else
        setState(State::NotConnected);
}

} // namespace airlock::ui

#include "api/apiclient.h"
#include "api/jsonrpc.h"

#include <QJsonDocument>
#include <QSignalBlocker>

namespace airlock {

ApiClient::ApiClient(QObject *parent) : QObject(parent), m_socket(new QLocalSocket(this))
{
    connect(m_socket, &QLocalSocket::connected, this, &ApiClient::connected);
    connect(m_socket, &QLocalSocket::readyRead, this, &ApiClient::onReadyRead);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        failAll(tr("airlockd closed the connection"));
        Q_EMIT disconnected(tr("airlockd closed the connection; it may have stopped"));
    });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
        QString why = m_socket->errorString();
        if (error == QLocalSocket::ServerNotFoundError || error == QLocalSocket::ConnectionRefusedError)
            why = tr("no airlockd is listening on %1").arg(m_path);
        else if (error == QLocalSocket::SocketAccessError)
            why = tr("permission denied on %1: you need to be root or in the airlock group").arg(m_path);
        failAll(why);
        if (m_socket->state() != QLocalSocket::ConnectedState)
            Q_EMIT disconnected(why);
    });
}

ApiClient::~ApiClient()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->closeWriteChannel();
        m_process->kill();
        m_process->waitForFinished(2000); // a child process never outlives its client
    }
}

void ApiClient::connectTo(const QString &socketPath)
{
    dropProcess();
    m_path = socketPath;
    m_command.clear();
    m_lines.clear();
    m_socket->abort();
    m_socket->connectToServer(socketPath);
}

void ApiClient::connectToCommand(const QString &program, const QStringList &arguments)
{
    m_socket->abort();
    dropProcess();
    m_command = QStringList{program} + arguments;
    m_path = m_command.join(QLatin1Char(' '));
    m_lines.clear();
    m_stderr.clear();
    auto *process = new QProcess(this);
    m_process = process;
    process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(process, &QProcess::started, this, &ApiClient::connected);
    connect(process, &QProcess::readyReadStandardOutput, this, &ApiClient::onReadyRead);
    connect(process, &QProcess::readyReadStandardError, this, [this, process] {
        m_stderr += process->readAllStandardError();
        if (m_stderr.size() > 4096)
            m_stderr = m_stderr.right(4096);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process, program](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // a crash or exit also ends in finished()
        const QString why = tr("cannot run %1: %2").arg(program, process->errorString());
        dropProcess();
        failAll(why);
        Q_EMIT disconnected(why);
    });
    connect(process, &QProcess::finished, this, [this, process, program](int exitCode, QProcess::ExitStatus status) {
        m_stderr += process->readAllStandardError();
        const QStringList lines = QString::fromLocal8Bit(m_stderr).trimmed().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QString tail = lines.mid(qMax(0, int(lines.size()) - 3)).join(QStringLiteral(" | ")).right(600);
        QString why = status == QProcess::CrashExit ? tr("%1 crashed").arg(program) : tr("%1 ended (exit %2)").arg(program).arg(exitCode);
        if (!tail.isEmpty())
            why += QStringLiteral(": ") + tail;
        dropProcess();
        failAll(why);
        Q_EMIT disconnected(why);
    });
    process->start(program, arguments);
}

void ApiClient::dropProcess()
{
    if (!m_process)
        return;
    QProcess *process = std::exchange(m_process, nullptr);
    process->disconnect(this);
    if (process->state() != QProcess::NotRunning) {
        process->closeWriteChannel(); // airlockctl proxy ends when its stdin does
        process->kill();
    }
    // deleteLater: this may run inside one of the process's own signals.
    connect(process, &QProcess::finished, process, &QObject::deleteLater);
    if (process->state() == QProcess::NotRunning)
        process->deleteLater();
}

bool ApiClient::isConnected() const
{
    if (m_process)
        return m_process->state() == QProcess::Running;
    return m_socket->state() == QLocalSocket::ConnectedState;
}

void ApiClient::disconnectFromDaemon()
{
    if (!m_process)
        return m_socket->disconnectFromServer();
    const QString why = tr("disconnected from %1").arg(m_path);
    dropProcess();
    failAll(why);
    Q_EMIT disconnected(why);
}

void ApiClient::call(const QString &method, const QJsonObject &params, QObject *context, Callback callback)
{
    if (!isConnected()) {
        Reply r;
        r.errorCode = rpc::Unavailable;
        r.errorMessage = tr("not connected to airlockd");
        if (callback)
            QMetaObject::invokeMethod(context ? context : this, [callback, r] { callback(r); }, Qt::QueuedConnection);
        return;
    }
    const int id = m_nextId++;
    m_pending.insert(id, Pending{context, context != nullptr, std::move(callback)});
    const QByteArray request = rpc::encodeRequest(id, method, params);
    m_process ? m_process->write(request) : m_socket->write(request);
}

void ApiClient::onReadyRead()
{
    m_lines.append(m_process ? m_process->readAllStandardOutput() : m_socket->readAll());
    while (const std::optional<QByteArray> line = m_lines.next()) {
        const QJsonObject m = QJsonDocument::fromJson(*line).object();
        if (!m.contains(QLatin1String("id"))) {
            const QJsonObject params = m.value(QLatin1String("params")).toObject();
            Q_EMIT event(params.value(QLatin1String("topic")).toString(), params.value(QLatin1String("data")).toObject());
            continue;
        }
        const int id = m.value(QLatin1String("id")).toInt();
        const auto it = m_pending.find(id);
        if (it == m_pending.end())
            continue;
        Pending pending = it.value();
        m_pending.erase(it);
        if (pending.hasContext && !pending.context)
            continue;
        Reply r;
        if (m.contains(QLatin1String("error"))) {
            const QJsonObject e = m.value(QLatin1String("error")).toObject();
            r.errorCode = e.value(QLatin1String("code")).toInt();
            r.errorMessage = e.value(QLatin1String("message")).toString();
        } else {
            r.ok = true;
            r.result = m.value(QLatin1String("result"));
        }
        if (pending.callback)
            pending.callback(r);
    }
    if (m_lines.overflowed())
        dropOverlongPeer();
}

void ApiClient::dropOverlongPeer()
{
    const QString why = tr("%1 sent a line longer than %2 MiB; it is not speaking airlockd's protocol")
                            .arg(m_path)
                            .arg(rpc::kMaxReplyLineBytes >> 20);
    dropProcess();
    {
        const QSignalBlocker quiet(m_socket); // one disconnected(), with this reason
        m_socket->abort();
    }
    m_lines.clear();
    failAll(why);
    Q_EMIT disconnected(why);
}

void ApiClient::failAll(const QString &why)
{
    const auto pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        if ((p.hasContext && !p.context) || !p.callback)
            continue;
        Reply r;
        r.errorCode = rpc::Unavailable;
        r.errorMessage = why;
        p.callback(r);
    }
}

} // namespace airlock

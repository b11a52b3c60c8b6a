#include "consolehub.h"
#include "core/logging.h"
#include "libvirtconnection.h"
#include "virhandle.h"

#include <QThread>

namespace airlock {

ConsoleHub::~ConsoleHub() { closeAll(); }

void ConsoleHub::release(Console &console)
{
    console.stop = true;
    if (console.reader.joinable())
        console.reader.join();
    if (console.stream)
        virStreamAbort(console.stream.get());
    console.stream.reset(); // before the connection it belongs to
    console.conn.reset();
}

Status ConsoleHub::ensure(const QString &sandbox, const QString &domain)
{
    QMutexLocker lock(&m_lock);
    std::shared_ptr<Console> &slot = m_consoles[sandbox];
    if (slot && slot->open)
        return ok();
    QByteArray keep;
    if (slot) { // the previous reader ended with the last boot; keep its history
        release(*slot);
        keep = slot->history;
    }
    auto console = std::make_shared<Console>();
    console->history = keep;
    slot = console;
    const QString what = m_channel.name.isEmpty() ? QStringLiteral("the console") : QString::fromLatin1("channel " + m_channel.name);
    LibvirtConnection::initializeLibvirt();
    console->conn.reset(virConnectOpen(m_uri.toUtf8().constData()));
    if (!console->conn)
        return LibvirtConnection::lastError(QStringLiteral("cannot open %1 of %2").arg(what, sandbox));
    VirDomain dom = lookupDomain(console->conn.get(), domain);
    if (!dom) {
        Error e = LibvirtConnection::lastError(QStringLiteral("the domain of %1 is gone").arg(sandbox));
        release(*console);
        return e;
    }
    // Non-blocking: the reader polls, so closing never waits on a stream stuck in libvirt.
    console->stream.reset(virStreamNew(console->conn.get(), VIR_STREAM_NONBLOCK));
    const int rc = m_channel.name.isEmpty()
                       ? virDomainOpenConsole(dom.get(), nullptr, console->stream.get(), VIR_DOMAIN_CONSOLE_FORCE)
                       : virDomainOpenChannel(dom.get(), m_channel.name.constData(), console->stream.get(), VIR_DOMAIN_CHANNEL_FORCE);
    dom.reset();
    if (rc < 0) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot open %1 of %2").arg(what, sandbox));
        release(*console);
        return e;
    }
    console->open = true;
    console->reader = std::thread([this, sandbox, c = console.get()] { read(sandbox, c); });
    return ok();
}

void ConsoleHub::read(const QString &sandbox, Console *console)
{
    char buffer[16384];
    while (!console->stop) {
        int n;
        {
            QMutexLocker send(&console->sendLock);
            n = virStreamRecv(console->stream.get(), buffer, sizeof buffer);
        }
        if (n == -2) { // nothing yet
            QThread::msleep(20);
            continue;
        }
        if (n <= 0) // 0: the guest went away; -1: an error
            break;
        const QByteArray data(buffer, n);
        if (m_channel.onData) {
            auto wait = m_channel.onData(sandbox, data);
            for (; wait.count() > 0 && !console->stop; wait -= std::chrono::milliseconds(20))
                QThread::msleep(20);
            continue;
        }
        {
            QMutexLocker lock(&m_lock);
            console->history += data;
            if (console->history.size() > kHistory)
                console->history.remove(0, console->history.size() - kHistory);
        }
        m_onOutput(sandbox, data);
    }
    console->open = false;
}

QByteArray ConsoleHub::history(const QString &sandbox) const
{
    QMutexLocker lock(&m_lock);
    const auto c = m_consoles.value(sandbox);
    return c ? c->history : QByteArray();
}

void ConsoleHub::startOver(const QString &sandbox, const QByteArray &screen)
{
    const QByteArray redraw = QByteArrayLiteral("\x1b" "c") + screen.right(kHistory - 2); // RIS: a full reset first
    {
        QMutexLocker lock(&m_lock);
        std::shared_ptr<Console> &slot = m_consoles[sandbox];
        if (!slot)
            slot = std::make_shared<Console>(); // not open: the next ensure() keeps this history
        slot->history = redraw;
    }
    if (m_onOutput)
        m_onOutput(sandbox, redraw);
}

Status ConsoleHub::write(const QString &sandbox, const QByteArray &data)
{
    std::shared_ptr<Console> c;
    {
        QMutexLocker lock(&m_lock);
        c = m_consoles.value(sandbox);
    }
    if (!c || !c->open)
        return Error{QStringLiteral("the console of %1 is not open").arg(sandbox), QStringLiteral("is the sandbox running?"), ErrorKind::Conflict};
    qsizetype sent = 0;
    int spins = 0;
    while (sent < data.size()) {
        int n;
        {
            QMutexLocker send(&c->sendLock);
            n = virStreamSend(c->stream.get(), data.constData() + sent, size_t(data.size() - sent));
        }
        if (n == -2 && ++spins < 500) {
            QThread::msleep(10);
            continue;
        }
        if (n < 0)
            return LibvirtConnection::lastError(QStringLiteral("cannot write to the console of %1").arg(sandbox));
        sent += n;
    }
    return ok();
}

void ConsoleHub::close(const QString &sandbox)
{
    std::shared_ptr<Console> c;
    {
        QMutexLocker lock(&m_lock);
        c = m_consoles.take(sandbox);
    }
    if (c)
        release(*c);
}

void ConsoleHub::closeAll()
{
    QStringList names;
    {
        QMutexLocker lock(&m_lock);
        names = m_consoles.keys();
    }
    for (const QString &n : names)
        close(n);
}

} // namespace airlock

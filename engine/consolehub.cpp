#include "consolehub.h"
#include "core/logging.h"
#include "libvirtconnection.h"

namespace airlock {

ConsoleHub::~ConsoleHub() { closeAll(); }

Status ConsoleHub::ensure(const QString &sandbox, const QString &domain)
{
    QMutexLocker lock(&m_lock);
    std::shared_ptr<Console> &slot = m_consoles[sandbox];
    if (slot && slot->open)
        return ok();
    QByteArray keep;
    if (slot) { // the previous reader ended with the last boot; keep its history
        if (slot->reader.joinable())
            slot->reader.join();
        if (slot->stream)
            virStreamFree(slot->stream);
        keep = slot->history;
    }
    auto console = std::make_shared<Console>();
    console->history = keep;
    virDomainPtr dom = virDomainLookupByName(m_conn, domain.toUtf8().constData());
    if (!dom)
        return LibvirtConnection::lastError(QStringLiteral("the domain of %1 is gone").arg(sandbox));
    console->stream = virStreamNew(m_conn, 0);
    const int rc = virDomainOpenConsole(dom, nullptr, console->stream, VIR_DOMAIN_CONSOLE_FORCE);
    virDomainFree(dom);
    if (rc < 0) {
        Error e = LibvirtConnection::lastError(QStringLiteral("cannot open the console of %1").arg(sandbox));
        virStreamFree(console->stream);
        slot = console;
        console->stream = nullptr;
        return e;
    }
    console->open = true;
    console->reader = std::thread([this, sandbox, console] { read(sandbox, console); });
    slot = console;
    return ok();
}

void ConsoleHub::read(const QString &sandbox, const std::shared_ptr<Console> &console)
{
    char buffer[16384];
    for (;;) {
        const int n = virStreamRecv(console->stream, buffer, sizeof buffer);
        if (n <= 0) // 0: the guest went away; <0: aborted (close) or an error
            break;
        const QByteArray data(buffer, n);
        {
            QMutexLocker lock(&m_lock);
            console->history += data;
            if (console->history.size() > kHistory)
                console->history.remove(0, console->history.size() - kHistory);
        }
        m_onOutput(sandbox, data);
    }
    QMutexLocker lock(&m_lock);
    console->open = false;
}

QByteArray ConsoleHub::history(const QString &sandbox) const
{
    QMutexLocker lock(&m_lock);
    const auto c = m_consoles.value(sandbox);
    return c ? c->history : QByteArray();
}

Status ConsoleHub::write(const QString &sandbox, const QByteArray &data)
{
    std::shared_ptr<Console> c;
    {
        QMutexLocker lock(&m_lock);
        c = m_consoles.value(sandbox);
    }
    if (!c || !c->open)
        return Error{QStringLiteral("the console of %1 is not open").arg(sandbox), QStringLiteral("is the sandbox running?"), -32009};
    qsizetype sent = 0;
    while (sent < data.size()) {
        const int n = virStreamSend(c->stream, data.constData() + sent, size_t(data.size() - sent));
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
    if (!c)
        return;
    if (c->stream)
        virStreamAbort(c->stream);
    if (c->reader.joinable())
        c->reader.join();
    if (c->stream)
        virStreamFree(c->stream);
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

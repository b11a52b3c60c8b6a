#pragma once
#include "core/result.h"
#include "virhandle.h"

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QString>
#include <functional>
#include <libvirt/libvirt.h>
#include <memory>
#include <atomic>
#include <chrono>
#include <thread>

namespace airlock {

// The guests' serial consoles over libvirt streams. Each running sandbox gets one reader
// thread that keeps the last kHistory bytes (so a client attaching late sees what happened)
// and hands new output to `onOutput`; writes go to the same stream. The same hub reads a
// named virtio-serial channel instead (Channel): no history, and its consumer paces it.
class ConsoleHub {
public:
    static constexpr qsizetype kHistory = 256 * 1024;
    using Output = std::function<void(const QString &sandbox, const QByteArray &data)>;
    // Returns how long the reader waits before it reads more (backpressure on the guest).
    using Paced = std::function<std::chrono::milliseconds(const QString &sandbox, const QByteArray &data)>;
    struct Channel {
        QByteArray name; // the channel's target name in the domain XML
        Paced onData;
    };

    // Each console gets its own connection to `uri`, so a stream never holds up the
    // engine's shared connection.
    ConsoleHub(QString uri, Output onOutput) : m_uri(std::move(uri)), m_onOutput(std::move(onOutput)) {}
    ConsoleHub(QString uri, Channel channel) : m_uri(std::move(uri)), m_channel(std::move(channel)) {}
    ~ConsoleHub();

    // Opens the console of `domain` unless a reader for `sandbox` is already running.
    Status ensure(const QString &sandbox, const QString &domain);
    QByteArray history(const QString &sandbox) const;
    // Replaces the kept history with a terminal reset and `screen` (a checkpoint's, when the
    // guest resumed from it) and hands that on as output, so every client redraws it.
    void startOver(const QString &sandbox, const QByteArray &screen);
    Status write(const QString &sandbox, const QByteArray &data);
    void close(const QString &sandbox);
    void closeAll();

private:
    struct Console {
        VirConnection conn; // the hub's own, opened on m_uri
        VirStream stream;
        std::thread reader;
        QByteArray history;
        std::atomic<bool> open{false};
        std::atomic<bool> stop{false};
        QMutex sendLock;
    };
    static void release(Console &console);
    void read(const QString &sandbox, Console *console);

    QString m_uri;
    Output m_onOutput;
    Channel m_channel;
    mutable QMutex m_lock;
    QHash<QString, std::shared_ptr<Console>> m_consoles;
};

} // namespace airlock

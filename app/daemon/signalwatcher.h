#pragma once
#include <QObject>

class QSocketNotifier;

namespace airlock {

// Turns SIGTERM/SIGINT into a Qt signal on the main thread (self-pipe), so shutdown runs
// destructors, closes the store and removes the socket.
class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void terminationRequested(int signal);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace airlock

#pragma once
// A small epoll event loop on a thread of its own, for the broker's data plane (resolver,
// transparent proxy): many sockets, no Qt event loop, never the daemon's main thread.
// Other threads hand it work with post(); it wakes at once (eventfd).
#include <QString>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace airlock {

class EpollLoop {
public:
    using Handler = std::function<void(uint32_t events)>;

    EpollLoop();
    ~EpollLoop();
    EpollLoop(const EpollLoop &) = delete;
    EpollLoop &operator=(const EpollLoop &) = delete;

    // Starts the thread; `tick` runs about every `tickMs` (timeouts are checked there).
    void start(const QString &name, std::function<void()> tick = {}, int tickMs = 100);
    void stop();
    bool running() const { return m_thread.joinable(); }
    bool inLoop() const { return std::this_thread::get_id() == m_threadId; }

    // Thread-safe: runs `work` on the loop's thread.
    void post(std::function<void()> work);
    // Runs `work` on the loop's thread and waits for it (never call from the loop itself).
    void call(const std::function<void()> &work);

    // Loop thread only.
    bool add(int fd, uint32_t events, Handler handler);
    void modify(int fd, uint32_t events);
    void remove(int fd);

private:
    void run();
    struct Entry {
        uint64_t generation;
        Handler handler;
    };
    int m_epoll = -1;
    int m_wake = -1;
    std::thread m_thread;
    std::thread::id m_threadId;
    std::mutex m_mutex;
    std::deque<std::function<void()>> m_posted;
    bool m_stopping = false;
    std::unordered_map<int, Entry> m_entries;
    uint64_t m_generation = 0;
    std::function<void()> m_tick;
    int m_tickMs = 100;
};

} // namespace airlock

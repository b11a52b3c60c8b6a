#include "epollloop.h"

#include <QThread>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace airlock {

EpollLoop::EpollLoop()
{
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0; // generation 0 = the wake-up fd
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &ev);
}

EpollLoop::~EpollLoop()
{
    stop();
    ::close(m_wake);
    ::close(m_epoll);
}

void EpollLoop::start(const QString &name, std::function<void()> tick, int tickMs)
{
    m_tick = std::move(tick);
    m_tickMs = tickMs;
    m_stopping = false;
    std::mutex started;
    std::condition_variable cv;
    bool ready = false;
    m_thread = std::thread([this, name, &started, &cv, &ready] {
        QThread::currentThread()->setObjectName(name);
        {
            std::lock_guard lock(started);
            m_threadId = std::this_thread::get_id();
            ready = true;
        }
        cv.notify_one();
        run();
    });
    std::unique_lock lock(started);
    cv.wait(lock, [&] { return ready; });
}

void EpollLoop::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(m_wake, &one, sizeof one);
    m_thread.join();
    m_threadId = {};
}

void EpollLoop::post(std::function<void()> work)
{
    {
        std::lock_guard lock(m_mutex);
        m_posted.push_back(std::move(work));
    }
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(m_wake, &one, sizeof one);
}

void EpollLoop::call(const std::function<void()> &work)
{
    if (!running() || inLoop()) {
        work();
        return;
    }
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    post([&] {
        work();
        std::lock_guard lock(m);
        done = true;
        cv.notify_one();
    });
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
}

bool EpollLoop::add(int fd, uint32_t events, Handler handler)
{
    const uint64_t generation = ++m_generation;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = (generation << 32) | uint32_t(fd);
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev) != 0)
        return false;
    m_entries[fd] = Entry{generation, std::move(handler)};
    return true;
}

void EpollLoop::modify(int fd, uint32_t events)
{
    const auto it = m_entries.find(fd);
    if (it == m_entries.end())
        return;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = (it->second.generation << 32) | uint32_t(fd);
    ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &ev);
}

void EpollLoop::remove(int fd)
{
    if (m_entries.erase(fd))
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
}

void EpollLoop::run()
{
    using Clock = std::chrono::steady_clock;
    auto nextTick = Clock::now() + std::chrono::milliseconds(m_tickMs);
    epoll_event events[256];
    for (;;) {
        const auto now = Clock::now();
        if (now >= nextTick) {
            if (m_tick)
                m_tick();
            nextTick = now + std::chrono::milliseconds(m_tickMs);
        }
        const int timeout = int(std::chrono::duration_cast<std::chrono::milliseconds>(nextTick - now).count()) + 1;
        const int n = ::epoll_wait(m_epoll, events, 256, timeout);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; ++i) {
            const uint64_t key = events[i].data.u64;
            if (key == 0) {
                uint64_t count;
                [[maybe_unused]] ssize_t r = ::read(m_wake, &count, sizeof count);
                std::deque<std::function<void()>> work;
                bool stopping;
                {
                    std::lock_guard lock(m_mutex);
                    work.swap(m_posted);
                    stopping = m_stopping;
                }
                for (auto &w : work)
                    w();
                if (stopping)
                    return;
                continue;
            }
            const int fd = int(key & 0xffffffffu);
            const auto it = m_entries.find(fd);
            if (it == m_entries.end() || it->second.generation != (key >> 32))
                continue; // closed (and maybe reused) earlier in this batch
            Handler handler = it->second.handler; // the handler may remove itself
            handler(events[i].events);
        }
    }
}

} // namespace airlock

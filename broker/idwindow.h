#pragma once
// A fixed-size set of the most recent event ids (EventLog::nextId hands them out densely):
// one bit per id over the newest kSpan ids. Setting a newer id slides the window and forgets
// the oldest ones, so the memory never grows whatever a guest makes us record.
#include <QtGlobal>
#include <array>
#include <cstdint>
#include <memory>

namespace airlock {

class IdWindow {
public:
    static constexpr qint64 kSpan = qint64(1) << 20; // ids remembered (128 KiB)

    IdWindow() : m_words(std::make_unique<std::array<quint64, kWords>>()) { m_words->fill(0); }

    void set(qint64 id);
    // Whether `id` was set; an id older than the window answers `older`.
    bool contains(qint64 id, bool older) const;

private:
    static constexpr qint64 kWords = kSpan / 64;
    std::unique_ptr<std::array<quint64, kWords>> m_words;
    qint64 m_highWord = -1; // the newest word index in use (id / 64)
};

} // namespace airlock

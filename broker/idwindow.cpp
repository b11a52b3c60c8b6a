#include "idwindow.h"

#include <algorithm>

namespace airlock {

void IdWindow::set(qint64 id)
{
    if (id < 0)
        return;
    const qint64 word = id / 64;
    if (word <= m_highWord - kWords)
        return; // older than the window
    if (word > m_highWord) {
        // Words that slide in start empty; at most the whole ring is cleared.
        const qint64 from = std::max(m_highWord + 1, word - kWords + 1);
        for (qint64 w = from; w <= word; ++w)
            (*m_words)[size_t(w % kWords)] = 0;
        m_highWord = word;
    }
    (*m_words)[size_t(word % kWords)] |= quint64(1) << (id % 64);
}

bool IdWindow::contains(qint64 id, bool older) const
{
    if (id < 0)
        return false;
    const qint64 word = id / 64;
    if (word > m_highWord)
        return false;
    if (word <= m_highWord - kWords)
        return older;
    return ((*m_words)[size_t(word % kWords)] >> (id % 64)) & 1;
}

} // namespace airlock

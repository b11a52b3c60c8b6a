#include "responsemask.h"

#include "placeholder.h"
#include "securebytes.h"

#include <utility>

namespace airlock {

ResponseMask::~ResponseMask() { clear(); }

void ResponseMask::clear()
{
    for (Needle &n : m_needles)
        cleanse(n.real);
    cleanse(m_pending);
    m_needles.clear();
    m_pending.clear();
    m_hold = 0;
    m_masked.clear();
}

void ResponseMask::add(const QString &secret, QByteArrayView real, QByteArrayView placeholder)
{
    if (real.isEmpty() || real.size() != placeholder.size())
        return; // a placeholder always has its value's length; nothing else could keep framing
    const auto push = [&](QByteArray value, QByteArray ph) {
        for (const Needle &n : std::as_const(m_needles)) {
            if (n.real == value) {
                cleanse(value);
                return;
            }
        }
        m_hold = std::max(m_hold, value.size() - 1);
        m_needles.append({secret, std::move(value), std::move(ph)});
    };
    push(real.toByteArray(), placeholder.toByteArray());
    QList<QByteArray> realForms = base64Forms(real);
    const QList<QByteArray> placeholderForms = base64Forms(placeholder);
    for (qsizetype i = 0; i < realForms.size(); ++i)
        push(std::exchange(realForms[i], {}), placeholderForms.at(i));
}

void ResponseMask::mask()
{
    for (const Needle &n : std::as_const(m_needles)) {
        qsizetype at = m_pending.indexOf(n.real);
        if (at < 0)
            continue;
        if (!m_masked.contains(n.secret))
            m_masked.append(n.secret);
        for (; at >= 0; at = m_pending.indexOf(n.real, at + n.real.size()))
            std::copy(n.placeholder.begin(), n.placeholder.end(), m_pending.begin() + at);
    }
}

QByteArray ResponseMask::feed(QByteArrayView bytes)
{
    if (m_needles.isEmpty())
        return bytes.toByteArray();
    m_pending.append(bytes);
    mask();
    const qsizetype out = std::max<qsizetype>(0, m_pending.size() - m_hold);
    QByteArray ready = m_pending.left(out);
    m_pending.remove(0, out);
    return ready;
}

QByteArray ResponseMask::finish()
{
    mask();
    return std::exchange(m_pending, {});
}

QStringList ResponseMask::takeMasked()
{
    return std::exchange(m_masked, {});
}

} // namespace airlock

#pragma once
// Nothing real comes back: what a bound host answers is searched for the real values it could
// carry back (an upstream that echoes request headers, an error page quoting them), raw and
// in their base64 forms, and each is replaced by its placeholder of the same length (framing
// and Content-Length stay right) before the guest sees it. A value split across reads is
// still found: the mask holds back the last bytes that could begin one until more come.
// Bounded: it holds at most the longest form less one byte beyond what it was just fed.
#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QStringList>

namespace airlock {

class ResponseMask {
public:
    ResponseMask() = default;
    ResponseMask(const ResponseMask &) = delete;
    ResponseMask &operator=(const ResponseMask &) = delete;
    ~ResponseMask(); // cleanses every copy of a real value it made

    // A value to mask as `placeholder` (of the same length), in the name of `secret`.
    void add(const QString &secret, QByteArrayView real, QByteArrayView placeholder);
    bool isEmpty() const { return m_needles.isEmpty(); }
    // Forgets every value (cleansed) and anything held back, e.g. before the values change.
    void clear();

    // The response's next bytes; returns what may go to the guest now, masked.
    QByteArray feed(QByteArrayView bytes);
    // The response ended: what was held back, masked.
    QByteArray finish();
    // The secrets masked since the last call (each once).
    QStringList takeMasked();

private:
    struct Needle {
        QString secret;
        QByteArray real;
        QByteArray placeholder;
    };
    void mask();
    QList<Needle> m_needles;
    QByteArray m_pending;  // fed, masked, not yet given out: the held-back tail
    qsizetype m_hold = 0;  // the longest needle less one
    QStringList m_masked;
};

} // namespace airlock

#pragma once
#include <QByteArray>
#include <cstddef>

namespace airlock {

// Key material and secret values: kept in OpenSSL's secure heap (mlocked, guarded pages)
// when it could be set up, and always cleansed before the memory is given back.
// Move-only, so a copy never lingers somewhere nobody cleans.
class SecureBytes {
public:
    SecureBytes() = default;
    explicit SecureBytes(std::size_t size);
    ~SecureBytes();
    SecureBytes(const SecureBytes &) = delete;
    SecureBytes &operator=(const SecureBytes &) = delete;
    SecureBytes(SecureBytes &&other) noexcept;
    SecureBytes &operator=(SecureBytes &&other) noexcept;

    static SecureBytes random(std::size_t size); // RAND_bytes; empty on failure
    static SecureBytes copyOf(const char *data, std::size_t size);
    static SecureBytes copyOf(const QByteArray &bytes) { return copyOf(bytes.constData(), std::size_t(bytes.size())); }

    unsigned char *data() { return m_data; }
    const unsigned char *data() const { return m_data; }
    const char *chars() const { return reinterpret_cast<const char *>(m_data); }
    std::size_t size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    bool equals(const SecureBytes &other) const;
    void clear();

    // A QByteArray view without a copy: valid while this object lives and is unchanged.
    QByteArray view() const { return QByteArray::fromRawData(chars(), qsizetype(m_size)); }

private:
    unsigned char *m_data = nullptr;
    std::size_t m_size = 0;
};

// Sets up OpenSSL's secure heap once per process (safe to call repeatedly). Returns false
// when the heap could not be locked in memory (e.g. RLIMIT_MEMLOCK); allocations then fall
// back to the ordinary heap but are still cleansed.
bool initSecureHeap();

// Overwrites a QByteArray's bytes (a passphrase or value that passed through Qt) and empties it.
void cleanse(QByteArray &bytes);
void cleanse(QString &text);

} // namespace airlock

#include "securebytes.h"
#include "core/logging.h"

#include <QString>
#include <mutex>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <utility>

namespace airlock {

bool initSecureHeap()
{
    static std::once_flag once;
    static bool locked = false;
    std::call_once(once, [] {
        if (CRYPTO_secure_malloc_initialized()) {
            locked = true;
            return;
        }
        // 4 MiB holds thousands of keys and secret values; the minimum block is 32 bytes.
        locked = CRYPTO_secure_malloc_init(size_t(4) << 20, 32) == 1;
        if (!locked)
            qCWarning(lcVault) << "OpenSSL secure heap unavailable (RLIMIT_MEMLOCK?); key material uses the ordinary "
                                  "heap and is still cleansed after use";
    });
    return locked;
}

SecureBytes::SecureBytes(std::size_t size) : m_size(size)
{
    if (size == 0)
        return;
    initSecureHeap();
    m_data = static_cast<unsigned char *>(OPENSSL_secure_zalloc(size));
    if (!m_data) // secure heap exhausted: OPENSSL_secure_clear_free also frees ordinary blocks
        m_data = static_cast<unsigned char *>(OPENSSL_zalloc(size));
    if (!m_data)
        m_size = 0;
}

SecureBytes::~SecureBytes() { clear(); }

SecureBytes::SecureBytes(SecureBytes &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0))
{
}

SecureBytes &SecureBytes::operator=(SecureBytes &&other) noexcept
{
    if (this != &other) {
        clear();
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

void SecureBytes::clear()
{
    if (m_data)
        OPENSSL_secure_clear_free(m_data, m_size);
    m_data = nullptr;
    m_size = 0;
}

SecureBytes SecureBytes::random(std::size_t size)
{
    SecureBytes out(size);
    if (out.size() != size || RAND_priv_bytes(out.data(), int(size)) != 1)
        return {};
    return out;
}

SecureBytes SecureBytes::copyOf(const char *data, std::size_t size)
{
    SecureBytes out(size);
    if (size)
        memcpy(out.data(), data, size);
    return out;
}

bool SecureBytes::equals(const SecureBytes &other) const
{
    return m_size == other.m_size && (m_size == 0 || CRYPTO_memcmp(m_data, other.m_data, m_size) == 0);
}

void cleanse(QByteArray &bytes)
{
    // Only a buffer we own alone is overwritten: detaching would just cleanse a fresh copy.
    if (!bytes.isEmpty() && bytes.isDetached())
        OPENSSL_cleanse(bytes.data(), size_t(bytes.size()));
    bytes.clear();
}

void cleanse(QString &text)
{
    if (!text.isEmpty() && text.isDetached())
        OPENSSL_cleanse(text.data(), size_t(text.size()) * sizeof(QChar));
    text.clear();
}

} // namespace airlock

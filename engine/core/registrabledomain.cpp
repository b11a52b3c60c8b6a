#include "registrabledomain.h"
#include "hostname.h"

#include <arpa/inet.h>
#include <libpsl.h>

namespace airlock {

namespace {

// The newest list on the system (Debian's publicsuffix package, refreshed with it), else the
// one built into libpsl. Loaded once; a psl_ctx_t is read-only afterwards, so any thread may use it.
const psl_ctx_t *suffixList()
{
    static const psl_ctx_t *ctx = [] {
        const psl_ctx_t *latest = psl_latest(nullptr);
        return latest ? latest : psl_builtin();
    }();
    return ctx;
}

} // namespace

QStringList domainRulePatterns(const QString &input)
{
    const QString host = normalizeHost(input);
    const QByteArray utf8 = host.toUtf8();
    unsigned char address[16];
    const bool literal = ::inet_pton(AF_INET, utf8.constData(), address) == 1 || ::inet_pton(AF_INET6, utf8.constData(), address) == 1;
    if (host.isEmpty() || !host.contains(u'.') || literal)
        return {};
    const psl_ctx_t *psl = suffixList();
    const char *registrable = psl ? psl_registrable_domain(psl, utf8.constData()) : nullptr;
    if (!registrable)
        return {host}; // a public suffix itself (or no list at all): only the host, exactly
    const QString domain = QString::fromUtf8(registrable);
    if (domain == host)
        return {host, QStringLiteral("*.") + host};
    return {QStringLiteral("*.") + domain};
}

} // namespace airlock

// libFuzzer target: a sign-in's token answers (upstream bytes the guest must get without a
// real token) and the token requests a guest sends back (tokenexchange.h). The first byte
// picks the direction and the body kind; the rest is the body.
#include "core/loginspec.h"
#include "tokenexchange.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

static const LoginSpec &spec()
{
    static const LoginSpec s = *LoginSpec::fromJson(QStringLiteral("cli"), QJsonDocument::fromJson(R"({
        "token_urls": ["https://auth.example/oauth/token"], "expires_in": "expires_in",
        "tokens": [{"field": "id_token", "name": "id", "jwt": true, "sent_in": ["subject_token"]},
                   {"field": "access_token", "name": "access", "hosts": ["api.example"], "header": "Authorization: Bearer {}"},
                   {"field": "refresh_token", "name": "refresh", "sent_in": ["refresh_token"]},
                   {"field": "access_token", "grant": "token-exchange", "name": "key", "hosts": ["api.example"],
                    "header": "Authorization: Bearer {}"}]})").object(), QStringLiteral("fuzz"));
    return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const QByteArrayView body(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    const int mode = data[0] % 4;
    if (mode < 2) {
        // An answer: what comes out holds no captured value, and framing stays (same lengths).
        const tokenexchange::Capture c = tokenexchange::capture(spec(), mode ? QStringLiteral("token-exchange") : QString(), body,
                                                                QDateTime::currentDateTimeUtc(),
                                                                [](const LoginToken &, QByteArrayView real) { return QByteArray(real.size(), '#'); });
        if (!c.error.isEmpty()) {
            check(c.body.isEmpty() && c.tokens.isEmpty());
            return 0;
        }
        check(c.body.size() == body.size());
        for (const tokenexchange::CapturedToken &t : c.tokens) {
            check(body.contains(t.real) && !c.body.contains(t.real));
            check(t.placeholder.size() == t.real.size());
        }
        return 0;
    }
    // A request: a swap puts the real value in; no swap leaves the body as it came.
    const QByteArray placeholder(24, 'P');
    const QByteArray real = "REAL+value/with=chars0123";
    const tokenexchange::BodyKind kind = mode == 2 ? tokenexchange::BodyKind::Json : tokenexchange::BodyKind::Form;
    const tokenexchange::Swapped s = tokenexchange::swapSent(body, kind, {{QStringLiteral("cli.refresh"), placeholder, real,
                                                                           {QStringLiteral("refresh_token")}}});
    if (s.secrets.isEmpty())
        check(s.body == body);
    else
        check(!s.body.contains(placeholder) && s.body.contains(kind == tokenexchange::BodyKind::Form ? QUrl::toPercentEncoding(QString::fromLatin1(real)) : real));
    (void)tokenexchange::grantType(body, kind);
    return 0;
}

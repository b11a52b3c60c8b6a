#include "logincapture.h"
#include "securebytes.h"
#include "vault.h"

#include <QDateTime>

namespace airlock {

LoginCapture::LoginCapture(Vault &vault, QString sandbox, QString host)
    : m_vault(vault), m_sandbox(std::move(sandbox)), m_host(std::move(host))
{
    for (const LoginSpec &spec : m_vault.logins(m_sandbox)) {
        for (const LoginUrl &u : spec.tokenUrls) {
            if (u.host == m_host) {
                m_logins.append(spec);
                break;
            }
        }
    }
}

bool LoginCapture::begin(QByteArrayView target)
{
    m_current = -1;
    m_grant.clear();
    const qsizetype query = target.indexOf('?');
    const QString path = QString::fromLatin1(query < 0 ? target : target.first(query));
    for (int i = 0; i < m_logins.size(); ++i) {
        if (m_logins[i].isTokenUrl(m_host, path)) {
            m_current = i;
            return true;
        }
    }
    return false;
}

tokenexchange::Swapped LoginCapture::swapRequest(QByteArrayView body, QByteArrayView contentType, const std::vector<LentSecret> &secrets)
{
    if (!active())
        return {body.toByteArray(), {}};
    const LoginSpec &spec = m_logins[m_current];
    const tokenexchange::BodyKind kind = tokenexchange::kindOf(contentType);
    m_grant = tokenexchange::grantType(body, kind);
    QList<tokenexchange::SentToken> sendable;
    for (const LoginToken &t : spec.tokens) {
        if (t.sentIn.isEmpty())
            continue;
        for (const LentSecret &s : secrets)
            if (s.name == spec.secretName(t))
                sendable.append({s.name, s.placeholder, s.value->view(), t.sentIn});
    }
    return tokenexchange::swapSent(body, kind, sendable);
}

LoginCapture::Answer LoginCapture::captureAnswer(QByteArrayView body)
{
    Answer out;
    const LoginSpec &spec = m_logins[m_current];
    const QDateTime now = QDateTime::currentDateTimeUtc();
    tokenexchange::Capture c = tokenexchange::capture(spec, m_grant, body, now, [&](const LoginToken &t, QByteArrayView real) {
        return m_vault.loginPlaceholder(m_sandbox, spec.secretName(t), int(real.size()));
    });
    if (!c.error.isEmpty()) {
        out.error = c.error;
        return out;
    }
    if (c.tokens.isEmpty()) { // an error answer, or one without tokens: nothing to keep
        out.body = std::move(c.body);
        return out;
    }
    QList<LoginTokenValue> values;
    for (const tokenexchange::CapturedToken &t : std::as_const(c.tokens)) {
        values.append({t.token, t.real, t.placeholder, t.expires.isValid() ? t.expires.toString(Qt::ISODate) : QString()});
        out.stored << spec.secretName(*t.token);
    }
    if (Status s = m_vault.storeLoginTokens(m_sandbox, spec, values); !s) {
        out.error = QStringLiteral("the sign-in's tokens could not be kept in the vault: %1").arg(s.error().message());
        out.stored.clear();
    } else {
        out.body = std::move(c.body);
    }
    for (tokenexchange::CapturedToken &t : c.tokens)
        cleanse(t.real); // the vault holds them sealed now
    return out;
}

} // namespace airlock

#pragma once
// The interceptor's part in sign-ins, for one connection: which requests go to a token URL
// of the sandbox's logins, the swap of placeholders sent back there, and the capture of the
// tokens in the answer into the vault (tokenexchange.h does the byte work). The interceptor
// keeps the HTTP framing; this keeps what a login means.
#include "core/loginspec.h"
#include "tokenexchange.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

namespace airlock {

class Vault;
struct LentSecret;

class LoginCapture {
public:
    LoginCapture(Vault &vault, QString sandbox, QString host);

    bool isEmpty() const { return m_logins.isEmpty(); }
    // Starts a request: is it to a token URL (the path, without its query; any method)? Until
    // the next begin(), the answer belongs to that login.
    bool begin(QByteArrayView target); // any method: an issuer that answers tokens to PUT must not hand over real ones
    bool active() const { return m_current >= 0; }

    // The request body (read whole) with the placeholders of tokens sent back where the
    // login allows; also notes the grant, which decides what the answer's fields are.
    tokenexchange::Swapped swapRequest(QByteArrayView body, QByteArrayView contentType, const std::vector<LentSecret> &secrets);

    struct Answer {
        QByteArray body;     // for the guest
        QStringList stored;  // the vault secrets written
        QString error;       // non-empty: nothing of the answer may reach the guest
    };
    // The answer's body (whole, decoded): its tokens go to the vault, the guest gets placeholders.
    Answer captureAnswer(QByteArrayView body);

private:
    Vault &m_vault;
    QString m_sandbox;
    QString m_host;
    QList<LoginSpec> m_logins; // those with a token URL on m_host
    int m_current = -1;
    QString m_grant;
};

} // namespace airlock

#pragma once
// How git in the guest finds a lent token without it ever being there: a credential helper,
// set through git's GIT_CONFIG_COUNT environment, that answers for the secret's hosts with the
// placeholder as the password. git sends it as Basic credentials, and the interceptor swaps
// the placeholder inside them (basicauth.h) on those hosts only.
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace airlock {

// A secret lent with the template `Authorization: Basic {}`: the variable that holds its
// placeholder in the guest and the host patterns it is bound to.
struct GitCredentialLoan {
    QString envVar;
    QStringList hosts;
};

// The user name git sends with the token; forges check the token, not the name.
inline constexpr char kGitTokenUser[] = "x-access-token";

// GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0 and GIT_CONFIG_VALUE_0: a credential.helper answering
// `get` for a URL whose host (without its port) matches one of a loan's host patterns with
// that loan's placeholder. Empty without loans. A variable name or host pattern that is not
// plain (letters, digits, '.', '-', '*', '_') is left out rather than put into a shell line.
QMap<QString, QString> gitCredentialEnvironment(const QList<GitCredentialLoan> &loans);

} // namespace airlock

#include "guesttrust.h"

#include <QFile>

namespace airlock {

Result<QByteArray> guestTrustBundle(const QByteArray &sandboxCaPem, const QString &systemBundle)
{
    if (!sandboxCaPem.startsWith("-----BEGIN CERTIFICATE-----"))
        return Error{QStringLiteral("cannot build the guest's trust bundle"), QStringLiteral("the sandbox CA is not a PEM certificate")};
    QFile roots(systemBundle);
    if (!roots.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot read the system roots %1").arg(systemBundle),
                     QStringLiteral("install the ca-certificates package")};
    QByteArray bundle = sandboxCaPem;
    if (!bundle.endsWith('\n'))
        bundle += '\n';
    return QByteArray(bundle + roots.readAll());
}

QMap<QString, QString> trustEnvironment(const QString &bundlePathInGuest)
{
    QMap<QString, QString> env;
    for (const char *name : {"SSL_CERT_FILE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                             "GIT_SSL_CAINFO", "AWS_CA_BUNDLE", "DENO_CERT"})
        env.insert(QString::fromLatin1(name), bundlePathInGuest);
    return env;
}

} // namespace airlock

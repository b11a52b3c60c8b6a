#pragma once
#include "core/result.h"

#include <QByteArray>
#include <QString>
#include <openssl/types.h>

// Small helpers shared by the sandbox CA and the leaf minter (OpenSSL's X509 builder API).
namespace airlock::x509util {

EVP_PKEY *generateP256();
// Fresh certificate: random positive 128-bit serial, notBefore backdated by `backdateSeconds`.
X509 *newCertificate(const QString &commonName, long backdateSeconds, long validSeconds);
// Adds one extension in openssl.cnf syntax ("critical,CA:TRUE"); issuer may be the cert itself.
bool addExtension(X509 *cert, X509 *issuer, int nid, const QByteArray &value);
QByteArray toPem(X509 *cert);
QString lastError(); // OpenSSL's error queue, drained

} // namespace airlock::x509util

#pragma once
// What a sandbox that borrows secrets needs in its guest so every client accepts the
// intercepting proxy's leaves (many clients ignore the system store, so trustEnvironment names each one's variable).
#include "core/result.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace airlock {

// The sandbox CA first, then the host's system roots (so every other site still verifies).
Result<QByteArray> guestTrustBundle(const QByteArray &sandboxCaPem,
                                    const QString &systemBundle = QStringLiteral("/etc/ssl/certs/ca-certificates.crt"));

// Environment variables pointing OpenSSL, curl, Node/Bun, Python requests and git at the
// bundle installed at `bundlePathInGuest`.
QMap<QString, QString> trustEnvironment(const QString &bundlePathInGuest);

} // namespace airlock

#include "keyringslot.h"

#include <QEventLoop>
#include <QProcessEnvironment>
#include <QTimer>
#include <qt6keychain/keychain.h>

namespace airlock::keyring {

namespace {

// QtKeychain on Linux needs a D-Bus session with a Secret Service; without a session bus
// it may wait for a timeout, so say so at once.
Status available()
{
    const auto env = QProcessEnvironment::systemEnvironment();
    if (env.value(QStringLiteral("DBUS_SESSION_BUS_ADDRESS")).isEmpty())
        return Error{QStringLiteral("no OS keyring is available"),
                     QStringLiteral("there is no D-Bus session (no desktop login with a Secret Service such as "
                                    "GNOME Keyring or KWallet); unlock with the passphrase instead"),
                     ErrorKind::Unavailable};
    return ok();
}

Status runJob(QKeychain::Job &job, const char *action)
{
    job.setAutoDelete(false);
    job.setInsecureFallback(false); // never a plaintext settings file
    QEventLoop loop;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    job.start();
    loop.exec();
    if (job.error() == QKeychain::NoError)
        return ok();
    return Error{QStringLiteral("the OS keyring could not %1 the vault's key").arg(QLatin1String(action)),
                 job.errorString() + QStringLiteral("; unlock with the passphrase instead"), ErrorKind::Unavailable};
}

} // namespace

Status store(const QString &account, const SecureBytes &key)
{
    if (Status s = available(); !s)
        return s;
    QKeychain::WritePasswordJob job(QString::fromLatin1(kService));
    job.setKey(account);
    job.setBinaryData(key.view());
    return runJob(job, "store");
}

Result<SecureBytes> load(const QString &account)
{
    if (Status s = available(); !s)
        return s.error();
    QKeychain::ReadPasswordJob job(QString::fromLatin1(kService));
    job.setKey(account);
    if (Status s = runJob(job, "read"); !s)
        return s.error();
    QByteArray data = job.binaryData();
    SecureBytes key = SecureBytes::copyOf(data);
    cleanse(data);
    return key;
}

Status remove(const QString &account)
{
    if (Status s = available(); !s)
        return s;
    QKeychain::DeletePasswordJob job(QString::fromLatin1(kService));
    job.setKey(account);
    return runJob(job, "remove");
}

} // namespace airlock::keyring

// vault init|unlock|lock|status|change-passphrase|keyring.
#include "ctl/command.h"
#include "ctl/secretinput.h"
#include "protocol/names.h"
#include "protocol/vault.h"

#include <QJsonObject>
#include <cstdio>
#include <openssl/crypto.h>

namespace airlock::ctl {

namespace {

void wipe(QByteArray &bytes)
{
    if (!bytes.isEmpty())
        OPENSSL_cleanse(bytes.data(), size_t(bytes.size()));
    bytes.clear();
}

// Every vault.* method answers with the vault's state.
int callForState(Context &ctx, const QString &method, const QJsonObject &params = {})
{
    return ctx.show<proto::VaultStatus>(method, params, [](const proto::VaultStatus &s) {
        std::printf("vault: %s\n", qPrintable(proto::toString(s.vault)));
    });
}

int callWithPassphrase(Context &ctx, const QString &method, QByteArray &passphrase)
{
    QString text = QString::fromUtf8(passphrase);
    wipe(passphrase);
    return callForState(ctx, method, proto::VaultUnlockParams{text, false}.toJson());
}

int init(Context &ctx, const Args &)
{
    QByteArray passphrase, repeat;
    if (!readSecretLine(QStringLiteral("New vault passphrase: "), &passphrase) || passphrase.isEmpty())
        return ctx.fail(QStringLiteral("no passphrase on standard input; type it, or pipe it in (one line)"));
    if (::isatty(0)) {
        readSecretLine(QStringLiteral("Repeat it: "), &repeat);
        if (repeat != passphrase) {
            wipe(passphrase);
            wipe(repeat);
            return ctx.fail(QStringLiteral("the two passphrases differ; nothing was created"));
        }
        wipe(repeat);
    }
    return callWithPassphrase(ctx, proto::method::VaultInit, passphrase);
}

int unlock(Context &ctx, const Args &args)
{
    if (args.has(QStringLiteral("--keyring"))) {
        return callForState(ctx, proto::method::VaultUnlock, proto::VaultUnlockParams{std::nullopt, true}.toJson());
    }
    QByteArray passphrase;
    if (!readSecretLine(QStringLiteral("Vault passphrase: "), &passphrase) || passphrase.isEmpty())
        return ctx.fail(QStringLiteral("no passphrase on standard input; type it, or pipe it in (one line)"));
    return callWithPassphrase(ctx, proto::method::VaultUnlock, passphrase);
}

int changePassphrase(Context &ctx, const Args &)
{
    QByteArray oldPass, newPass, repeat;
    if (!readSecretLine(QStringLiteral("Current passphrase: "), &oldPass) || oldPass.isEmpty() ||
        !readSecretLine(QStringLiteral("New passphrase: "), &newPass) || newPass.isEmpty())
        return ctx.fail(QStringLiteral("give the current and the new passphrase on standard input, one per line"));
    if (::isatty(0)) {
        readSecretLine(QStringLiteral("Repeat the new one: "), &repeat);
        if (repeat != newPass)
            return ctx.fail(QStringLiteral("the two new passphrases differ; nothing was changed"));
    }
    QString oldText = QString::fromUtf8(oldPass), newText = QString::fromUtf8(newPass);
    wipe(oldPass);
    wipe(newPass);
    wipe(repeat);
    return callForState(ctx, proto::method::VaultChangePassphrase, proto::VaultChangePassphraseParams{oldText, newText}.toJson());
}

} // namespace

void registerVaultCommands(Registry &registry)
{
    registry.add({QStringLiteral("vault init"), {}, QStringLiteral("create the vault; passphrase read from stdin"),
                  {}, {}, 0, 0, true, init});
    registry.add({QStringLiteral("vault unlock"), QStringLiteral("[--keyring]"),
                  QStringLiteral("unlock the vault; passphrase read from stdin, or the key from the OS keyring"),
                  {}, {QStringLiteral("--keyring")}, 0, 0, true, unlock});
    registry.add({QStringLiteral("vault keyring"), QStringLiteral("on|off"),
                  QStringLiteral("keep a key to the vault in the OS keyring (GNOME Keyring, KWallet), or remove it"),
                  {}, {}, 1, 1, true, [](Context &ctx, const Args &args) {
                      const QString mode = args.positional.value(0);
                      if (mode != QLatin1String("on") && mode != QLatin1String("off"))
                          return ctx.fail(QStringLiteral("vault keyring takes on or off, not \"%1\"").arg(mode), kUsage);
                      return callForState(ctx, proto::method::VaultKeyring,
                                          proto::VaultKeyringParams{mode == QLatin1String("on")}.toJson());
                  }});
    registry.add({QStringLiteral("vault lock"), {}, QStringLiteral("forget the vault key until the next unlock"),
                  {}, {}, 0, 0, true, [](Context &ctx, const Args &) { return callForState(ctx, proto::method::VaultLock); }});
    registry.add({QStringLiteral("vault status"), {}, QStringLiteral("uninitialised, locked or unlocked"),
                  {}, {}, 0, 0, true, [](Context &ctx, const Args &) { return callForState(ctx, proto::method::VaultStatus); }});
    registry.add({QStringLiteral("vault change-passphrase"), {},
                  QStringLiteral("rewrap the vault key; current then new passphrase from stdin"),
                  {}, {}, 0, 0, true, changePassphrase});
}

} // namespace airlock::ctl

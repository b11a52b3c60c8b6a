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

// The passphrase for init (asked twice on a terminal) or unlock; 0, or the exit code of a failure.
int readPassphrase(Context &ctx, bool isNew, QByteArray *passphrase)
{
    if (!readSecretLine(isNew ? QStringLiteral("New vault passphrase: ") : QStringLiteral("Vault passphrase: "), passphrase) ||
        passphrase->isEmpty())
        return ctx.fail(QStringLiteral("no passphrase on standard input; type it, or pipe it in (one line)"));
    if (isNew && ::isatty(0)) {
        QByteArray repeat;
        readSecretLine(QStringLiteral("Repeat it: "), &repeat);
        const bool same = repeat == *passphrase;
        wipe(repeat);
        if (!same) {
            wipe(*passphrase);
            return ctx.fail(QStringLiteral("the two passphrases differ; nothing was created"));
        }
    }
    return 0;
}

int init(Context &ctx, const Args &)
{
    QByteArray passphrase;
    if (const int failed = readPassphrase(ctx, true, &passphrase))
        return failed;
    return callWithPassphrase(ctx, proto::method::VaultInit, passphrase);
}

int unlock(Context &ctx, const Args &args)
{
    if (args.has(QStringLiteral("--keyring"))) {
        return callForState(ctx, proto::method::VaultUnlock, proto::VaultUnlockParams{std::nullopt, true}.toJson());
    }
    QByteArray passphrase;
    if (const int failed = readPassphrase(ctx, false, &passphrase))
        return failed;
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

bool ensureVaultUnlocked(Context &ctx)
{
    const std::optional<proto::VaultStatus> status = ctx.callFor<proto::VaultStatus>(proto::method::VaultStatus);
    if (!status)
        return false;
    if (status->vault == VaultState::Unlocked)
        return true;
    const bool isNew = status->vault == VaultState::Uninitialised;
    if (!::isatty(0)) {
        ctx.fail(QStringLiteral("the vault is %1; %2 it first (airlockctl vault %2)").arg(proto::toString(status->vault),
                                                                                           isNew ? QStringLiteral("init") : QStringLiteral("unlock")));
        return false;
    }
    std::fprintf(stderr, "the vault is %s: %s\n", qPrintable(proto::toString(status->vault)),
                 isNew ? "choose a passphrase to create it" : "unlock it");
    QByteArray passphrase;
    if (readPassphrase(ctx, isNew, &passphrase) != 0)
        return false;
    QString text = QString::fromUtf8(passphrase);
    wipe(passphrase);
    return ctx.callFor<proto::VaultStatus>(isNew ? proto::method::VaultInit : proto::method::VaultUnlock,
                                           proto::VaultUnlockParams{text, false}.toJson())
        .has_value();
}

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

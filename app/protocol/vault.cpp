#include "protocol/vault.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject VaultStatus::toJson() const { return {{QStringLiteral("vault"), toString(vault)}, {QStringLiteral("keyring"), keyring}}; }

Result<VaultStatus> VaultStatus::fromJson(const QJsonObject &object)
{
    Fields f(object, "vault state");
    VaultStatus s{f.vaultState("vault"), f.boolean("keyring")};
    return f.done(s);
}

QJsonObject VaultUnlockParams::toJson() const
{
    QJsonObject o;
    if (passphrase)
        o.insert(QStringLiteral("passphrase"), *passphrase);
    if (keyring)
        o.insert(QStringLiteral("keyring"), true);
    return o;
}

Result<VaultUnlockParams> VaultUnlockParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "vault.unlock params");
    VaultUnlockParams p{f.optString("passphrase"), f.boolean("keyring", false)};
    return f.done(p);
}

QJsonObject VaultChangePassphraseParams::toJson() const { return {{QStringLiteral("old"), oldPassphrase}, {QStringLiteral("new"), newPassphrase}}; }

Result<VaultChangePassphraseParams> VaultChangePassphraseParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "vault.change_passphrase params");
    VaultChangePassphraseParams p{f.string("old"), f.string("new")};
    return f.done(p);
}

QJsonObject VaultKeyringParams::toJson() const { return {{QStringLiteral("enable"), enable}}; }

Result<VaultKeyringParams> VaultKeyringParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "vault.keyring params");
    VaultKeyringParams p{f.boolean("enable")};
    return f.done(p);
}

QJsonObject SecretInfo::toJson() const
{
    return {{QStringLiteral("name"), name},
            {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)},
            {QStringLiteral("header"), header},
            {QStringLiteral("used_by"), QJsonArray::fromStringList(usedBy)}};
}

Result<SecretInfo> SecretInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "secret");
    SecretInfo s{f.string("name"), f.strings("hosts"), f.string("header"), f.strings("used_by")};
    return f.done(s);
}

QJsonObject SecretSetParams::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("value"), value},
            {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)}, {QStringLiteral("header"), header}};
}

Result<SecretSetParams> SecretSetParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "secret.set params");
    SecretSetParams p{f.string("name"), f.string("value"), f.strings("hosts", {}), f.string("header", QString())};
    return f.done(p);
}

} // namespace airlock::proto

#include "protocol/enums.h"
#include "protocol/jsonfields.h"

#include <QStringList>
#include <array>
#include <utility>

namespace airlock::proto {

namespace {

template <typename E, std::size_t N>
QString nameOf(const std::array<std::pair<E, const char *>, N> &names, E value)
{
    for (const auto &[e, text] : names)
        if (e == value)
            return QString::fromLatin1(text);
    return {};
}

template <typename E, std::size_t N>
Result<E> valueOf(const std::array<std::pair<E, const char *>, N> &names, const QString &text, const QString &field)
{
    QStringList known;
    for (const auto &[e, name] : names) {
        if (text == QLatin1String(name))
            return e;
        known << QString::fromLatin1(name);
    }
    return invalidField(field, QStringLiteral("is \"%1\"; it must be one of %2").arg(text.left(64), known.join(QStringLiteral(", "))));
}

constexpr std::array<std::pair<SandboxState, const char *>, 9> kSandboxStates{{
    {SandboxState::Running, "running"},
    {SandboxState::Paused, "paused"},
    {SandboxState::Stopping, "stopping"},
    {SandboxState::Stopped, "stopped"},
    {SandboxState::Crashed, "crashed"},
    {SandboxState::Suspended, "suspended"},
    {SandboxState::Missing, "missing"},
    {SandboxState::Unknown, "unknown"},
    {SandboxState::Removed, "removed"},
}};

constexpr std::array<std::pair<PolicyFileFormat, const char *>, 2> kPolicyFileFormats{{
    {PolicyFileFormat::Json, "json"},
    {PolicyFileFormat::Yaml, "yaml"},
}};

} // namespace

QString toString(SandboxState state) { return nameOf(kSandboxStates, state); }
Result<SandboxState> sandboxStateFromString(const QString &text, const QString &field) { return valueOf(kSandboxStates, text, field); }
QString toString(PolicyFileFormat format) { return nameOf(kPolicyFileFormats, format); }
Result<PolicyFileFormat> policyFileFormatFromString(const QString &text, const QString &field)
{
    return valueOf(kPolicyFileFormats, text, field);
}
QString toString(Decision decision) { return decisionName(decision); }

Result<Decision> decisionFromString(const QString &text, const QString &field)
{
    if (const std::optional<Decision> d = decisionFromName(text))
        return *d;
    return invalidField(field, QStringLiteral("is \"%1\"; it must be one of %2").arg(text.left(64), decisionNames().join(QStringLiteral(", "))));
}
QString toString(VaultState state) { return vaultStateName(state); }

Result<VaultState> vaultStateFromString(const QString &text, const QString &field)
{
    QStringList known;
    for (VaultState v : {VaultState::Uninitialised, VaultState::Locked, VaultState::Unlocked}) {
        if (text == vaultStateName(v))
            return v;
        known << vaultStateName(v);
    }
    return invalidField(field, QStringLiteral("is \"%1\"; it must be one of %2").arg(text.left(64), known.join(QStringLiteral(", "))));
}

} // namespace airlock::proto

#include "core/decision.h"

#include <array>
#include <utility>

namespace airlock {

namespace {

constexpr std::array<std::pair<Decision, const char *>, 4> kNames{{
    {Decision::Allowed, "allowed"},
    {Decision::Denied, "denied"},
    {Decision::Pending, "pending"},
    {Decision::Dropped, "dropped"},
}};

} // namespace

QString decisionName(Decision decision)
{
    for (const auto &[d, name] : kNames)
        if (d == decision)
            return QString::fromLatin1(name);
    return {};
}

std::optional<Decision> decisionFromName(QStringView name)
{
    for (const auto &[d, text] : kNames)
        if (name == QLatin1String(text))
            return d;
    return std::nullopt;
}

QStringList decisionNames()
{
    QStringList out;
    for (const auto &entry : kNames)
        out << QString::fromLatin1(entry.second);
    return out;
}

} // namespace airlock

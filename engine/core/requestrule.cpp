#include "requestrule.h"

#include <QStringList>

namespace airlock {

QString RequestRule::text() const
{
    if (!git.isEmpty())
        return QStringLiteral("git %1%2").arg(git, repo.isEmpty() ? QString() : QStringLiteral(" ") + repo);
    QStringList parts;
    if (!method.isEmpty())
        parts << method;
    if (!path.isEmpty())
        parts << path;
    return parts.join(QLatin1Char(' '));
}

} // namespace airlock

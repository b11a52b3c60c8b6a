#include "gitcredentials.h"

#include <QRegularExpression>

namespace airlock {

QMap<QString, QString> gitCredentialEnvironment(const QList<GitCredentialLoan> &loans)
{
    static const QRegularExpression plainVar(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    static const QRegularExpression plainHost(QStringLiteral("^[A-Za-z0-9*._-]+$"));
    // One helper for every loan, kept short: it travels on the guest's kernel command line.
    // git runs it through `sh -c` for `git credential fill` with the request's key=value
    // lines on stdin; a URL's host carries its port, which the match leaves out.
    QString cases;
    for (const GitCredentialLoan &loan : loans) {
        if (!plainVar.match(loan.envVar).hasMatch())
            continue;
        QStringList hosts;
        for (const QString &h : loan.hosts)
            if (plainHost.match(h).hasMatch())
                hosts << h;
        if (!hosts.isEmpty())
            cases += QStringLiteral("%1)p=$%2;;").arg(hosts.join(QLatin1Char('|')), loan.envVar);
    }
    if (cases.isEmpty())
        return {};
    const QString helper = QStringLiteral("!f(){ test $1 = get||exit 0;while IFS== read -r k v;do test \"$k\" = host&&h=${v%%:*};done;"
                                          "case $h in %1*)exit 0;;esac;printf 'username=%2\\npassword=%s\\n' \"$p\";};f")
                               .arg(cases, QLatin1String(kGitTokenUser));
    return {{QStringLiteral("GIT_CONFIG_COUNT"), QStringLiteral("1")},
            {QStringLiteral("GIT_CONFIG_KEY_0"), QStringLiteral("credential.helper")},
            {QStringLiteral("GIT_CONFIG_VALUE_0"), helper}};
}

} // namespace airlock

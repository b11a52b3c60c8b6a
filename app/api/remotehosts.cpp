#include "api/remotehosts.h"

#include <QSettings>
#include <QStandardPaths>

namespace airlock {

namespace {
const QString kGroup = QStringLiteral("remote-hosts");
const QString kCurrent = QStringLiteral("current");
}

RemoteHosts::RemoteHosts(QObject *parent) : QObject(parent)
{
    load();
}

QString RemoteHosts::filePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/airlock/remotes.conf");
}

const RemoteHosts::Host *RemoteHosts::find(const QString &name) const
{
    for (const Host &h : m_hosts)
        if (h.name == name)
            return &h;
    return nullptr;
}

QString RemoteHosts::add(const QString &name, const QStringList &command)
{
    load();
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return tr("Give the host a name, e.g. the machine's name.");
    if (trimmed == localName() || trimmed == tr("This computer"))
        return tr("\"%1\" always means this computer: choose another name.").arg(trimmed);
    if (find(trimmed))
        return tr("There is already a host called %1: choose another name, or remove that one first.").arg(trimmed);
    if (command.isEmpty() || command.first().isEmpty())
        return tr("Give the command that reaches airlockd there, e.g. ssh devbox airlockctl proxy.");
    m_hosts.append({trimmed, command});
    save();
    Q_EMIT changed();
    return {};
}

QString RemoteHosts::remove(const QString &name)
{
    load();
    if (m_hosts.removeIf([&](const Host &h) { return h.name == name; }) == 0)
        return tr("There is no remote host called %1; `airlockctl remote ls` lists them.").arg(name);
    if (m_current == name)
        m_current.clear();
    save();
    Q_EMIT changed();
    return {};
}

QString RemoteHosts::setCurrent(const QString &name)
{
    load();
    const QString target = name == localName() ? QString() : name;
    if (!target.isEmpty() && !find(target))
        return tr("There is no remote host called %1; add it with `airlockctl remote add %1 'ssh HOST airlockctl proxy'`.").arg(name);
    m_current = target;
    save();
    Q_EMIT changed();
    return {};
}

QString RemoteHosts::chosen(const std::optional<QString> &flag, bool socketGiven) const
{
    QString name;
    if (flag)
        name = *flag;
    else if (!socketGiven && qEnvironmentVariableIsSet("AIRLOCK_REMOTE"))
        name = qEnvironmentVariable("AIRLOCK_REMOTE");
    else if (!socketGiven && !qEnvironmentVariableIsSet("AIRLOCK_SOCKET"))
        name = current();
    return name == localName() ? QString() : name;
}

QStringList RemoteHosts::sshCommand(const QString &destination)
{
    return {QStringLiteral("ssh"), destination, QStringLiteral("airlockctl"), QStringLiteral("proxy")};
}

void RemoteHosts::load()
{
    QSettings settings(filePath(), QSettings::IniFormat);
    QSettings legacy; // where the desktop app kept its hosts before they were shared
    if (!settings.contains(kGroup + QStringLiteral("/size")) && legacy.contains(kGroup + QStringLiteral("/size"))) {
        const int n = legacy.beginReadArray(kGroup);
        settings.beginWriteArray(kGroup, n);
        for (int i = 0; i < n; ++i) {
            legacy.setArrayIndex(i);
            settings.setArrayIndex(i);
            for (const QString &key : {QStringLiteral("name"), QStringLiteral("command")})
                settings.setValue(key, legacy.value(key));
        }
        settings.endArray();
        legacy.endArray();
        legacy.remove(kGroup);
    }
    m_hosts.clear();
    const int n = settings.beginReadArray(kGroup);
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        const Host h{settings.value(QStringLiteral("name")).toString(), settings.value(QStringLiteral("command")).toStringList()};
        if (!h.name.isEmpty() && !h.command.isEmpty())
            m_hosts.append(h);
    }
    settings.endArray();
    m_current = settings.value(kCurrent).toString();
    if (!m_current.isEmpty() && !find(m_current))
        m_current.clear(); // a name removed by hand from the file: back to this machine
}

void RemoteHosts::save() const
{
    QSettings settings(filePath(), QSettings::IniFormat);
    settings.remove(kGroup);
    settings.beginWriteArray(kGroup, int(m_hosts.size()));
    for (int i = 0; i < m_hosts.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("name"), m_hosts[i].name);
        settings.setValue(QStringLiteral("command"), m_hosts[i].command);
    }
    settings.endArray();
    if (m_current.isEmpty())
        settings.remove(kCurrent);
    else
        settings.setValue(kCurrent, m_current);
}

} // namespace airlock

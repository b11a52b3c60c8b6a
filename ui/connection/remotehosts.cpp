#include "connection/remotehosts.h"

#include <QSettings>

namespace airlock::ui {

namespace {
const QString kGroup = QStringLiteral("remote-hosts");
}

RemoteHosts::RemoteHosts(QObject *parent) : QObject(parent)
{
    load();
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
    if (name.trimmed().isEmpty())
        return tr("Give the host a name, e.g. the machine's name.");
    if (name == tr("This computer") || find(name))
        return tr("There is already a host called %1: choose another name.").arg(name);
    if (command.isEmpty() || command.first().isEmpty())
        return tr("Give the command that reaches airlockd there, e.g. ssh devbox airlockctl proxy.");
    m_hosts.append({name.trimmed(), command});
    save();
    Q_EMIT changed();
    return {};
}

void RemoteHosts::remove(const QString &name)
{
    const auto removed = m_hosts.removeIf([&](const Host &h) { return h.name == name; });
    if (removed == 0)
        return;
    save();
    Q_EMIT changed();
}

QStringList RemoteHosts::sshCommand(const QString &destination)
{
    return {QStringLiteral("ssh"), destination, QStringLiteral("airlockctl"), QStringLiteral("proxy")};
}

void RemoteHosts::load()
{
    QSettings settings;
    const int n = settings.beginReadArray(kGroup);
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        const Host h{settings.value(QStringLiteral("name")).toString(), settings.value(QStringLiteral("command")).toStringList()};
        if (!h.name.isEmpty() && !h.command.isEmpty())
            m_hosts.append(h);
    }
    settings.endArray();
}

void RemoteHosts::save() const
{
    QSettings settings;
    settings.beginWriteArray(kGroup, int(m_hosts.size()));
    for (int i = 0; i < m_hosts.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("name"), m_hosts[i].name);
        settings.setValue(QStringLiteral("command"), m_hosts[i].command);
    }
    settings.endArray();
}

} // namespace airlock::ui

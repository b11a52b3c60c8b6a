#pragma once
#include <QMap>
#include <QString>

namespace airlock {

// Everything needed to describe one sandbox's domain and network to libvirt.
struct SandboxSpec {
    QString name;          // the user's name, "box1"
    QString domainName;    // libvirt's name, "airlock-<instance>-box1"
    QString networkName;   // libvirt network, same as domainName
    QString bridge;        // "al-<instance><n>", at most 15 characters
    QString gateway;       // host side of the /30
    QString guestIp;       // guest side
    int prefix = 30;
    QString mac;
    bool kvm = false;
    int cpus = 1;
    int memoryMib = 256;
    QString kernelPath, initrdPath, diskPath;
    QMap<QString, QString> env;
};

QString domainXml(const SandboxSpec &spec);
QString networkXml(const SandboxSpec &spec);
QString kernelCommandLine(const SandboxSpec &spec);

} // namespace airlock

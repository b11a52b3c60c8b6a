#pragma once
// OCI images for import tests, made offline with umoci (as a person would with their tools).
#include <QString>
#include <QStringList>
#include <functional>

struct OciImageSpec {
    QString dir;       // the layout goes to dir/layout, holding the image "t"
    QString busybox;   // copied in as /bin/busybox
    QStringList config; // `umoci config` options: --config.env K=V, --architecture arm64, ...
    bool withShell = true; // /bin/sh -> busybox
    std::function<bool(const QString &rootfs)> extra; // more files (or links) before the repack
    QString fromDisk;  // instead of busybox and a passwd: the files of this ext4 image (debugfs rdump)
};

// Runs a tool to its end; false with what it printed in `error`.
bool runTool(const QString &program, const QStringList &args, QString *error);
// The image: busybox as /bin/sh, /etc/passwd with root and "agent" (1000), then `config`.
bool makeOciImage(const OciImageSpec &spec, QString *error);
// busybox from the package cache the image recipes fill, unpacked below `dir`; empty on failure.
QString cachedBusybox(const QString &dir, QString *error);

#pragma once
#include "core/result.h"

#include <QString>
#include <functional>

namespace airlock {

// A guest image recipe: a directory under resources/images with an executable build.sh
// that writes vmlinuz, initrd.img and rootfs.img into the directory it is given.
struct ImageRecipe {
    QString name;
    QString dir;
    QString digest; // sha256 over the recipe's files and common/'s: same digest, same image

    static Result<ImageRecipe> find(const QString &name);
    static QStringList searchPath();

    using Progress = std::function<void(int percent, const QString &message)>;
    // Runs build.sh into `outDir`; `cancelled` is polled so a shutdown stops the build.
    Status run(const QString &outDir, const Progress &progress, const std::function<bool()> &cancelled) const;
};

} // namespace airlock

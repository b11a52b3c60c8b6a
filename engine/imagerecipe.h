#pragma once
#include "core/result.h"

#include <QString>
#include <QStringList>
#include <functional>

namespace airlock {

// A guest image recipe: a directory under resources/images with an executable build.sh
// that writes vmlinuz, initrd.img and rootfs.img into the directory it is given. An import
// is one too: import/import.sh run on one archive of a person's OCI image.
struct ImageRecipe {
    QString name;
    QString dir;
    QString digest; // sha256 over the recipe's files and common/'s (and an import's archive): same digest, same image
    QString script = QStringLiteral("build.sh");
    QStringList inputs; // after the output directory: an import's archive, format and reference

    static Result<ImageRecipe> find(const QString &name);
    // `format`: oci-archive or docker-archive; `reference` picks one image of several, may be empty.
    static Result<ImageRecipe> importer(const QString &archive, const QString &format, const QString &reference);
    static QStringList searchPath();
    bool isImport() const { return script != QLatin1String("build.sh"); }

    using Progress = std::function<void(int percent, const QString &message)>;
    // Runs build.sh into `outDir`; `cancelled` is polled so a shutdown stops the build.
    Status run(const QString &outDir, const Progress &progress, const std::function<bool()> &cancelled) const;
};

} // namespace airlock

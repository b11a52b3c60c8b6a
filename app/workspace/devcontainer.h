#pragma once
// A project's devcontainer.json (.devcontainer/devcontainer.json, .devcontainer.json, or a
// file named outright), read for what `image import --devcontainer` builds: its
// build.dockerfile and build.context, relative to the file. The file is JSON with comments
// and trailing commas (JSONC), as editors write it.
#include "core/result.h"
#include "workspace/imageupload.h"

#include <QByteArray>
#include <QString>

namespace airlock::workspace {

struct DevcontainerBuild {
    QString file;       // the devcontainer.json read
    QString dockerfile; // absolute
    QString context;    // absolute
};

// `path`: a project directory or a devcontainer.json. An `image` (a registry reference) is
// refused with how to import it instead: Airlock builds and imports offline.
Result<DevcontainerBuild> readDevcontainer(const QString &path);

// The Dockerfile and context the project's devcontainer.json names, ready to upload.
Result<std::unique_ptr<ImageSource>> openDevcontainer(const QString &path);

// JSONC to JSON: comments out, trailing commas out, strings untouched.
QByteArray jsoncToJson(const QByteArray &text);

} // namespace airlock::workspace

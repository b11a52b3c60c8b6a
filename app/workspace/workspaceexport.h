#pragma once
#include "core/result.h"
#include "progress.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace airlock { class BlockingClient; }

namespace airlock::workspace {

enum class ExportFormat { Bundle, Patches };

// Parses "bundle" / "patches"; nullopt for anything else.
std::optional<ExportFormat> exportFormatFromString(const QString &text);

// Brings the commits the sandbox made on top of its base (base..HEAD of /workspace) to the
// host, for the user to review and apply: a git bundle file or a directory of
// `git format-patch` files at `dest`. Runs git only in the guest (sandbox.exec) and copies
// with file.pull; on the host it writes `dest` and nothing else (never a repository).
// `base` overrides the commit recorded at import. Returns
// {sandbox, format, base, head, branch, commits, files: [...], uncommitted}.
Result<QJsonObject> exportWorkspace(BlockingClient &client, const QString &sandbox, const QString &dest, ExportFormat format,
                                    const QString &base = {}, const Progress &progress = {});

} // namespace airlock::workspace

#pragma once
// A full disk, told apart from other failures: a step that failed while the filesystem it
// writes to has (next to) no room left failed for that reason, whatever the tool printed.
#include "core/result.h"

#include <QString>

namespace airlock {

// True when the filesystem holding `path` (or its nearest existing parent) has less than
// about a MiB left for us, or `output` carries the system's own words for ENOSPC.
bool diskIsFull(const QString &path, const QString &output = {});
// "<what>: the disk holding <path> (<mount point>) is full", with what to do about it.
Error diskFullError(const QString &what, const QString &path);
// An error unless the disk holding `path` has `bytes` free: a step that cannot be undone
// half-way (a live snapshot) asks first instead of failing in the middle.
Status requireFreeSpace(const QString &what, const QString &path, qint64 bytes);
// `e` as diskFullError(e.what, path) when the disk holding `path` is full (its text or the
// free space says so), else `e` unchanged. Call it before cleaning up frees the room.
Error explainDiskFull(const Error &e, const QString &path);

} // namespace airlock

#pragma once
// Snapshots of a sandbox's disk layers and the console stream.
#include "protocol/payload.h"

namespace airlock::proto {

// snapshot.create's result (with `sandbox`) and a snapshot.list row (with `current`).
struct SnapshotInfo {
    qint64 id = 0;
    std::optional<QString> sandbox;
    QString label;
    std::optional<qint64> parent; // null: the first
    QDateTime created;
    std::optional<bool> current;
    AIRLOCK_PAYLOAD(SnapshotInfo)
};

struct SnapshotCreateParams {
    QString sandbox;
    QString label;
    AIRLOCK_PAYLOAD(SnapshotCreateParams)
};

// snapshot.list params are {sandbox}; restore and remove take {sandbox, id} and remove
// answers with it.
struct SnapshotRef {
    QString sandbox;
    std::optional<qint64> id;
    AIRLOCK_PAYLOAD(SnapshotRef)
};

struct ConsoleAttachResult {
    QByteArray history; // "history_b64": the last 256 KiB
    QString topic;      // "console:NAME"
    SandboxState state = SandboxState::Unknown;
    AIRLOCK_PAYLOAD(ConsoleAttachResult)
};

struct ConsoleWriteParams {
    QString name;
    QByteArray data; // "data_b64"
    AIRLOCK_PAYLOAD(ConsoleWriteParams)
};

// console.resize: params {name, rows, cols}; the result without name.
struct ConsoleSize {
    std::optional<QString> name;
    int rows = 0;
    int cols = 0;
    AIRLOCK_PAYLOAD(ConsoleSize)
};

// The data of a `console:NAME` event.
struct ConsoleOutput {
    QByteArray data; // "data_b64"
    AIRLOCK_PAYLOAD(ConsoleOutput)
};

} // namespace airlock::proto

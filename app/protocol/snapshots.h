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
    std::optional<bool> memory;         // true: a checkpoint (RAM and device state saved too)
    std::optional<qint64> memoryBytes;  // "memory_bytes": the size of its memory file
    std::optional<bool> automatic;      // taken by the sandbox's checkpoint schedule (retention may remove it)
    static void fields(auto &s, auto &f)
    {
        f("id", s.id)("sandbox", s.sandbox)("label", s.label)("parent", s.parent, Nulled)("created", s.created);
        f("current", s.current)("memory", s.memory)("memory_bytes", s.memoryBytes)("automatic", s.automatic);
    }
    AIRLOCK_PAYLOAD(SnapshotInfo)
};

struct SnapshotCreateParams {
    QString sandbox;
    QString label;
    bool memory = false; // save the running guest's memory too (a checkpoint)
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("label", s.label, Defaulted)("memory", s.memory, Omitted); }
    AIRLOCK_PAYLOAD(SnapshotCreateParams)
};

// snapshot.schedule: a sandbox's automatic checkpoints. Without every_s it only reads the
// schedule; every_s 0 stops it. The answer is the schedule in force.
struct CheckpointSchedule {
    QString sandbox;
    std::optional<qint64> everySeconds; // "every_s"
    std::optional<int> keep;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("every_s", s.everySeconds)("keep", s.keep); }
    AIRLOCK_PAYLOAD(CheckpointSchedule)
};

// snapshot.list params are {sandbox}; restore and remove take {sandbox, id} and remove
// answers with it.
struct SnapshotRef {
    QString sandbox;
    std::optional<qint64> id;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("id", s.id); }
    AIRLOCK_PAYLOAD(SnapshotRef)
};

struct ConsoleAttachResult {
    QByteArray history; // "history_b64": the last 256 KiB
    QString topic;      // "console:NAME"
    SandboxState state = SandboxState::Unknown;
    static void fields(auto &s, auto &f) { f("history_b64", s.history)("topic", s.topic)("state", s.state); }
    AIRLOCK_PAYLOAD(ConsoleAttachResult)
};

struct ConsoleWriteParams {
    QString name;
    QByteArray data; // "data_b64"
    static void fields(auto &s, auto &f) { f("name", s.name)("data_b64", s.data); }
    AIRLOCK_PAYLOAD(ConsoleWriteParams)
};

// console.resize: params {name, rows, cols}; the result without name.
struct ConsoleSize {
    std::optional<QString> name;
    int rows = 0;
    int cols = 0;
    static void fields(auto &s, auto &f) { f("name", s.name)("rows", s.rows)("cols", s.cols); }
    AIRLOCK_PAYLOAD(ConsoleSize)
};

// The data of a `console:NAME` event.
struct ConsoleOutput {
    QByteArray data; // "data_b64"
    static void fields(auto &s, auto &f) { f("data_b64", s.data); }
    AIRLOCK_PAYLOAD(ConsoleOutput)
};

} // namespace airlock::proto

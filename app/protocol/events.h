#pragma once
// The event notification and the data of the topics not covered elsewhere: image builds,
// snapshot progress, alerts; subscribe's params and result. (`sandbox`: SandboxRow;
// `egress` and `pending`: EgressEvent; `console:NAME`: ConsoleOutput.)
#include "protocol/payload.h"

namespace airlock::proto {

// {"method":"event","params":{topic, data}}
struct EventEnvelope {
    QString topic;
    QJsonObject data;
    static void fields(auto &s, auto &f) { f("topic", s.topic)("data", s.data); }
    AIRLOCK_PAYLOAD(EventEnvelope)
};

struct ImageProgress {
    QString name;
    QString phase; // building | done | failed
    int percent = 0;
    QString message;
    static void fields(auto &s, auto &f) { f("name", s.name)("phase", s.phase)("percent", s.percent)("message", s.message); }
    AIRLOCK_PAYLOAD(ImageProgress)
};

struct SnapshotProgress {
    QString sandbox;
    QString phase; // creating | done | failed
    int percent = 0;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("phase", s.phase)("percent", s.percent); }
    AIRLOCK_PAYLOAD(SnapshotProgress)
};

struct Alert {
    QString sandbox;
    QString kind; // disk_full | trust | exfiltration | vault_locked
    QString message;
    static void fields(auto &s, auto &f) { f("sandbox", s.sandbox)("kind", s.kind)("message", s.message); }
    AIRLOCK_PAYLOAD(Alert)
};

// subscribe / unsubscribe: params {topics}; the result is the array of topics.
struct TopicsParams {
    QStringList topics;
    static void fields(auto &s, auto &f) { f("topics", s.topics); }
    AIRLOCK_PAYLOAD(TopicsParams)
};

} // namespace airlock::proto

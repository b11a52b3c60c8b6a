#pragma once
// Images, agent templates and egress presets: what a sandbox is made from.
#include "protocol/payload.h"

namespace airlock::proto {

// image.list row; image.build's result with `cached`.
struct ImageInfo {
    QString name;
    QString kernel;
    qint64 sizeBytes = 0;
    std::optional<QDateTime> created;
    QString recipe;
    std::optional<bool> cached; // image.build only
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("kernel", s.kernel)("size_bytes", s.sizeBytes)("created", s.created)("recipe", s.recipe);
        f("cached", s.cached);
    }
    AIRLOCK_PAYLOAD(ImageInfo)
};

struct ImageBuildParams {
    QString recipe;
    std::optional<QString> name; // default: the recipe
    static void fields(auto &s, auto &f) { f("recipe", s.recipe)("name", s.name); }
    AIRLOCK_PAYLOAD(ImageBuildParams)
};

// image.import: one chunk of the archive, in order; the one with `final` starts the import.
struct ImageImportParams {
    QString name;
    QString format;    // oci-archive | docker-archive | dockerfile (data: a tar of the build context)
    QString reference; // which image of an archive holding several ("" = its only one); for dockerfile, its path in the context
    QByteArray data;   // "data_b64", at most 768 KiB decoded (a request line is at most 1 MiB)
    qint64 offset = 0; // where this chunk starts; 0 starts the upload again
    bool final = false;
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("format", s.format)("reference", s.reference, Defaulted)("data_b64", s.data, Defaulted);
        f("offset", s.offset, Defaulted)("final", s.final, Defaulted);
    }
    AIRLOCK_PAYLOAD(ImageImportParams)
};

// image.import's answer to a chunk that is not the last.
struct ImageUploadResult {
    QString name;
    qint64 received = 0;
    static void fields(auto &s, auto &f) { f("name", s.name)("received", s.received); }
    AIRLOCK_PAYLOAD(ImageUploadResult)
};

struct ImageCancelResult {
    QString name;
    bool cancelled = true;
    static void fields(auto &s, auto &f) { f("name", s.name)("cancelled", s.cancelled); }
    AIRLOCK_PAYLOAD(ImageCancelResult)
};

struct TemplateSecret {
    QString name;
    QString env;
    QStringList hosts;
    QString header;
    static void fields(auto &s, auto &f) { f("name", s.name)("env", s.env)("hosts", s.hosts)("header", s.header); }
    AIRLOCK_PAYLOAD(TemplateSecret)
};

// template.list row: the daemon maps each AgentTemplate (engine/agenttemplate.h) to one.
struct TemplateInfo {
    QString name;
    QString description;
    QString image;
    int cpus = 0;
    int memoryMib = 0;
    int diskGib = 0;
    QStringList presets;
    QStringList optInPresets;
    QString console;
    QMap<QString, QString> env;
    std::optional<TemplateSecret> secret;
    QJsonObject login; // its sign-in as the template declares it (core/loginspec.h); {} without one
    QString policy;    // its policy file, relative to the templates directory; "" for none
    static void fields(auto &s, auto &f)
    {
        f("name", s.name)("description", s.description)("image", s.image)("cpus", s.cpus)("memory_mib", s.memoryMib);
        f("disk_gib", s.diskGib)("presets", s.presets)("opt_in_presets", s.optInPresets)("console", s.console);
        f("env", s.env)("secret", s.secret)("login", s.login, Omitted)("policy", s.policy, Omitted);
    }
    AIRLOCK_PAYLOAD(TemplateInfo)
};

struct PresetRuleInfo {
    QString host;
    int port = 0; // 0 = any
    QString why;
    QString request; // a rule of single requests: "GET", "git fetch" (RequestRule::text); omitted for a host
    static void fields(auto &s, auto &f) { f("host", s.host)("port", s.port, Defaulted)("why", s.why)("request", s.request, Omitted); }
    AIRLOCK_PAYLOAD(PresetRuleInfo)
};

// preset.list row: an egress preset the daemon loads (broker/presets.h).
struct PresetInfo {
    QString name;
    QString description;
    QList<PresetRuleInfo> rules;
    QMap<QString, QString> parameters; // name -> what its value is; given as "NAME:KEY=VALUE" in sandbox.create's presets
    static void fields(auto &s, auto &f) { f("name", s.name)("description", s.description)("rules", s.rules)("parameters", s.parameters, Omitted); }
    AIRLOCK_PAYLOAD(PresetInfo)
};

} // namespace airlock::proto

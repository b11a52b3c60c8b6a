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
    AIRLOCK_PAYLOAD(ImageInfo)
};

struct ImageBuildParams {
    QString recipe;
    std::optional<QString> name; // default: the recipe
    AIRLOCK_PAYLOAD(ImageBuildParams)
};

struct ImageCancelResult {
    QString name;
    bool cancelled = true;
    AIRLOCK_PAYLOAD(ImageCancelResult)
};

struct TemplateSecret {
    QString name;
    QString env;
    QStringList hosts;
    QString header;
    AIRLOCK_PAYLOAD(TemplateSecret)
};

// template.list row (AgentTemplate, engine/agenttemplate.h).
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
    AIRLOCK_PAYLOAD(TemplateInfo)
};

struct PresetRuleInfo {
    QString host;
    int port = 0; // 0 = any
    QString why;
    AIRLOCK_PAYLOAD(PresetRuleInfo)
};

// preset.list row: an egress preset the daemon loads (broker/presets.h).
struct PresetInfo {
    QString name;
    QString description;
    QList<PresetRuleInfo> rules;
    AIRLOCK_PAYLOAD(PresetInfo)
};

} // namespace airlock::proto

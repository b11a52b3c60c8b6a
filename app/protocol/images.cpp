#include "protocol/images.h"
#include "core/isotime.h"
#include "protocol/jsonfields.h"

namespace airlock::proto {

QJsonObject ImageInfo::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("kernel"), kernel},
                  {QStringLiteral("size_bytes"), sizeBytes}, {QStringLiteral("recipe"), recipe}};
    if (created)
        o.insert(QStringLiteral("created"), isoTimeSeconds(*created));
    if (cached)
        o.insert(QStringLiteral("cached"), *cached);
    return o;
}

Result<ImageInfo> ImageInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "image");
    ImageInfo i{f.string("name"), f.string("kernel"), f.integer("size_bytes"), f.optTime("created"),
                f.string("recipe"), f.optBoolean("cached")};
    return f.done(i);
}

QJsonObject ImageBuildParams::toJson() const
{
    QJsonObject o{{QStringLiteral("recipe"), recipe}};
    if (name)
        o.insert(QStringLiteral("name"), *name);
    return o;
}

Result<ImageBuildParams> ImageBuildParams::fromJson(const QJsonObject &object)
{
    Fields f(object, "image.build params");
    ImageBuildParams p{f.string("recipe"), f.optString("name")};
    return f.done(p);
}

QJsonObject ImageCancelResult::toJson() const { return {{QStringLiteral("name"), name}, {QStringLiteral("cancelled"), cancelled}}; }

Result<ImageCancelResult> ImageCancelResult::fromJson(const QJsonObject &object)
{
    Fields f(object, "image.cancel result");
    ImageCancelResult r{f.string("name"), f.boolean("cancelled")};
    return f.done(r);
}

QJsonObject TemplateSecret::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("env"), env},
            {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)}, {QStringLiteral("header"), header}};
}

Result<TemplateSecret> TemplateSecret::fromJson(const QJsonObject &object)
{
    Fields f(object, "template secret");
    TemplateSecret s{f.string("name"), f.string("env"), f.strings("hosts"), f.string("header")};
    return f.done(s);
}

QJsonObject TemplateInfo::toJson() const
{
    QJsonObject envJson;
    for (auto it = env.begin(); it != env.end(); ++it)
        envJson.insert(it.key(), it.value());
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("description"), description},
                  {QStringLiteral("image"), image},
                  {QStringLiteral("cpus"), cpus},
                  {QStringLiteral("memory_mib"), memoryMib},
                  {QStringLiteral("disk_gib"), diskGib},
                  {QStringLiteral("presets"), QJsonArray::fromStringList(presets)},
                  {QStringLiteral("opt_in_presets"), QJsonArray::fromStringList(optInPresets)},
                  {QStringLiteral("console"), console},
                  {QStringLiteral("env"), envJson}};
    if (secret)
        o.insert(QStringLiteral("secret"), secret->toJson());
    return o;
}

Result<TemplateInfo> TemplateInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "template");
    TemplateInfo t;
    t.name = f.string("name");
    t.description = f.string("description");
    t.image = f.string("image");
    t.cpus = int(f.integer("cpus"));
    t.memoryMib = int(f.integer("memory_mib"));
    t.diskGib = int(f.integer("disk_gib"));
    t.presets = f.strings("presets");
    t.optInPresets = f.strings("opt_in_presets");
    t.console = f.string("console");
    t.env = f.stringMap("env", true);
    t.secret = f.optObject<TemplateSecret>("secret");
    return f.done(t);
}

QJsonObject PresetRuleInfo::toJson() const
{
    return {{QStringLiteral("host"), host}, {QStringLiteral("port"), port}, {QStringLiteral("why"), why}};
}

Result<PresetRuleInfo> PresetRuleInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "preset rule");
    PresetRuleInfo r{f.string("host"), int(f.integer("port", 0)), f.string("why")};
    return f.done(r);
}

QJsonObject PresetInfo::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("description"), description},
            {QStringLiteral("rules"), toJsonArray(rules)}};
}

Result<PresetInfo> PresetInfo::fromJson(const QJsonObject &object)
{
    Fields f(object, "preset");
    PresetInfo p{f.string("name"), f.string("description"), f.list<PresetRuleInfo>("rules")};
    return f.done(p);
}

} // namespace airlock::proto

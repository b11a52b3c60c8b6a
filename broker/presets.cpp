#include "presets.h"
#include "core/resourcedir.h"
#include "hostpattern.h"
#include "strictjson.h"

#include <QDir>
#include <algorithm>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace airlock {

namespace {

Error presetError(const QString &source, const QString &why)
{
    return Error{QStringLiteral("invalid egress preset %1").arg(source), why, ErrorKind::InvalidParams};
}

} // namespace

QList<Rule> Preset::toRules(const QString &sandbox, uid_t owner) const
{
    QList<Rule> out;
    for (const PresetRule &p : rules) {
        Rule r;
        r.sandbox = sandbox;
        r.owner = owner;
        r.allow = true;
        r.pattern = p.host;
        r.port = p.port;
        r.request = p.request;
        r.origin = QStringLiteral("preset ") + name;
        out.append(r);
    }
    return out;
}

Result<Preset> parsePreset(const QByteArray &json, const QString &source)
{
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
    if (perr.error != QJsonParseError::NoError)
        return presetError(source, QStringLiteral("not valid JSON at offset %1: %2").arg(perr.offset).arg(perr.errorString()));
    if (!doc.isObject())
        return presetError(source, QStringLiteral("the document must be an object {name, description, rules}"));
    const QJsonObject o = doc.object();
    if (const QString k = unknownKey(o, {"name", "description", "rules"}); !k.isEmpty())
        return presetError(source, QStringLiteral("unknown key '%1' (allowed: name, description, rules)").arg(k));
    Preset p;
    p.name = o.value(QLatin1String("name")).toString();
    static const QRegularExpression namePattern(QStringLiteral("^[a-z0-9][a-z0-9-]{0,62}$"));
    if (!namePattern.match(p.name).hasMatch())
        return presetError(source, QStringLiteral("\"name\" must be lower-case letters, digits and '-'"));
    p.description = o.value(QLatin1String("description")).toString();
    if (p.description.trimmed().isEmpty())
        return presetError(source, QStringLiteral("\"description\" is missing or empty"));
    const QJsonValue rulesValue = o.value(QLatin1String("rules"));
    if (!rulesValue.isArray() || rulesValue.toArray().isEmpty())
        return presetError(source, QStringLiteral("\"rules\" must be a non-empty array"));
    const QJsonArray rules = rulesValue.toArray();
    for (qsizetype i = 0; i < rules.size(); ++i) {
        const QString where = QStringLiteral("rules[%1]").arg(i);
        if (!rules.at(i).isObject())
            return presetError(source, where + QStringLiteral(" must be an object {host, port?, method?, path?, git?, repo?, why}"));
        const QJsonObject r = rules.at(i).toObject();
        if (const QString k = unknownKey(r, {"host", "port", "method", "path", "git", "repo", "why"}); !k.isEmpty())
            return presetError(source, where + QStringLiteral(": unknown key '%1' (allowed: host, port, method, path, git, repo, why)").arg(k));
        PresetRule rule;
        rule.host = r.value(QLatin1String("host")).toString();
        Result<HostPattern> pattern = HostPattern::parse(rule.host);
        if (!pattern)
            return presetError(source, where + QStringLiteral(": ") + pattern.error().message());
        rule.host = pattern->text();
        if (pattern->kind() == HostPattern::Kind::Any)
            return presetError(source, where + QStringLiteral(": a preset may not allow everything ('*')"));
        const std::optional<int> port = optionalPort(r);
        if (!port)
            return presetError(source, where + QStringLiteral(": \"port\" must be an integer 1..65535 (omit it for any port)"));
        rule.port = *port;
        for (auto [key, field] : {std::pair{"method", &rule.request.method}, std::pair{"path", &rule.request.path},
                                  std::pair{"git", &rule.request.git}, std::pair{"repo", &rule.request.repo}}) {
            const QJsonValue v = r.value(QLatin1String(key));
            if (!v.isUndefined() && !v.isString())
                return presetError(source, where + QStringLiteral(": \"%1\" must be a string").arg(QLatin1String(key)));
            *field = v.toString();
        }
        if (!rule.request.isEmpty()) {
            Rule probe;
            probe.allow = true;
            probe.pattern = rule.host;
            probe.port = rule.port;
            probe.request = rule.request;
            if (Status s = Policy::validate(probe); !s)
                return presetError(source, where + QStringLiteral(": ") + s.error().message());
            rule.request = RequestPattern::parse(rule.request)->rule();
        }
        rule.why = r.value(QLatin1String("why")).toString();
        if (rule.why.trimmed().isEmpty())
            return presetError(source, where + QStringLiteral(": \"why\" is missing; say why the preset opens this host"));
        p.rules.append(rule);
    }
    return p;
}

Result<QList<Preset>> loadPresets(const QString &dirPath)
{
    const QDir dir(dirPath);
    if (!dir.exists())
        return Error{QStringLiteral("cannot read egress presets"),
                     QStringLiteral("the directory %1 does not exist; set AIRLOCK_PRESETS_DIR").arg(dirPath), ErrorKind::Failed};
    QList<Preset> out;
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly))
            return Error{QStringLiteral("cannot read egress preset %1").arg(f.fileName()), f.errorString(), ErrorKind::Failed};
        if (f.size() > (1 << 20))
            return presetError(f.fileName(), QStringLiteral("larger than 1 MiB"));
        Result<Preset> p = parsePreset(f.readAll(), f.fileName());
        if (!p)
            return p.error();
        if (p->name + QStringLiteral(".json") != file)
            return presetError(f.fileName(), QStringLiteral("\"name\" is '%1' but the file is %2; they must agree").arg(p->name, file));
        out.append(*p);
    }
    // By preset name ("github" before "github-read-only"), not by file name.
    std::sort(out.begin(), out.end(), [](const Preset &a, const Preset &b) { return a.name < b.name; });
    return out;
}

QString presetsDirectory() { return resourceDirectory("AIRLOCK_PRESETS_DIR", QStringLiteral("egress-presets")); }

} // namespace airlock

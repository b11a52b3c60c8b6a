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
#include <QSet>

namespace airlock {

namespace {

Error presetError(const QString &source, const QString &why)
{
    return Error{QStringLiteral("invalid egress preset %1").arg(source), why, ErrorKind::InvalidParams};
}

const QRegularExpression &parameterName()
{
    static const QRegularExpression re(QStringLiteral("^[a-z][a-z0-9_]{0,31}$"));
    return re;
}

const QRegularExpression &parameterValue()
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"));
    return re;
}

// "{org}" in `text` replaced by values[org]; the names met are added to `used`. A '{' or '}'
// that is not part of "{name}" with a name in `values` is an error.
Result<QString> substitute(const QString &text, const QMap<QString, QString> &values, QSet<QString> *used = nullptr)
{
    static const QRegularExpression reference(QStringLiteral("\\{([^{}]*)\\}"));
    QString out;
    qsizetype from = 0;
    for (auto it = reference.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1);
        if (!values.contains(name))
            return Error{QStringLiteral("\"{%1}\" names no parameter of the preset").arg(name)};
        out += text.mid(from, m.capturedStart() - from) + values.value(name);
        from = m.capturedEnd();
        if (used)
            used->insert(name);
    }
    out += text.mid(from);
    if (out.contains(QLatin1Char('{')) || out.contains(QLatin1Char('}')))
        return Error{QStringLiteral("a '{' or '}' in \"%1\" is not a parameter \"{name}\"").arg(text)};
    return out;
}

// The request part with `values` put in, checked and normalised as `rule add` does.
Result<RequestRule> requestWith(const PresetRule &rule, const QMap<QString, QString> &values, QSet<QString> *used = nullptr)
{
    RequestRule request = rule.request;
    for (QString *field : {&request.path, &request.repo}) {
        Result<QString> text = substitute(*field, values, used);
        if (!text)
            return text.error();
        *field = *text;
    }
    Rule probe;
    probe.allow = true;
    probe.pattern = rule.host;
    probe.port = rule.port;
    probe.request = request;
    if (Status s = Policy::validate(probe); !s)
        return s.error();
    return RequestPattern::parse(request)->rule();
}

} // namespace

Result<PresetUse> parsePresetUse(const QString &text)
{
    PresetUse use;
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    use.name = text.left(colon);
    if (colon < 0)
        return use;
    for (const QString &pair : text.mid(colon + 1).split(QLatin1Char(','))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        const QString key = pair.left(eq).trimmed();
        if (eq < 0 || !parameterName().match(key).hasMatch())
            return Error{QStringLiteral("cannot read the preset \"%1\"").arg(text.left(200)),
                         QStringLiteral("give its parameters as NAME:KEY=VALUE[,KEY=VALUE], e.g. github-push-to-org:org=myorg"),
                         ErrorKind::InvalidParams};
        if (use.values.contains(key))
            return Error{QStringLiteral("the preset \"%1\" gives %2 twice").arg(text.left(200), key), {}, ErrorKind::InvalidParams};
        use.values.insert(key, pair.mid(eq + 1).trimmed());
    }
    return use;
}

Result<Preset> Preset::filled(const QMap<QString, QString> &given) const
{
    const QString usage = QStringLiteral("%1:%2").arg(name, [this] {
        QStringList pairs;
        for (const QString &key : parameters.keys())
            pairs << key + QStringLiteral("=VALUE");
        return pairs.join(QLatin1Char(','));
    }());
    for (auto it = given.cbegin(); it != given.cend(); ++it) {
        if (!parameters.contains(it.key()))
            return Error{QStringLiteral("the preset %1 has no parameter %2").arg(name, it.key()),
                         parameters.isEmpty() ? QStringLiteral("name it without parameters") : QStringLiteral("use %1").arg(usage),
                         ErrorKind::InvalidParams};
        if (!parameterValue().match(it.value()).hasMatch())
            return Error{QStringLiteral("the preset %1's %2 is \"%3\"").arg(name, it.key(), it.value().left(100)),
                         QStringLiteral("a value is one name: letters, digits, '.', '_' and '-' (no '*' or '/')"), ErrorKind::InvalidParams};
    }
    for (auto it = parameters.cbegin(); it != parameters.cend(); ++it)
        if (!given.contains(it.key()))
            return Error{QStringLiteral("the preset %1 needs %2 (%3)").arg(name, it.key(), it.value()), QStringLiteral("use %1").arg(usage),
                         ErrorKind::InvalidParams};
    Preset out = *this;
    out.values = given;
    for (PresetRule &rule : out.rules) {
        if (const Result<QString> why = substitute(rule.why, given))
            rule.why = *why;
        if (rule.request.isEmpty())
            continue;
        Result<RequestRule> request = requestWith(rule, given);
        if (!request)
            return Error{QStringLiteral("the preset %1 with %2").arg(name, given.keys().join(QStringLiteral(", "))), request.error().message(),
                         ErrorKind::InvalidParams};
        rule.request = *request;
    }
    return out;
}

QList<Rule> Preset::toRules(const QString &sandbox, uid_t owner) const
{
    QString origin = QStringLiteral("preset ") + name;
    if (!values.isEmpty()) {
        QStringList given;
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            given << it.key() + QLatin1Char('=') + it.value();
        origin += QStringLiteral(" (%1)").arg(given.join(QStringLiteral(", ")));
    }
    QList<Rule> out;
    for (const PresetRule &p : rules) {
        Rule r;
        r.sandbox = sandbox;
        r.owner = owner;
        r.allow = true;
        r.pattern = p.host;
        r.port = p.port;
        r.request = p.request;
        r.origin = origin;
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
    if (const QString k = unknownKey(o, {"name", "description", "parameters", "rules"}); !k.isEmpty())
        return presetError(source, QStringLiteral("unknown key '%1' (allowed: name, description, parameters, rules)").arg(k));
    Preset p;
    p.name = o.value(QLatin1String("name")).toString();
    static const QRegularExpression namePattern(QStringLiteral("^[a-z0-9][a-z0-9-]{0,62}$"));
    if (!namePattern.match(p.name).hasMatch())
        return presetError(source, QStringLiteral("\"name\" must be lower-case letters, digits and '-'"));
    p.description = o.value(QLatin1String("description")).toString();
    if (p.description.trimmed().isEmpty())
        return presetError(source, QStringLiteral("\"description\" is missing or empty"));
    const QJsonValue parameters = o.value(QLatin1String("parameters"));
    if (!parameters.isUndefined() && !parameters.isObject())
        return presetError(source, QStringLiteral("\"parameters\" must be an object {\"name\": \"what its value is\"}"));
    const QJsonObject declared = parameters.toObject();
    QMap<QString, QString> probes; // a value for each parameter, to check the rules with
    for (auto it = declared.begin(); it != declared.end(); ++it) {
        if (!parameterName().match(it.key()).hasMatch())
            return presetError(source, QStringLiteral("the parameter '%1' must be lower-case letters, digits and '_'").arg(it.key()));
        if (!it.value().isString() || it.value().toString().trimmed().isEmpty())
            return presetError(source, QStringLiteral("the parameter '%1' must say what its value is").arg(it.key()));
        p.parameters.insert(it.key(), it.value().toString());
        probes.insert(it.key(), QStringLiteral("probe"));
    }
    QSet<QString> used;
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
            const Result<RequestRule> checked = requestWith(rule, probes, &used);
            if (!checked)
                return presetError(source, where + QStringLiteral(": ") + checked.error().message());
            if (p.parameters.isEmpty()) // with parameters the text keeps its "{name}" until filled
                rule.request = *checked;
        }
        rule.why = r.value(QLatin1String("why")).toString();
        if (rule.why.trimmed().isEmpty())
            return presetError(source, where + QStringLiteral(": \"why\" is missing; say why the preset opens this host"));
        p.rules.append(rule);
    }
    for (const QString &name : p.parameters.keys())
        if (!used.contains(name))
            return presetError(source, QStringLiteral("the parameter '%1' is used by no rule's \"path\" or \"repo\"").arg(name));
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

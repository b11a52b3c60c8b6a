#include "policyfile.h"
#include "core/isotime.h"
#include "hostpattern.h"
#include "strictjson.h"
#include "yamlreader.h"

#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace airlock {

namespace {

Error fileError(const QString &source, const QString &why)
{
    return Error{QStringLiteral("invalid policy file %1").arg(source), why, ErrorKind::InvalidParams};
}

// Control and format characters (a carriage return, an escape sequence, a bidi override)
// would let a file the agent wrote redraw or reorder the difference a person reads.
bool printable(const QString &text)
{
    return std::none_of(text.cbegin(), text.cend(), [](QChar c) {
        return c.category() == QChar::Other_Control || c.category() == QChar::Other_Format;
    });
}

// An optional one-line text field; nullopt when it is there but not such a text.
std::optional<QString> optionalText(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined())
        return QString();
    if (!v.isString() || v.toString().size() > kMaxPolicyText || !printable(v.toString()))
        return std::nullopt;
    return v.toString();
}

Result<PolicyEntry> parseEntry(const QJsonValue &value, const QString &where)
{
    if (!value.isObject())
        return Error{where, QStringLiteral("must be an object {action, host, port?, raw_tcp?, method?, path?, git?, repo?, why?, from?}")};
    const QJsonObject r = value.toObject();
    if (const QString k = unknownKey(r, {"action", "host", "port", "raw_tcp", "method", "path", "git", "repo", "why", "from"}); !k.isEmpty())
        return Error{where, QStringLiteral("unknown key '%1' (allowed: action, host, port, raw_tcp, method, path, git, repo, why, "
                                           "from)").arg(k)};
    PolicyEntry e;
    const QString action = r.value(QLatin1String("action")).toString();
    if (action != QLatin1String("allow") && action != QLatin1String("deny"))
        return Error{where, QStringLiteral("\"action\" must be \"allow\" or \"deny\"")};
    e.allow = action == QLatin1String("allow");
    const QJsonValue host = r.value(QLatin1String("host"));
    if (!host.isString() || host.toString().size() > kMaxPolicyText)
        return Error{where, QStringLiteral("\"host\" must be a host, *.domain, IP, CIDR or *")};
    const std::optional<int> port = optionalPort(r);
    if (!port)
        return Error{where, QStringLiteral("\"port\" must be an integer 1..65535 (omit it for any port)")};
    e.port = *port;
    const QJsonValue rawTcp = r.value(QLatin1String("raw_tcp"));
    if (!rawTcp.isUndefined() && !rawTcp.isBool())
        return Error{where, QStringLiteral("\"raw_tcp\" must be true or false")};
    e.rawTcp = rawTcp.toBool(false);
    for (auto [key, field] : {std::pair{"method", &e.request.method}, std::pair{"path", &e.request.path},
                              std::pair{"git", &e.request.git}, std::pair{"repo", &e.request.repo}}) {
        const std::optional<QString> text = optionalText(r, key);
        if (!text)
            return Error{where, QStringLiteral("\"%1\" must be a string as `airlockctl rule add --%1` takes it").arg(QLatin1String(key))};
        *field = *text;
    }
    const std::optional<QString> why = optionalText(r, "why");
    const std::optional<QString> from = optionalText(r, "from");
    if (!why || !from)
        return Error{where, QStringLiteral("\"why\" and \"from\" must be one line of at most %1 characters, without control "
                                           "characters").arg(kMaxPolicyText)};
    e.why = *why;
    e.from = *from;
    // The same checks as rule.add, so a file never holds what a person could not add by hand.
    Rule probe = e.toRule(QStringLiteral("probe"), 0, {});
    probe.pattern = host.toString().trimmed();
    if (Status s = Policy::validateNew(probe); !s)
        return Error{where, s.error().message()};
    e.host = HostPattern::parse(probe.pattern)->text();
    if (!e.request.isEmpty())
        e.request = RequestPattern::parse(e.request)->rule();
    return e;
}

// JSON when the file starts with '{' (after blanks), YAML otherwise: one schema either way.
Result<QJsonValue> readDocument(const QByteArray &bytes)
{
    if (bytes.trimmed().startsWith('{')) {
        QJsonParseError perr;
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &perr);
        if (perr.error != QJsonParseError::NoError)
            return Error{QStringLiteral("not valid JSON at offset %1: %2").arg(perr.offset).arg(perr.errorString())};
        return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
    }
    return readYamlDocument(bytes);
}

// One rule's fields in file order, values as written (strings quoted as JSON).
using Field = QPair<const char *, QByteArray>;

QList<Field> entryFields(const PolicyEntry &e)
{
    QList<Field> fields{{"action", e.allow ? "\"allow\"" : "\"deny\""}, {"host", jsonQuoted(e.host)}};
    if (e.port)
        fields.append(Field{"port", QByteArray::number(e.port)});
    if (e.rawTcp)
        fields.append(Field{"raw_tcp", "true"});
    for (const auto &[key, value] : {std::pair{"method", &e.request.method}, std::pair{"path", &e.request.path},
                                     std::pair{"git", &e.request.git}, std::pair{"repo", &e.request.repo}})
        if (!value->isEmpty())
            fields.append(Field{key, jsonQuoted(*value)});
    if (!e.why.isEmpty())
        fields.append(Field{"why", jsonQuoted(e.why)});
    if (!e.from.isEmpty())
        fields.append(Field{"from", jsonQuoted(e.from)});
    return fields;
}

// Written by hand, one rule per line: readable in a diff of the project's repository.
QByteArray writeJson(const PolicyFile &file)
{
    QByteArray out = "{\n  \"airlock_policy\": " + QByteArray::number(kPolicyFileVersion) + ",\n";
    if (!file.description.isEmpty())
        out += "  \"description\": " + jsonQuoted(file.description) + ",\n";
    out += "  \"rules\": [";
    for (qsizetype i = 0; i < file.rules.size(); ++i) {
        out += i ? ",\n    {" : "\n    {";
        bool first = true;
        for (const auto &[key, value] : entryFields(file.rules.at(i))) {
            out += (first ? "\"" : ", \"") + QByteArray(key) + "\": " + value;
            first = false;
        }
        out += "}";
    }
    out += file.rules.isEmpty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
}

// Block style, one key per line; every string double-quoted (JSON's escapes are YAML's), so
// no value is read back as another type and no `*` or `&` in a host starts YAML syntax.
QByteArray writeYaml(const PolicyFile &file)
{
    QByteArray out = "# Airlock policy file: airlockctl policy import FILE [--sandbox NAME] shows what it changes first.\n"
                     "airlock_policy: " + QByteArray::number(kPolicyFileVersion) + "\n";
    if (!file.description.isEmpty())
        out += "description: " + jsonQuoted(file.description) + "\n";
    out += file.rules.isEmpty() ? "rules: []\n" : "rules:\n";
    for (const PolicyEntry &e : file.rules) {
        bool first = true;
        for (const auto &[key, value] : entryFields(e)) {
            out += (first ? "  - " : "    ") + QByteArray(key) + ": " + value + "\n";
            first = false;
        }
    }
    return out;
}

} // namespace

QString PolicyEntry::describe() const
{
    return QStringLiteral("%1 %2:%3%4%5")
        .arg(allow ? QStringLiteral("allow") : QStringLiteral("deny"), host, port ? QString::number(port) : QStringLiteral("any"),
             request.isEmpty() ? QString() : QLatin1Char(' ') + request.text(), rawTcp ? QStringLiteral(" (raw TCP)") : QString());
}

PolicyEntry PolicyEntry::of(const Rule &rule)
{
    PolicyEntry e;
    e.allow = rule.allow;
    e.host = rule.pattern;
    e.port = rule.port;
    e.rawTcp = rule.rawTcp;
    e.request = rule.request;
    QString from = rule.origin.isEmpty() ? QStringLiteral("rule %1").arg(rule.id) : rule.origin;
    from += QStringLiteral(" (uid %1%2)").arg(rule.owner).arg(rule.created.isValid() ? QStringLiteral(", ") + isoTimeSeconds(rule.created) : QString());
    e.from = from.left(kMaxPolicyText).replace(QLatin1Char('\n'), QLatin1Char(' '));
    return e;
}

Rule PolicyEntry::toRule(const QString &sandbox, uid_t owner, const QString &origin) const
{
    Rule r;
    r.sandbox = sandbox;
    r.owner = owner;
    r.allow = allow;
    r.pattern = host;
    r.port = port;
    r.rawTcp = rawTcp;
    r.request = request;
    r.origin = origin;
    return r;
}

Rule PolicyEntry::importedRule(const QString &sandbox, uid_t owner, const QString &source) const
{
    return toRule(sandbox, owner, QStringLiteral("policy file %1").arg(source) + (from.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(from)));
}

bool isLastingRule(const Rule &rule) { return !rule.once && !rule.untilStop && !rule.expires.isValid(); }

Result<PolicyFile> parsePolicyFile(const QByteArray &bytes, const QString &source)
{
    if (bytes.size() > kMaxPolicyFileBytes)
        return fileError(source, QStringLiteral("it is larger than %1 KiB").arg(kMaxPolicyFileBytes / 1024));
    Result<QJsonValue> doc = readDocument(bytes);
    if (!doc)
        return fileError(source, doc.error().message());
    if (!doc->isObject())
        return fileError(source, QStringLiteral("the document must be an object {airlock_policy, description?, rules} (in YAML a "
                                                "mapping of those keys)"));
    const QJsonObject o = doc->toObject();
    if (const QString k = unknownKey(o, {"airlock_policy", "description", "rules"}); !k.isEmpty())
        return fileError(source, QStringLiteral("unknown key '%1' (allowed: airlock_policy, description, rules)").arg(k));
    const QJsonValue version = o.value(QLatin1String("airlock_policy"));
    if (!version.isDouble() || version.toDouble() != kPolicyFileVersion)
        return fileError(source, version.isUndefined()
                                     ? QStringLiteral("\"airlock_policy\": %1 is missing: is this an Airlock policy file?").arg(kPolicyFileVersion)
                                     : QStringLiteral("\"airlock_policy\" must be %1, the version this Airlock reads").arg(kPolicyFileVersion));
    PolicyFile file;
    const std::optional<QString> description = optionalText(o, "description");
    if (!description)
        return fileError(source, QStringLiteral("\"description\" must be one line of at most %1 characters, without control "
                                                "characters").arg(kMaxPolicyText));
    file.description = *description;
    const QJsonValue rules = o.value(QLatin1String("rules"));
    if (!rules.isArray())
        return fileError(source, QStringLiteral("\"rules\" must be an array (it may be empty)"));
    const QJsonArray list = rules.toArray();
    if (list.size() > kMaxPolicyRules)
        return fileError(source, QStringLiteral("it has %1 rules; at most %2 are read").arg(list.size()).arg(kMaxPolicyRules));
    QHash<QString, qsizetype> targets; // targetKey -> index in file.rules
    for (qsizetype i = 0; i < list.size(); ++i) {
        Result<PolicyEntry> e = parseEntry(list.at(i), QStringLiteral("rules[%1]").arg(i));
        if (!e)
            return fileError(source, e.error().what + QStringLiteral(": ") + e.error().why);
        if (const auto earlier = targets.constFind(e->targetKey()); earlier != targets.cend())
            return fileError(source, QStringLiteral("rules[%1]: %2 is already in the file (%3); keep one")
                                         .arg(i).arg(e->describe(), file.rules.at(*earlier).describe()));
        targets.insert(e->targetKey(), file.rules.size());
        file.rules.append(*e);
    }
    return file;
}

QByteArray writePolicyFile(const PolicyFile &file, PolicyFileFormat format)
{
    return format == PolicyFileFormat::Yaml ? writeYaml(file) : writeJson(file);
}

QString PolicyImportPlan::fingerprint() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const auto part = [&](char kind, const PolicyEntry &e, qint64 id) {
        const QByteArray line = QByteArray(1, kind) + e.describe().toUtf8() + '#' + QByteArray::number(id) + '\n';
        hash.addData(line);
    };
    for (const PolicyEntry &e : add)
        part('+', e, 0);
    for (const auto &[e, id] : keep)
        part('=', e, id);
    for (const auto &[e, id] : remove)
        part('-', e, id);
    for (const auto &[e, id] : conflicts)
        part('!', e, id);
    return QString::fromLatin1(hash.result().toHex().left(32));
}

PolicyImportPlan planPolicyImport(const PolicyFile &file, const QList<Rule> &existing, bool replace)
{
    PolicyImportPlan plan;
    QList<PolicyEntry> entries; // each existing rule as an entry, made once
    entries.reserve(existing.size());
    for (const Rule &r : existing)
        entries.append(PolicyEntry::of(r));
    QList<bool> matched(existing.size(), false);
    for (const PolicyEntry &e : file.rules) {
        bool kept = false;
        for (qsizetype i = 0; i < existing.size(); ++i) {
            const PolicyEntry &there = entries.at(i);
            if (!there.sameTarget(e))
                continue;
            if (there.sameRule(e) && !kept) {
                plan.keep.append({e, existing.at(i).id});
                matched[i] = kept = true;
            } else if (!there.sameRule(e) && !replace) {
                plan.conflicts.append({there, existing.at(i).id});
                matched[i] = true;
            }
        }
        if (!kept)
            plan.add.append(e);
    }
    if (replace)
        for (qsizetype i = 0; i < existing.size(); ++i)
            if (!matched.at(i))
                plan.remove.append({entries.at(i), existing.at(i).id});
    return plan;
}

} // namespace airlock

#include "agenttemplate.h"
#include "core/resourcedir.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace airlock {

namespace {

Error templateError(const QString &source, const QString &why)
{
    return Error{QStringLiteral("invalid agent template %1").arg(source), why, ErrorKind::InvalidParams};
}

bool validName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9][a-z0-9-]{0,31}$"));
    return re.match(name).hasMatch();
}

bool validEnvName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return re.match(name).hasMatch();
}

Result<QStringList> names(const QJsonObject &o, const char *key, const QString &source)
{
    QStringList out;
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined())
        return out;
    if (!v.isArray())
        return templateError(source, QStringLiteral("\"%1\" must be an array of names").arg(QLatin1String(key)));
    for (const QJsonValue &n : v.toArray()) {
        if (!validName(n.toString()))
            return templateError(source, QStringLiteral("\"%1\" holds an invalid name").arg(QLatin1String(key)));
        out << n.toString();
    }
    return out;
}

} // namespace

QMap<QString, QString> AgentTemplate::guestEnvironment() const
{
    QMap<QString, QString> out = env;
    if (!console.isEmpty())
        out.insert(QLatin1String(kConsoleVariable), console);
    return out;
}

Result<AgentTemplate> AgentTemplate::parse(const QByteArray &json, const QString &source)
{
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
    if (perr.error != QJsonParseError::NoError)
        return templateError(source, QStringLiteral("not valid JSON at offset %1: %2").arg(perr.offset).arg(perr.errorString()));
    if (!doc.isObject())
        return templateError(source, QStringLiteral("the document must be an object {name, description, image, ...}"));
    const QJsonObject o = doc.object();
    static const QSet<QString> known{QStringLiteral("name"), QStringLiteral("description"), QStringLiteral("image"),
                                     QStringLiteral("cpus"), QStringLiteral("memory_mib"), QStringLiteral("disk_gib"),
                                     QStringLiteral("presets"), QStringLiteral("opt_in_presets"), QStringLiteral("secret"),
                                     QStringLiteral("login"), QStringLiteral("env"), QStringLiteral("console"),
                                     QStringLiteral("policy")};
    for (const QString &k : o.keys())
        if (!known.contains(k))
            return templateError(source, QStringLiteral("unknown key '%1'").arg(k));
    AgentTemplate t;
    t.name = o.value(QLatin1String("name")).toString();
    if (!validName(t.name))
        return templateError(source, QStringLiteral("\"name\" must be lower-case letters, digits and '-'"));
    t.description = o.value(QLatin1String("description")).toString();
    if (t.description.isEmpty())
        return templateError(source, QStringLiteral("\"description\" is missing or empty"));
    t.image = o.value(QLatin1String("image")).toString();
    if (!validName(t.image))
        return templateError(source, QStringLiteral("\"image\" must name an image (e.g. agents)"));
    t.cpus = o.value(QLatin1String("cpus")).toInt(t.cpus);
    t.memoryMib = o.value(QLatin1String("memory_mib")).toInt(t.memoryMib);
    t.diskGib = o.value(QLatin1String("disk_gib")).toInt(t.diskGib);
    if (t.cpus < 1 || t.memoryMib < 64 || t.diskGib < 1)
        return templateError(source, QStringLiteral("\"cpus\", \"memory_mib\" and \"disk_gib\" must be positive (memory at least 64)"));
    Result<QStringList> presets = names(o, "presets", source);
    if (!presets)
        return presets.error();
    t.presets = *presets;
    Result<QStringList> optIn = names(o, "opt_in_presets", source);
    if (!optIn)
        return optIn.error();
    t.optInPresets = *optIn;
    const QJsonValue secret = o.value(QLatin1String("secret"));
    if (!secret.isUndefined()) {
        const QJsonObject s = secret.toObject();
        t.hasSecret = true;
        t.secret.name = s.value(QLatin1String("name")).toString();
        t.secret.envVar = s.value(QLatin1String("env")).toString();
        t.secret.header = s.value(QLatin1String("header")).toString();
        for (const QJsonValue &h : s.value(QLatin1String("hosts")).toArray())
            t.secret.hosts << h.toString();
        if (t.secret.name.isEmpty() || !validEnvName(t.secret.envVar) || t.secret.hosts.isEmpty() ||
            !t.secret.header.contains(QLatin1String("{}")) || s.size() != 4)
            return templateError(source, QStringLiteral("\"secret\" must be {name, env, hosts: [...], header} with {} in the header"));
    }
    if (const QJsonValue login = o.value(QLatin1String("login")); !login.isUndefined()) {
        Result<LoginSpec> spec = LoginSpec::fromJson(t.name, login.toObject(), source);
        if (!spec)
            return spec.error();
        t.login = *spec;
    }
    const QJsonObject env = o.value(QLatin1String("env")).toObject();
    for (auto it = env.begin(); it != env.end(); ++it) {
        if (!validEnvName(it.key()) || !it.value().isString() || it.value().toString().contains(QLatin1Char('\n')))
            return templateError(source, QStringLiteral("\"env\" must map variable names to one-line strings"));
        t.env.insert(it.key(), it.value().toString());
    }
    t.console = o.value(QLatin1String("console")).toString();
    if (t.console.contains(QLatin1Char('\n')))
        return templateError(source, QStringLiteral("\"console\" must be one line"));
    t.policy = o.value(QLatin1String("policy")).toString();
    // Inside the templates directory: a template names its own file, never one elsewhere.
    if (!o.value(QLatin1String("policy")).isUndefined() &&
        (t.policy.isEmpty() || QDir::isAbsolutePath(t.policy) || QDir::cleanPath(t.policy).startsWith(QLatin1String("..")) ||
         !t.policy.endsWith(QLatin1String(".json"))))
        return templateError(source, QStringLiteral("\"policy\" must name a .json policy file inside the templates directory "
                                                    "(e.g. policies/%1.json)").arg(t.name));
    return t;
}

Result<QList<AgentTemplate>> AgentTemplate::loadAll(const QString &dirPath)
{
    QDir dir(dirPath);
    if (!dir.exists())
        return Error{QStringLiteral("cannot read the agent templates"),
                     QStringLiteral("the directory %1 does not exist; set AIRLOCK_TEMPLATES_DIR").arg(dirPath)};
    QList<AgentTemplate> out;
    for (const QFileInfo &f : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QFile file(f.absoluteFilePath());
        if (!file.open(QIODevice::ReadOnly))
            return Error{QStringLiteral("cannot read agent template %1").arg(f.fileName()), file.errorString()};
        Result<AgentTemplate> t = parse(file.read(1 << 20), f.fileName());
        if (!t)
            return t.error();
        if (t->name != f.completeBaseName())
            return templateError(f.fileName(), QStringLiteral("\"name\" is '%1' but the file is %2; they must agree")
                                                   .arg(t->name, f.fileName()));
        if (!t->policy.isEmpty()) {
            t->policyPath = dir.absoluteFilePath(QDir::cleanPath(t->policy));
            if (!QFileInfo(t->policyPath).isFile())
                return templateError(f.fileName(), QStringLiteral("its policy file %1 does not exist").arg(t->policyPath));
        }
        out.append(*t);
    }
    return out;
}

Result<AgentTemplate> AgentTemplate::find(const QString &name, const QString &dir)
{
    Result<QList<AgentTemplate>> all = loadAll(dir);
    if (!all)
        return all.error();
    QStringList there;
    for (const AgentTemplate &t : *all) {
        if (t.name == name)
            return t;
        there << t.name;
    }
    return Error{QStringLiteral("no agent template named \"%1\"").arg(name),
                 QStringLiteral("the templates are: %1 (airlockctl template ls)").arg(there.join(QStringLiteral(", "))),
                 ErrorKind::NotFound};
}

QString AgentTemplate::directory() { return resourceDirectory("AIRLOCK_TEMPLATES_DIR", QStringLiteral("templates")); }

} // namespace airlock

#include "yamlreader.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <yaml.h>

#include <cmath>

namespace airlock {

namespace {

QString at(const yaml_mark_t &mark)
{
    return QStringLiteral("line %1, column %2").arg(mark.line + 1).arg(mark.column + 1);
}

// YAML 1.2 core schema for a plain (unquoted) scalar.
QJsonValue resolvePlain(const QString &text)
{
    static const QRegularExpression nullText(QStringLiteral("^(~|null|Null|NULL|)$"));
    static const QRegularExpression decimal(QStringLiteral("^[-+]?[0-9]+$"));
    static const QRegularExpression octal(QStringLiteral("^0o[0-7]+$"));
    static const QRegularExpression hex(QStringLiteral("^0x[0-9a-fA-F]+$"));
    static const QRegularExpression real(QStringLiteral("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"));
    if (nullText.match(text).hasMatch())
        return QJsonValue::Null;
    if (text == QLatin1String("true") || text == QLatin1String("True") || text == QLatin1String("TRUE"))
        return true;
    if (text == QLatin1String("false") || text == QLatin1String("False") || text == QLatin1String("FALSE"))
        return false;
    bool ok = false;
    if (decimal.match(text).hasMatch()) {
        const double v = text.toDouble(&ok);
        if (ok)
            return v;
    }
    if (octal.match(text).hasMatch() || hex.match(text).hasMatch()) {
        const qulonglong v = text.mid(2).toULongLong(&ok, text.at(1) == QLatin1Char('o') ? 8 : 16);
        if (ok)
            return double(v);
    }
    if (real.match(text).hasMatch()) {
        const double v = text.toDouble(&ok);
        if (ok && std::isfinite(v))
            return v;
    }
    return text;
}

// Walks libyaml's events depth first, one value per node.
class EventWalk {
public:
    EventWalk(const QByteArray &bytes, YamlLimits limits) : m_limits(limits)
    {
        yaml_parser_initialize(&m_parser);
        yaml_parser_set_encoding(&m_parser, YAML_UTF8_ENCODING);
        yaml_parser_set_input_string(&m_parser, reinterpret_cast<const unsigned char *>(bytes.constData()), size_t(bytes.size()));
    }
    ~EventWalk()
    {
        dropEvent();
        yaml_parser_delete(&m_parser);
    }
    EventWalk(const EventWalk &) = delete;
    EventWalk &operator=(const EventWalk &) = delete;

    Result<QJsonValue> document()
    {
        for (yaml_event_type_t expected : {YAML_STREAM_START_EVENT, YAML_DOCUMENT_START_EVENT}) {
            if (Status s = next(); !s)
                return s.error();
            if (m_event.type == YAML_STREAM_END_EVENT)
                return Error{QStringLiteral("the file is empty")};
            if (m_event.type != expected)
                return Error{QStringLiteral("unexpected content at %1").arg(at(m_event.start_mark))};
        }
        if (Status s = next(); !s)
            return s.error();
        Result<QJsonValue> root = node(0);
        if (!root)
            return root;
        if (Status s = next(); !s)
            return s.error(); // DOCUMENT_END
        if (Status s = next(); !s)
            return s.error();
        if (m_event.type != YAML_STREAM_END_EVENT)
            return Error{QStringLiteral("a second document starts at %1: a file holds one").arg(at(m_event.start_mark))};
        return root;
    }

private:
    void dropEvent()
    {
        if (m_haveEvent)
            yaml_event_delete(&m_event);
        m_haveEvent = false;
    }

    Status next()
    {
        dropEvent();
        if (!yaml_parser_parse(&m_parser, &m_event))
            return Error{QStringLiteral("not valid YAML at %1: %2")
                             .arg(at(m_parser.problem_mark), QString::fromUtf8(m_parser.problem ? m_parser.problem : "unreadable"))};
        m_haveEvent = true;
        return ok();
    }

    // The node whose first event is the current one; on return the current event is its last.
    Result<QJsonValue> node(int depth)
    {
        if (++m_nodes > m_limits.maxNodes)
            return Error{QStringLiteral("more than %1 values: the file is too large to be read").arg(m_limits.maxNodes)};
        if (depth > m_limits.maxDepth)
            return Error{QStringLiteral("values nested more than %1 deep at %2").arg(m_limits.maxDepth).arg(at(m_event.start_mark))};
        const yaml_mark_t where = m_event.start_mark;
        switch (m_event.type) {
        case YAML_ALIAS_EVENT:
            return Error{QStringLiteral("an alias (*name) at %1: write the value out instead").arg(at(where))};
        case YAML_SCALAR_EVENT: {
            if (m_event.data.scalar.anchor || m_event.data.scalar.tag)
                return Error{QStringLiteral("an anchor (&name) or tag (!tag) at %1: neither is read").arg(at(where))};
            const QString text = QString::fromUtf8(reinterpret_cast<const char *>(m_event.data.scalar.value),
                                                   qsizetype(m_event.data.scalar.length));
            return m_event.data.scalar.plain_implicit && m_event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? resolvePlain(text)
                                                                                                            : QJsonValue(text);
        }
        case YAML_SEQUENCE_START_EVENT: {
            if (m_event.data.sequence_start.anchor || (m_event.data.sequence_start.tag && !m_event.data.sequence_start.implicit))
                return Error{QStringLiteral("an anchor (&name) or tag (!tag) at %1: neither is read").arg(at(where))};
            QJsonArray items;
            for (;;) {
                if (Status s = next(); !s)
                    return s.error();
                if (m_event.type == YAML_SEQUENCE_END_EVENT)
                    return QJsonValue(items);
                Result<QJsonValue> item = node(depth + 1);
                if (!item)
                    return item;
                items.append(*item);
            }
        }
        case YAML_MAPPING_START_EVENT: {
            if (m_event.data.mapping_start.anchor || (m_event.data.mapping_start.tag && !m_event.data.mapping_start.implicit))
                return Error{QStringLiteral("an anchor (&name) or tag (!tag) at %1: neither is read").arg(at(where))};
            QJsonObject map;
            for (;;) {
                if (Status s = next(); !s)
                    return s.error();
                if (m_event.type == YAML_MAPPING_END_EVENT)
                    return QJsonValue(map);
                const yaml_mark_t keyAt = m_event.start_mark;
                if (m_event.type != YAML_SCALAR_EVENT || m_event.data.scalar.anchor || m_event.data.scalar.tag)
                    return Error{QStringLiteral("a key at %1 is not a plain text").arg(at(keyAt))};
                const QString key = QString::fromUtf8(reinterpret_cast<const char *>(m_event.data.scalar.value),
                                                      qsizetype(m_event.data.scalar.length));
                if (map.contains(key))
                    return Error{QStringLiteral("the key '%1' is there twice (again at %2)").arg(key, at(keyAt))};
                if (Status s = next(); !s)
                    return s.error();
                Result<QJsonValue> value = node(depth + 1);
                if (!value)
                    return value;
                map.insert(key, *value);
            }
        }
        default:
            return Error{QStringLiteral("unexpected content at %1").arg(at(where))};
        }
    }

    YamlLimits m_limits;
    yaml_parser_t m_parser{};
    yaml_event_t m_event{};
    bool m_haveEvent = false;
    int m_nodes = 0;
};

} // namespace

Result<QJsonValue> readYamlDocument(const QByteArray &bytes, YamlLimits limits)
{
    EventWalk walk(bytes, limits);
    return walk.document();
}

} // namespace airlock

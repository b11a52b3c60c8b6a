#pragma once
// One YAML document as JSON values, for files a person writes by hand (policy files) and
// the agent may have written: libyaml's event parser underneath, and only the part of YAML
// that JSON can say. Mappings with string keys become objects (a key twice is refused),
// sequences arrays; quoted scalars are strings, plain ones follow YAML 1.2's core schema
// (null, true/false, integers, floats, otherwise strings, so `NO` stays a string). Anchors,
// aliases, tags and a second document are refused: none is needed, and aliases are how a
// small file grows into a large one. Depth and node count are bounded.
#include "core/result.h"

#include <QByteArray>
#include <QJsonValue>

namespace airlock {

struct YamlLimits {
    int maxDepth = 16;
    int maxNodes = 100000;
};

// The document's root value; the error names the line and column and what was wrong there.
Result<QJsonValue> readYamlDocument(const QByteArray &bytes, YamlLimits limits = {});

} // namespace airlock

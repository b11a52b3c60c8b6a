#pragma once
// Secret kinds: the shapes of common credentials (a forge's git token, a registry's token) as
// data in resources/secret-kinds, so `secret set NAME --kind github` needs no --host or
// --header. A new forge is a new file.
#include "protocol/images.h"

#include <QList>
#include <QString>
#include <optional>

namespace airlock::ctl {

struct SecretKind {
    proto::TemplateSecret shape; // name, the variable tools read it from, hosts, header
    QString description;
};

// Every kind in the directory, by name; a file that does not parse is named in `error`.
QList<SecretKind> secretKinds(QString *error);
std::optional<SecretKind> findSecretKind(const QString &name, QString *error);

} // namespace airlock::ctl

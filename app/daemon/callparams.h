#pragma once
#include "api/apiserver.h"

#include <QString>

namespace airlock {

// A string param of `call`, "" when it is absent or not a string: for the sandbox service's
// methods whose params have no typed payload (app/protocol) yet.
inline QString stringParam(const Call &call, const char *key)
{
    return call.params().value(QLatin1String(key)).toString();
}

} // namespace airlock

#pragma once
#include "core/error.h"

#include <QtGlobal>

#include <optional>
#include <utility>

namespace airlock {

// Value or Error, without exceptions crossing Qt's event loop. Reading the value of an
// error is a bug in the caller; it stops the process with the error's message (qFatal, in
// every build type) instead of reading an empty optional.
template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}
    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const & { requireValue(); return *m_value; }
    T &value() & { requireValue(); return *m_value; }
    // Of a temporary, by value: `for (x : call().value())` would otherwise read a destroyed Result.
    T value() && { requireValue(); return std::move(*m_value); }
    const T &operator*() const & { return value(); }
    T &operator*() & { return value(); }
    T operator*() && { return std::move(*this).value(); }
    const T *operator->() const { return &value(); }
    T *operator->() { return &value(); }
    const Error &error() const { return m_error; }

private:
    void requireValue() const
    {
        if (!m_value) [[unlikely]]
            qFatal("the value of an error was read: %s", qUtf8Printable(m_error.message()));
    }

    std::optional<T> m_value;
    Error m_error;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok() { return Ok{}; }

} // namespace airlock

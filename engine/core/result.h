#pragma once
#include "core/error.h"

#include <optional>
#include <utility>

namespace airlock {

// Value or Error, without exceptions crossing Qt's event loop.
template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}
    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const { return *m_value; }
    T &value() { return *m_value; }
    const T &operator*() const { return *m_value; }
    T &operator*() { return *m_value; }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    const Error &error() const { return m_error; }

private:
    std::optional<T> m_value;
    Error m_error;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok() { return Ok{}; }

} // namespace airlock

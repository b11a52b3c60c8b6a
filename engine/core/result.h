#pragma once
#include <QString>
#include <optional>
#include <utility>

namespace airlock {

// An error a person can act on: what failed, and what to do about it.
struct Error {
    QString what;  // "cannot open the store /var/lib/airlock/airlock.db"
    QString why;   // "the file is not a SQLite database; move it aside or restore a backup"
    int code = 1;  // JSON-RPC application code (see app/api/jsonrpc.h)

    QString message() const { return why.isEmpty() ? what : what + QStringLiteral(": ") + why; }
};

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

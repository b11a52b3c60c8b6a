#pragma once
// Test helpers: network namespaces the test makes (and removes), commands run in them, and
// code run on a thread that has entered one.
#include <QString>
#include <QStringList>
#include <functional>

namespace airlock::test {

// Runs a program, waits (serving the Qt event loop meanwhile); returns its exit code or -1.
int run(const QString &program, const QStringList &args, QByteArray *out = nullptr, int timeoutMs = 30000,
        QByteArray *err = nullptr);
// `ip netns exec NS argv...`
int runIn(const QString &ns, const QStringList &argv, QByteArray *out = nullptr, int timeoutMs = 30000);
// Moves the calling thread (and the threads it starts later) into namespace `ns`.
bool enter(const QString &ns);
// Runs `work` on a new thread inside namespace `ns` and waits for it.
void inNamespace(const QString &ns, const std::function<void()> &work);

} // namespace airlock::test

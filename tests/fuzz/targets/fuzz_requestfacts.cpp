// libFuzzer target: what a guest's request line asks for (requestfacts.h) and the request
// rules that read it (requestpattern.h). Input: "METHOD TARGET\nPATTERN" where PATTERN is a
// path pattern, or "git:SERVICE:REPO".
#include "requestfacts.h"
#include "requestpattern.h"

#include <cstdint>
#include <cstdlib>

using namespace airlock;

static void check(bool condition)
{
    if (!condition)
        std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    const qsizetype newline = input.indexOf('\n');
    const QByteArrayView line = newline < 0 ? input : input.first(newline);
    const QByteArrayView patternText = newline < 0 ? QByteArrayView() : input.sliced(newline + 1);
    const qsizetype space = line.indexOf(' ');
    const QByteArrayView method = space < 0 ? QByteArrayView("GET") : line.first(space);
    const QByteArrayView target = space < 0 ? line : line.sliced(space + 1);

    const RequestFacts f = requestFacts(method, target);
    // Bounded: at most four readings, none longer than the target, the first is the path.
    check(!f.readings.isEmpty() && f.readings.size() <= 4 && f.readings.first() == f.path);
    for (const QByteArray &r : f.readings)
        check(r.size() <= target.size() + 1);
    check(f.gitReadings.size() <= 16);
    // The strict git reading is among the lax ones, and is never made of an ambiguous path.
    if (f.git.service != GitService::None) {
        check(!f.ambiguous && !f.git.repo.isEmpty());
        check(f.gitReadings.contains(f.git));
    }
    for (const GitRequest &g : f.gitReadings)
        check(g.service != GitService::None && !g.repo.isEmpty());
    // Normalizing twice changes nothing.
    if (!f.ambiguous)
        check(requestFacts(method, f.path).path == f.path);

    RequestRule rule;
    if (patternText.startsWith("git:")) {
        const QList<QByteArray> parts = patternText.toByteArray().split(':');
        rule.git = QString::fromLatin1(parts.value(1));
        rule.repo = QString::fromLatin1(parts.value(2));
    } else {
        rule.path = QString::fromLatin1(patternText);
        if (!(data[0] & 1))
            rule.method = QString::fromLatin1(method);
    }
    if (const Result<RequestPattern> p = RequestPattern::parse(rule)) {
        // A deny rule sees at least what the allow rule of the same pattern sees.
        if (p->matches(f, true))
            check(p->matches(f, false));
        // Parsing what it reads back gives the same pattern.
        const Result<RequestPattern> again = RequestPattern::parse(p->rule());
        check(again && again->rule() == p->rule());
    }
    check(globMatch("*", target, Qt::CaseSensitive));
    if (!target.contains('*'))
        check(globMatch(target, target, Qt::CaseSensitive));
    return 0;
}

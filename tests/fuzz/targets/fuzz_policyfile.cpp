// libFuzzer target: the policy file reader (broker/policyfile.h), JSON and YAML
// (broker/yamlreader.h). A policy file sits in the project the guest edits, so its bytes are
// the guest's.
#include "policyfile.h"

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
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    const Result<PolicyFile> file = parsePolicyFile(input, QStringLiteral("fuzz.json"));
    if (!file) {
        check(!file.error().message().isEmpty());
        return 0;
    }
    // Accepted: bounded, every rule one a person could add, and written out it reads back the same.
    check(file->rules.size() <= kMaxPolicyRules);
    for (const PolicyEntry &e : file->rules) {
        check(!e.host.isEmpty() && e.port >= 0 && e.port <= 65535);
        for (const QString &text : {e.why, e.from, e.host})
            for (QChar c : text)
                check(c.category() != QChar::Other_Control && c.category() != QChar::Other_Format);
        check(Policy::validateNew(e.toRule(QStringLiteral("fuzz"), 0, {})).ok());
    }
    // Either form reads back as the same file.
    for (PolicyFileFormat format : {PolicyFileFormat::Json, PolicyFileFormat::Yaml}) {
        const QByteArray written = writePolicyFile(*file, format);
        const Result<PolicyFile> again = parsePolicyFile(written, QStringLiteral("written"));
        check(again.ok());
        check(writePolicyFile(*again, format) == written);
    }
    // Importing it twice: the second time nothing is added.
    QList<Rule> existing;
    for (qsizetype i = 0; i < file->rules.size(); ++i) {
        Rule r = file->rules.at(i).toRule(QStringLiteral("fuzz"), 0, {});
        r.id = i + 1;
        existing.append(r);
    }
    const PolicyImportPlan plan = planPolicyImport(*file, existing, false);
    check(plan.add.isEmpty() && plan.conflicts.isEmpty() && plan.keep.size() == file->rules.size());
    return 0;
}

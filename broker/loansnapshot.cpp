#include "loansnapshot.h"

namespace airlock {

SandboxLoans LoanSnapshot::of(const QString &sandbox) const
{
    const std::shared_ptr<const Map> map = m_current.load();
    return map->value(sandbox);
}

void LoanSnapshot::replace(Map all)
{
    std::lock_guard lock(m_writer);
    m_current.store(std::make_shared<const Map>(std::move(all)));
}

void LoanSnapshot::replaceSandbox(const QString &name, SandboxLoans loans)
{
    std::lock_guard lock(m_writer);
    Map next = *m_current.load();
    if (loans.hosts.isEmpty() && loans.placeholders.isEmpty())
        next.remove(name);
    else
        next.insert(name, std::move(loans));
    m_current.store(std::make_shared<const Map>(std::move(next)));
}

} // namespace airlock

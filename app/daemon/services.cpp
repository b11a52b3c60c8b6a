#include "daemon/services.h"
#include "daemon/daemon.h"
#include "daemon/egressservice.h"
#include "daemon/policyservice.h"
#include "daemon/ruleservice.h"
#include "daemon/sandboxservice.h"
#include "daemon/secretbridge.h"
#include "daemon/vaultservice.h"

#include <chrono>
#include <future>
#include <memory>

namespace airlock {

std::vector<std::unique_ptr<Service>> makeServices(Daemon &daemon)
{
    std::vector<std::unique_ptr<Service>> services;
    auto rules = std::make_unique<RuleService>(daemon);
    // Egress decides with the rule service's Policy and adds rules (egress.decide) through it.
    // The sandbox engine reaches it through EgressControl (sandboxUp/sandboxDown/reconcile).
    auto egress = std::make_unique<EgressService>(daemon.config(), daemon.store(), daemon.api(), rules->policy(),
                                                  [r = rules.get()](auto job) { r->runOnStore(std::move(job)); });
    auto sandboxes = std::make_unique<SandboxService>(daemon.config(), daemon.api(), egress.get());
    auto vault = std::make_unique<VaultService>(daemon);
    // Secrets end to end: lent at create, CA in the guest, bound hosts intercepted (secretbridge.h).
    auto bridge = std::make_unique<SecretBridge>(*vault, *egress, daemon.api());
    egress->setFlowHandoff(bridge.get());
    // Requests of flows decided one by one are decided by the same policy as every flow.
    vault->setRequestDecider([e = egress.get()](const QString &sandbox, const QString &host, quint16 port, const RequestFacts &request) {
        return e->decideRequest(sandbox, host, port, request);
    });
    // ...and those no rule answers are asked like held flows, as pending items of the broker.
    vault->setRequestAsking(RequestAsking{[e = egress.get()](const HeldRequest &request, std::function<void(RequestVerdict)> answer) {
                                              return e->askRequest(request, std::move(answer));
                                          },
                                          [e = egress.get()](qint64 eventId) { e->leaveRequest(eventId); }});
    sandboxes->setSecretBridge(bridge.get());
    sandboxes->setRulePolicy(&rules->policy()); // a template's presets become the sandbox's rules
    sandboxes->setRuleInheritance([r = rules.get()](const QString &origin, const QString &fork) -> Status {
        auto done = std::make_shared<std::promise<Status>>();
        std::future<Status> result = done->get_future();
        r->runOnStore([done, origin, fork](RuleStore &store) {
            Result<int> copied = store.copySandboxRules(origin, fork);
            done->set_value(copied ? Status(ok()) : Status(copied.error()));
        });
        if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
            return Error{QStringLiteral("the rule service did not answer"), QStringLiteral("the daemon is shutting down; try again")};
        return result.get();
    });
    // Policy files read and write the rules on the rule service's thread, and learn from
    // the broker's event log.
    auto policies = std::make_unique<PolicyService>(daemon.api().policy(), [r = rules.get()](auto job) { r->runOnStore(std::move(job)); },
                                                    &egress->eventLog());
    services.push_back(std::move(rules));
    services.push_back(std::move(policies));
    services.push_back(std::move(vault));
    services.push_back(std::move(egress));
    services.push_back(std::move(bridge));
    services.push_back(std::move(sandboxes)); // after egress: it starts (and stops) inside the broker's lifetime
    return services;
}

} // namespace airlock

// airlockctl: the command-line twin of every GUI action; the commands are registered in app/ctl/commands_*.cpp.
#include "ctl/command.h"

#include <QCoreApplication>
#include <csignal>

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("airlockctl"));
    auto &registry = airlock::ctl::Registry::instance();
    airlock::ctl::registerBaseCommands(registry);
    airlock::ctl::registerRuleCommands(registry);
    airlock::ctl::registerPolicyCommands(registry);
    airlock::ctl::registerImageCommands(registry);
    airlock::ctl::registerSandboxCommands(registry);
    airlock::ctl::registerSnapshotCommands(registry);
    airlock::ctl::registerPortCommands(registry);
    airlock::ctl::registerEgressCommands(registry);
    airlock::ctl::registerConsoleCommands(registry);
    airlock::ctl::registerVaultCommands(registry);
    airlock::ctl::registerSecretCommands(registry);
    airlock::ctl::registerWorkspaceCommands(registry);
    airlock::ctl::registerTemplateCommands(registry);
    airlock::ctl::registerRunCommands(registry);
    airlock::ctl::registerSignInCommands(registry);
    airlock::ctl::registerRemoteCommands(registry);
    return registry.run(QCoreApplication::arguments().mid(1));
}

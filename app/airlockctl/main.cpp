// airlockctl: the command-line twin of every GUI action (docs: cli.md).
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
    airlock::ctl::registerImageCommands(registry);
    airlock::ctl::registerSandboxCommands(registry);
    airlock::ctl::registerSnapshotCommands(registry);
    airlock::ctl::registerEgressCommands(registry);
    airlock::ctl::registerConsoleCommands(registry);
    airlock::ctl::registerVaultCommands(registry);
    airlock::ctl::registerSecretCommands(registry);
    airlock::ctl::registerWorkspaceCommands(registry);
    return registry.run(QCoreApplication::arguments().mid(1));
}

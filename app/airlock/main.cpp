// airlock: the desktop app. All of it lives in airlock_ui; this only wires the pieces.
#include "api/remotehosts.h"
#include "connection/daemonconnection.h"
#include "core/config.h"
#include "views/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>
#include <cstdio>
#include <memory>

using namespace airlock;

namespace {
// --version and --help must work without a display, so they get a QCoreApplication.
bool wantsTextOnly(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--version" || a == "-v" || a == "--help" || a == "-h" || a == "--help-all")
            return true;
    }
    return false;
}
} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> appHolder(wantsTextOnly(argc, argv) ? new QCoreApplication(argc, argv)
                                                                           : new QApplication(argc, argv));
    QCoreApplication &app = *appHolder;
    QApplication::setApplicationName(QStringLiteral("airlock"));
    QApplication::setApplicationDisplayName(QStringLiteral("Airlock"));
    QApplication::setApplicationVersion(QStringLiteral(AIRLOCK_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("airlock"));
    // The installed icon (hicolor theme); Wayland takes it from the desktop file instead.
    if (qobject_cast<QApplication *>(&app))
        QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("airlock")));

    // Our own strings, then Qt's (dialog buttons), for the user's locale.
    QTranslator ours, qt;
    // English is the fallback (it carries the plural forms of the source strings).
    if (ours.load(QLocale(), QStringLiteral("airlock"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        || ours.load(QStringLiteral(":/i18n/airlock_en.qm")))
        QApplication::installTranslator(&ours);
    if (qt.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(&qt);

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Airlock: AI coding agents in microVMs, every connection approved by you."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption socket(QStringLiteral("socket"),
                                    QApplication::translate("main", "airlockd's socket (default: $AIRLOCK_SOCKET, else %1).")
                                        .arg(defaultSocketPath()),
                                    QStringLiteral("path"));
    const QCommandLineOption noStart(QStringLiteral("no-start-daemon"),
                                     QApplication::translate("main", "Do not start airlockd when none is running."));
    const QCommandLineOption sandbox(QStringLiteral("sandbox"), QApplication::translate("main", "Select this sandbox once connected."),
                                     QStringLiteral("name"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QApplication::translate("main", "Open this tab: terminal, network, snapshots, ports, secrets or settings."),
                                 QStringLiteral("tab"));
    const QCommandLineOption remote(QStringLiteral("remote"),
                                    QApplication::translate("main", "Connect to this remote host (default: $AIRLOCK_REMOTE, else the "
                                                                    "one `airlockctl remote use` chose; local: this computer)."),
                                    QStringLiteral("name"));
    parser.addOptions({socket, remote, noStart, sandbox, tab});
    parser.process(app);
    if (parser.isSet(socket) && parser.isSet(remote)) {
        std::fprintf(stderr, "airlock: --remote and --socket name two daemons: give one\n");
        return 2;
    }

    const QString socketPath = parser.isSet(socket) ? QDir::current().absoluteFilePath(parser.value(socket)) : defaultSocketPath();
    ui::DaemonConnection connection(socketPath);
    connection.setDaemonProgram(ui::DaemonConnection::defaultDaemonProgram());
    connection.setAutoStart(!parser.isSet(noStart));
    ui::MainWindow window(&connection);
    if (parser.isSet(sandbox))
        window.selectSandboxWhenListed(parser.value(sandbox));
    if (parser.isSet(tab) && !window.showTab(parser.value(tab))) {
        std::fprintf(stderr, "airlock: --tab %s : use terminal, network, snapshots, ports, secrets or settings\n", qPrintable(parser.value(tab)));
        return 2;
    }
    // Where airlockctl would go: the two agree on which daemon is "the" daemon.
    const QString host = window.remoteHosts()->chosen(parser.isSet(remote) ? std::optional(parser.value(remote)) : std::nullopt,
                                                      parser.isSet(socket));
    if (!host.isEmpty() && !window.connectToHost(host)) {
        std::fprintf(stderr, "airlock: there is no remote host called %s: see `airlockctl remote ls`, or start with --remote local\n",
                     qPrintable(host));
        return 2;
    }
    window.show();
    if (host.isEmpty())
        connection.start();
    return QApplication::exec();
}

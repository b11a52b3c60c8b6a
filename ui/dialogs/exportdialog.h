#pragma once
#include "api/daemonaddress.h"

#include <QDialog>
#include <QJsonObject>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace airlock::ui {

// Export changes: the sandbox's new commits in /workspace to a bundle file or a directory of
// patches on this computer, for the user to review and apply (airlockctl export's twin; the
// same app/workspace/ code runs on a worker thread). Never writes into a repository.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const DaemonAddress &daemon, const QString &sandbox, QWidget *parent = nullptr);

    QComboBox *formatBox() const { return m_format; }
    QLineEdit *destinationEdit() const { return m_dest; }
    QLabel *messageLabel() const { return m_message; }
    QPushButton *exportButton() const { return m_export; }
    // Set once an export succeeded: {sandbox, format, base, head, commits, files, path, ...}.
    QJsonObject lastExport() const { return m_result; }

    // Starts the export (the Export button).
    void startExport();

Q_SIGNALS:
    void exportFinished(bool ok);

private:
    void chooseDestination();
    void suggestDestination();

    DaemonAddress m_daemon;
    QString m_sandbox;
    QComboBox *m_format;
    QLineEdit *m_dest;
    QPushButton *m_browse;
    QProgressBar *m_progress;
    QLabel *m_message;
    QPushButton *m_export;
    QDialogButtonBox *m_buttons;
    QJsonObject m_result;
};

} // namespace airlock::ui

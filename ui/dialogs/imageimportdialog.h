#pragma once
#include "protocol/events.h"

#include <QDialog>
#include <QPointer>

class QComboBox;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class DaemonConnection;
class JobStatus;

// Imports a person's OCI image (a layout directory or a docker-archive file) as a guest image:
// the upload runs on a WorkspaceJob (app/workspace/imageupload.h, what airlockctl image import
// runs), the import's own progress comes as "image" events. The dialog stays open until it ends.
class ImageImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImageImportDialog(DaemonConnection *connection, QWidget *parent = nullptr);

    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *kindBox() const { return m_kind; }
    QLineEdit *pathEdit() const { return m_path; }
    QPushButton *importButton() const { return m_import; }
    QProgressBar *progressBar() const;
    QString message() const;
    bool isImporting() const { return !m_importing.isEmpty(); }

    void reject() override;

private:
    void browse();
    void startImport();
    void onProgress(const proto::ImageProgress &progress);
    void setImporting(const QString &name);

    QPointer<ApiClient> m_client;
    QLineEdit *m_name, *m_path;
    QComboBox *m_kind;
    JobStatus *m_status;
    QPushButton *m_browse, *m_import, *m_close;
    QString m_importing; // the image being imported, empty when idle
};

} // namespace airlock::ui

#pragma once
#include "protocol/events.h"

#include <QDialog>
#include <QPointer>

class QLineEdit;
class QProgressBar;
class QPushButton;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class DaemonConnection;
class JobStatus;

// Builds an image from a recipe (image.build) with the daemon's progress ("image" events)
// and a Cancel that really stops the build (image.cancel); nothing of a cancelled build is kept.
class ImageBuildDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImageBuildDialog(DaemonConnection *connection, QWidget *parent = nullptr);

    QLineEdit *recipeEdit() const { return m_recipe; }
    QLineEdit *nameEdit() const { return m_name; }
    QPushButton *buildButton() const { return m_build; }
    QPushButton *cancelButton() const { return m_cancel; }
    QProgressBar *progressBar() const;
    QString message() const;
    bool isBuilding() const { return !m_building.isEmpty(); }

    void reject() override;

private:
    void build();
    void cancelBuild();
    void onProgress(const proto::ImageProgress &progress);
    void setBuilding(const QString &name);

    QPointer<ApiClient> m_client;
    QLineEdit *m_recipe, *m_name;
    JobStatus *m_status;
    QPushButton *m_build, *m_cancel, *m_close;
    QString m_building; // the image being built, empty when idle
};

} // namespace airlock::ui

#pragma once
#include "protocol/ports.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class AvailabilityStack;

class PortsModel;

// The Ports tab: the sandbox's guest ports reached from this machine's 127.0.0.1 (host to
// guest only), with Expose, Open in browser and Remove.
class PortsView : public QWidget {
    Q_OBJECT
public:
    explicit PortsView(ApiClient *client, QWidget *parent = nullptr);
    void setSandbox(const QString &sandbox);
    void reload();
    // A "port" event: shown when it is this sandbox's.
    void onPortsChanged(const proto::PortsChanged &ports);

    PortsModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QSpinBox *guestPortBox() const { return m_guestPort; }
    QSpinBox *hostPortBox() const { return m_hostPort; }
    QPushButton *exposeButton() const { return m_expose; }
    QPushButton *openButton() const { return m_open; }
    QPushButton *removeButton() const { return m_remove; }
    QString message() const;
    QString lastOpened() const { return m_lastOpened; }

Q_SIGNALS:
    // "Open in browser": the window hands the URL to the desktop (tests listen instead).
    void openRequested(const QString &url);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void expose();
    void openInBrowser();
    void remove();
    void updateButtons();
    void report(const QString &text, bool failed);

    QPointer<ApiClient> m_client;
    QString m_sandbox;
    PortsModel *m_model;
    AvailabilityStack *m_stack;
    QTableView *m_table;
    QSpinBox *m_guestPort, *m_hostPort;
    QPushButton *m_expose, *m_open, *m_remove;
    QLabel *m_message;
    QString m_lastOpened;
    QTimer m_refresh;
};

} // namespace airlock::ui

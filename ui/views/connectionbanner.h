#pragma once
#include <QFrame>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace airlock::ui {

class DaemonConnection;

// Shown above the main window's content whenever airlock is not connected: what is
// happening or what went wrong, what to do, Retry, and airlockd's own words on demand.
class ConnectionBanner : public QFrame {
    Q_OBJECT
public:
    explicit ConnectionBanner(DaemonConnection *connection, QWidget *parent = nullptr);
    QString text() const;

private:
    void refresh();

    DaemonConnection *m_connection;
    QLabel *m_icon;
    QLabel *m_reason;
    QLabel *m_hint;
    QPushButton *m_retry;
    QPushButton *m_detailsButton;
    QPlainTextEdit *m_details;
};

} // namespace airlock::ui

#pragma once
#include <QDialog>
#include <QPointer>

class QLabel;
class QLineEdit;
class QTableWidget;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// The secrets manager: names, hosts and header templates are listed; a value can be set
// (or replaced) but never read back (secret.set / secret.list / secret.remove).
class SecretsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SecretsDialog(ApiClient *client, QWidget *parent = nullptr);

private:
    void reload();
    void save();
    void removeSelected();

    QPointer<ApiClient> m_client;
    QTableWidget *m_table;
    QLineEdit *m_name, *m_hosts, *m_header, *m_value;
    QLabel *m_message;
};

} // namespace airlock::ui

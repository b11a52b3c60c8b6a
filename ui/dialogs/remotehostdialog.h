#pragma once
#include <QDialog>

class QLabel;
class QLineEdit;

namespace airlock { class RemoteHosts; }

namespace airlock::ui {

// Adds an airlockd on another machine: a name, the ssh destination, and the command that
// carries the API (filled in as `ssh DESTINATION airlockctl proxy`, editable for jump hosts,
// ports or a different transport).
class RemoteHostDialog : public QDialog {
    Q_OBJECT
public:
    explicit RemoteHostDialog(RemoteHosts *hosts, QWidget *parent = nullptr);
    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *destinationEdit() const { return m_destination; }
    QLineEdit *commandEdit() const { return m_command; }
    QString errorText() const;
    void accept() override;

private:
    RemoteHosts *m_hosts;
    QLineEdit *m_name, *m_destination, *m_command;
    QLabel *m_error;
    bool m_commandEdited = false;
};

} // namespace airlock::ui

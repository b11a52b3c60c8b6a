#pragma once
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace airlock { class ApiClient; }

namespace airlock::ui {

class ElidedLabel;

// One-click Allow / Deny for a pending or denied attempt, with the choices firewall
// users expect: which sandboxes (this / all), what matches (host / *.domain / IP) and
// for how long (once / until the sandbox stops / minutes / forever). Sends egress.decide.
class DecisionBar : public QWidget {
    Q_OBJECT
public:
    explicit DecisionBar(ApiClient *client, QWidget *parent = nullptr);

    // `process`: the guest's report on which process asks (shown as its claim), "" if none.
    // `request`: "POST /repos/x" for a held single request (its rule then names that request,
    // or the whole host when chosen), "" for a connection.
    void setTarget(qint64 id, const QString &sandbox, const QString &host, const QString &ip, int port,
                   const QString &process = {}, const QString &request = {});
    // The guest's report arrived after the target was set: only the label changes.
    void setProcess(const QString &process);
    QString processText() const;
    void clearTarget();
    qint64 targetId() const { return m_id; }
    QPushButton *allowButton() const { return m_allow; }
    QPushButton *denyButton() const { return m_deny; }

    // The egress.decide parameters for the current choices.
    QJsonObject decideParams(const QString &action) const;

Q_SIGNALS:
    void decided(qint64 id, const QString &action);

private:
    void decide(const QString &action);
    void updateEnabled();

    QPointer<ApiClient> m_client;
    qint64 m_id = 0;
    bool m_isRequest = false; // the target is a held single request
    QLabel *m_target;
    ElidedLabel *m_requestText; // a held request's method and path: long, so it gives way first
    ElidedLabel *m_process;
    QPushButton *m_allow, *m_deny;
    QComboBox *m_lifetime, *m_match, *m_scope;
    QCheckBox *m_rawTcp = nullptr;
    QLabel *m_message;
};

} // namespace airlock::ui

#pragma once
#include <QPointer>
#include <QToolButton>

namespace airlock { class ApiClient; }

namespace airlock::ui {

// "Policy" in the Network tab: save what this sandbox's attempts were allowed and denied as
// a policy file (policy.learn), export its lasting rules (policy.export), or import a file
// after seeing the difference (PolicyImportDialog). The menu asks for a path; the methods
// below take one, so the same steps run without a file dialog.
class PolicyButton : public QToolButton {
    Q_OBJECT
public:
    explicit PolicyButton(ApiClient *client, QWidget *parent = nullptr);

    // Without a sandbox there is nothing to save or import into: the button is off.
    void setSandbox(const QString &sandbox)
    {
        m_sandbox = sandbox;
        setEnabled(!sandbox.isEmpty());
    }

    enum class Source { SessionDecisions, Rules };
    void saveTo(Source source, const QString &path);
    // Reads the file and opens the difference; the dialog is returned for tests, or null
    // (and `finished` says why) when the file cannot be read.
    class PolicyImportDialog *importFrom(const QString &path);

Q_SIGNALS:
    // What happened, for the status line: "Saved 4 rules to …", "Nothing was changed: …".
    void finished(const QString &message);

private:
    void askPath(Source source);

    QPointer<ApiClient> m_client;
    QString m_sandbox;
};

} // namespace airlock::ui

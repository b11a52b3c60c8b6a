#pragma once
#include <QList>
#include <QPointer>
#include <QToolButton>

class QAction;

namespace airlock { class ApiClient; }

namespace airlock::ui {

// "Policy" in the Network tab: save what this sandbox's attempts were allowed and denied as
// a policy file (policy.learn), export its lasting rules or the global ones (policy.export),
// or import a file into either after seeing the difference (PolicyImportDialog). A file whose
// name ends in .yaml or .yml is written as YAML, any other as JSON. The menu asks for a path;
// the methods below take one, so the same steps run without a file dialog.
class PolicyButton : public QToolButton {
    Q_OBJECT
public:
    explicit PolicyButton(ApiClient *client, QWidget *parent = nullptr);

    // Without a sandbox only the global rules can be exported or imported into.
    void setSandbox(const QString &sandbox);
    QList<QAction *> sandboxActions() const { return m_sandboxActions; }

    enum class Source { SessionDecisions, Rules, GlobalRules };
    void saveTo(Source source, const QString &path);
    enum class Into { Sandbox, GlobalRules };
    // Reads the file and opens the difference; the dialog is returned for tests, or null
    // (and `finished` says why) when the file cannot be read.
    class PolicyImportDialog *importFrom(const QString &path, Into into = Into::Sandbox);

Q_SIGNALS:
    // What happened, for the status line: "Saved 4 rules to …", "Nothing was changed: …".
    void finished(const QString &message);

private:
    void askPath(Source source);
    void askImport(Into into);

    QPointer<ApiClient> m_client;
    QString m_sandbox;
    QList<QAction *> m_sandboxActions;
};

} // namespace airlock::ui

#pragma once
#include <QObject>
#include <QString>

class QSplitter;
class QTabWidget;
class QWidget;

namespace airlock::ui {

// The watch layout: the agent's terminal and its live attempts side by side in the first
// tab instead of two tabs, so a person follows the agent and answers it without switching.
// The other tabs stay; switching back puts the two pages where they were, with their titles.
class WatchLayout : public QObject {
    Q_OBJECT
public:
    // `terminal` and `network` must be the first two tabs of `tabs`.
    WatchLayout(QTabWidget *tabs, QWidget *terminal, QWidget *network, QObject *parent = nullptr);

    bool isOn() const { return m_on; }
    void setOn(bool on);
    // The tab index showing `page` in either layout; -1 if no tab shows it.
    int tabOf(const QWidget *page) const;

private:
    QTabWidget *m_tabs;
    QWidget *m_terminal, *m_network;
    QString m_terminalTitle, m_networkTitle;
    QSplitter *m_split;
    bool m_on = false;
};

} // namespace airlock::ui

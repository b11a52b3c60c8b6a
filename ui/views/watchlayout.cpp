#include "views/watchlayout.h"

#include <QSplitter>
#include <QTabWidget>

namespace airlock::ui {

WatchLayout::WatchLayout(QTabWidget *tabs, QWidget *terminal, QWidget *network, QObject *parent)
    : QObject(parent), m_tabs(tabs), m_terminal(terminal), m_network(network),
      m_terminalTitle(tabs->tabText(tabs->indexOf(terminal))), m_networkTitle(tabs->tabText(tabs->indexOf(network))),
      m_split(new QSplitter(Qt::Horizontal, tabs)) // in the tab widget's tree whichever layout is on
{
    m_split->setObjectName(QStringLiteral("watchLayout"));
    m_split->setChildrenCollapsible(false);
    m_split->hide();
}

void WatchLayout::setOn(bool on)
{
    if (on == m_on)
        return;
    m_on = on;
    QWidget *current = m_tabs->currentWidget();
    m_tabs->setUpdatesEnabled(false);
    if (on) {
        const bool watching = current == m_terminal || current == m_network;
        m_tabs->removeTab(m_tabs->indexOf(m_network));
        m_tabs->removeTab(m_tabs->indexOf(m_terminal));
        m_split->addWidget(m_terminal);
        m_split->addWidget(m_network);
        // The terminal keeps its columns; the attempts take the rest.
        m_split->setStretchFactor(0, 3);
        m_split->setStretchFactor(1, 2);
        m_tabs->insertTab(0, m_split, tr("&Watch"));
        m_tabs->setTabToolTip(0, tr("The terminal and the live attempts of this sandbox side by side (View > Watch layout)"));
        m_terminal->show();
        m_network->show();
        // Stretch factors only share space the splitter gains later; the first split is set.
        const int width = qMax(m_tabs->width(), 500);
        m_split->setSizes({width * 3 / 5, width - width * 3 / 5});
        if (watching)
            m_tabs->setCurrentIndex(0);
    } else {
        const bool watching = current == m_split;
        m_tabs->removeTab(m_tabs->indexOf(m_split));
        m_split->hide();
        m_tabs->insertTab(0, m_terminal, m_terminalTitle);
        m_tabs->insertTab(1, m_network, m_networkTitle);
        if (watching)
            m_tabs->setCurrentIndex(0);
    }
    m_tabs->setUpdatesEnabled(true);
}

int WatchLayout::tabOf(const QWidget *page) const
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (QWidget *tab = m_tabs->widget(i); tab == page || tab->isAncestorOf(page))
            return i;
    return -1;
}

} // namespace airlock::ui

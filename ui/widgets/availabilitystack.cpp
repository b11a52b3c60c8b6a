#include "widgets/availabilitystack.h"
#include "common/replies.h"

#include <QLabel>

namespace airlock::ui {

AvailabilityStack::AvailabilityStack(const QString &notAvailable, QWidget *parent)
    : QStackedWidget(parent), m_page(new QWidget(this)), m_notAvailable(new QLabel(notAvailable, this)), m_defaultText(notAvailable)
{
    m_notAvailable->setAlignment(Qt::AlignCenter);
    m_notAvailable->setWordWrap(true);
    addWidget(m_page);
    addWidget(m_notAvailable);
}

void AvailabilityStack::showPage() { setCurrentWidget(m_page); }

void AvailabilityStack::showNotAvailable(const QString &why)
{
    m_notAvailable->setText(why.isEmpty() ? m_defaultText : why);
    setCurrentWidget(m_notAvailable);
}

bool AvailabilityStack::missing(const ApiClient::Reply &reply)
{
    if (isMethodMissing(reply)) {
        showNotAvailable();
        return true;
    }
    showPage();
    return false;
}

} // namespace airlock::ui

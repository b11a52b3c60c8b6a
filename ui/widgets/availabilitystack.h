#pragma once
#include "api/apiclient.h"

#include <QStackedWidget>

class QLabel;

namespace airlock::ui {

// A sandbox tab's two faces: its page, or a centred line saying that the airlockd it is
// connected to (an older or a remote one) does not offer what the tab needs.
class AvailabilityStack : public QStackedWidget {
    Q_OBJECT
public:
    AvailabilityStack(const QString &notAvailable, QWidget *parent);
    QWidget *page() const { return m_page; }
    void showPage();
    // `why` replaces the line given at construction when not empty.
    void showNotAvailable(const QString &why = {});
    // For the reply of the method the tab lists with: the not-available face when the daemon
    // lacks the method (true), the page otherwise.
    bool missing(const ApiClient::Reply &reply);

private:
    QWidget *m_page;
    QLabel *m_notAvailable;
    QString m_defaultText;
};

} // namespace airlock::ui

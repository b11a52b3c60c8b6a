#pragma once
// One line of plain text that gives way when space is short: it shows as much as fits,
// ending in "…" (the decision bar's process report, next to choices that must stay whole).
#include <QLabel>

namespace airlock::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr);
    void setFullText(const QString &text);
    const QString &fullText() const { return m_full; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void elide();
    QString m_full;
};

} // namespace airlock::ui

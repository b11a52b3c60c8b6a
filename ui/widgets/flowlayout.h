#pragma once
#include <QLayout>
#include <QList>

namespace airlock::ui {

// Lays its widgets out left to right and starts a new line when the next one does not fit,
// so a bar of controls stays usable in a narrow pane instead of forcing the pane wide.
// An item whose horizontal policy expands shares what is left of its line.
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget *parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override { return Qt::Horizontal; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override; // everything on one line
    void setGeometry(const QRect &rect) override;

private:
    int gap() const;
    // Places the items in `rect` (only measures when `place` is false); returns the height used.
    int arrange(const QRect &rect, bool place) const;

    QList<QLayoutItem *> m_items;
};

} // namespace airlock::ui

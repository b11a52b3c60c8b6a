#pragma once
#include <QAbstractScrollArea>
#include <QColor>
#include <deque>
#include <vector>

struct VTerm;
struct VTermScreen;

namespace airlock::ui {

// A terminal emulator widget: libvterm parses the bytes, this widget draws the cells,
// keeps the scrollback and turns key presses into bytes (sendBytes). It knows nothing
// of consoles or the daemon, so tests feed it bytes directly.
class TerminalWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    struct Cell {
        QString text;
        QColor fg, bg;
        bool bold = false, italic = false, underline = false, reverse = false;
        bool defaultFg = true, defaultBg = true;
    };

    explicit TerminalWidget(QWidget *parent = nullptr);
    ~TerminalWidget() override;

    void feed(const QByteArray &bytes);
    void reset();

    int rows() const { return m_rows; }
    int columns() const { return m_cols; }
    // Forces a size (tests; the widget otherwise sizes itself from its geometry).
    void setTerminalSize(int rows, int cols);

    // The visible screen (row 0 = top of the live screen, ignoring scrolling).
    Cell cellAt(int row, int col) const;
    QString lineText(int row) const;
    QPoint cursorPosition() const { return m_cursor; } // x = column, y = row
    bool cursorVisible() const { return m_cursorVisible; }
    int scrollbackLines() const { return int(m_scrollback.size()); }
    QString scrollbackLineText(int fromTop) const;
    QString title() const { return m_title; }
    void setScrollbackLimit(int lines) { m_scrollbackLimit = lines; }

Q_SIGNALS:
    void sendBytes(const QByteArray &bytes);
    void terminalSizeChanged(int rows, int cols);
    void titleChanged(const QString &title);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool focusNextPrevChild(bool next) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    friend struct TerminalCallbacks;
    struct StoredCell { uint32_t ch = 0; Cell cell; };
    using Line = std::vector<StoredCell>;

    Cell convert(const void *vtermCell) const;
    void pushLine(int cols, const void *cells);
    bool popLine(int cols, void *cells);
    void updateScrollBar();
    void resizeToWidget();
    QSize cellSize() const;
    void paintCell(QPainter &p, const Cell &c, QRect rect, bool cursor) const;

    VTerm *m_vt = nullptr;
    VTermScreen *m_screen = nullptr;
    int m_rows = 24, m_cols = 80;
    QPoint m_cursor;
    bool m_cursorVisible = true;
    std::deque<Line> m_scrollback;
    int m_scrollbackLimit = 10000;
    QString m_title;
    bool m_fixedSize = false;
};

} // namespace airlock::ui

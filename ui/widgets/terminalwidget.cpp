#include "widgets/terminalwidget.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <vterm.h>

namespace airlock::ui {

// libvterm calls plain C functions; these forward to the widget.
struct TerminalCallbacks {
    static int damage(VTermRect, void *user)
    {
        static_cast<TerminalWidget *>(user)->viewport()->update();
        return 1;
    }
    static int moveCursor(VTermPos pos, VTermPos, int visible, void *user)
    {
        auto *w = static_cast<TerminalWidget *>(user);
        w->m_cursor = QPoint(pos.col, pos.row);
        w->m_cursorVisible = visible;
        w->viewport()->update();
        return 1;
    }
    static int setTermProp(VTermProp prop, VTermValue *val, void *user)
    {
        auto *w = static_cast<TerminalWidget *>(user);
        if (prop == VTERM_PROP_CURSORVISIBLE)
            w->m_cursorVisible = val->boolean;
        else if (prop == VTERM_PROP_TITLE) {
            w->m_title = QString::fromUtf8(val->string);
            Q_EMIT w->titleChanged(w->m_title);
        }
        return 1;
    }
    static int bell(void *) { return 1; }
    static int pushLine(int cols, const VTermScreenCell *cells, void *user)
    {
        static_cast<TerminalWidget *>(user)->pushLine(cols, cells);
        return 1;
    }
    static int popLine(int cols, VTermScreenCell *cells, void *user)
    {
        return static_cast<TerminalWidget *>(user)->popLine(cols, cells) ? 1 : 0;
    }
    static void output(const char *s, size_t len, void *user)
    {
        Q_EMIT static_cast<TerminalWidget *>(user)->sendBytes(QByteArray(s, qsizetype(len)));
    }
};

namespace {
const VTermScreenCallbacks kScreenCallbacks = {
    TerminalCallbacks::damage, nullptr, TerminalCallbacks::moveCursor, TerminalCallbacks::setTermProp,
    TerminalCallbacks::bell, nullptr, TerminalCallbacks::pushLine, TerminalCallbacks::popLine,
};
}

TerminalWidget::TerminalWidget(QWidget *parent) : QAbstractScrollArea(parent)
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setStyleHint(QFont::TypeWriter);
    setFont(font);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_InputMethodEnabled, false);
    viewport()->setAutoFillBackground(false);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);

    m_vt = vterm_new(m_rows, m_cols);
    vterm_set_utf8(m_vt, 1);
    vterm_output_set_callback(m_vt, &TerminalCallbacks::output, this);
    m_screen = vterm_obtain_screen(m_vt);
    vterm_screen_set_callbacks(m_screen, &kScreenCallbacks, this);
    vterm_screen_set_damage_merge(m_screen, VTERM_DAMAGE_SCROLL);
    vterm_screen_enable_altscreen(m_screen, 1);
    vterm_screen_reset(m_screen, 1);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
    updateScrollBar();
}

TerminalWidget::~TerminalWidget() { vterm_free(m_vt); }

void TerminalWidget::feed(const QByteArray &bytes)
{
    QScrollBar *bar = verticalScrollBar();
    const bool atBottom = bar->value() == bar->maximum();
    vterm_input_write(m_vt, bytes.constData(), size_t(bytes.size()));
    vterm_screen_flush_damage(m_screen);
    updateScrollBar();
    if (atBottom)
        bar->setValue(bar->maximum());
    viewport()->update();
}

void TerminalWidget::reset()
{
    m_scrollback.clear();
    vterm_screen_reset(m_screen, 1);
    updateScrollBar();
    viewport()->update();
}

void TerminalWidget::setTerminalSize(int rows, int cols)
{
    m_fixedSize = true;
    if (rows == m_rows && cols == m_cols)
        return;
    m_rows = std::max(rows, 2);
    m_cols = std::max(cols, 2);
    vterm_set_size(m_vt, m_rows, m_cols);
    vterm_screen_flush_damage(m_screen);
    updateScrollBar();
    Q_EMIT terminalSizeChanged(m_rows, m_cols);
}

QSize TerminalWidget::cellSize() const
{
    const QFontMetrics fm(font());
    return QSize(std::max(1, fm.horizontalAdvance(QLatin1Char('M'))), std::max(1, fm.height()));
}

void TerminalWidget::resizeToWidget()
{
    if (m_fixedSize)
        return;
    const QSize cell = cellSize();
    const int rows = std::max(2, viewport()->height() / cell.height());
    const int cols = std::max(2, viewport()->width() / cell.width());
    if (rows == m_rows && cols == m_cols)
        return;
    m_rows = rows;
    m_cols = cols;
    vterm_set_size(m_vt, m_rows, m_cols);
    vterm_screen_flush_damage(m_screen);
    updateScrollBar();
    Q_EMIT terminalSizeChanged(m_rows, m_cols);
}

void TerminalWidget::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    resizeToWidget();
}

void TerminalWidget::updateScrollBar()
{
    QScrollBar *bar = verticalScrollBar();
    bar->setRange(0, int(m_scrollback.size()));
    bar->setPageStep(m_rows);
    bar->setSingleStep(1);
}

TerminalWidget::Cell TerminalWidget::convert(const void *p) const
{
    VTermScreenCell c = *static_cast<const VTermScreenCell *>(p);
    Cell out;
    for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c.chars[i]; ++i) {
        const char32_t ch = c.chars[i];
        out.text += QString::fromUcs4(&ch, 1);
    }
    out.bold = c.attrs.bold;
    out.italic = c.attrs.italic;
    out.underline = c.attrs.underline != 0;
    out.reverse = c.attrs.reverse;
    out.defaultFg = VTERM_COLOR_IS_DEFAULT_FG(&c.fg);
    out.defaultBg = VTERM_COLOR_IS_DEFAULT_BG(&c.bg);
    const QPalette pal = palette();
    if (out.defaultFg) {
        out.fg = pal.color(QPalette::Text);
    } else {
        vterm_screen_convert_color_to_rgb(m_screen, &c.fg);
        out.fg = QColor(c.fg.rgb.red, c.fg.rgb.green, c.fg.rgb.blue);
    }
    if (out.defaultBg) {
        out.bg = pal.color(QPalette::Base);
    } else {
        vterm_screen_convert_color_to_rgb(m_screen, &c.bg);
        out.bg = QColor(c.bg.rgb.red, c.bg.rgb.green, c.bg.rgb.blue);
    }
    return out;
}

TerminalWidget::Cell TerminalWidget::cellAt(int row, int col) const
{
    VTermScreenCell c;
    if (vterm_screen_get_cell(m_screen, VTermPos{row, col}, &c) == 0)
        return {};
    return convert(&c);
}

QString TerminalWidget::lineText(int row) const
{
    QString text;
    for (int col = 0; col < m_cols; ++col) {
        const QString t = cellAt(row, col).text;
        text += t.isEmpty() ? QStringLiteral(" ") : t;
    }
    while (text.endsWith(QLatin1Char(' ')))
        text.chop(1);
    return text;
}

QString TerminalWidget::scrollbackLineText(int fromTop) const
{
    if (fromTop < 0 || fromTop >= int(m_scrollback.size()))
        return {};
    QString text;
    for (const StoredCell &c : m_scrollback[size_t(fromTop)])
        text += c.cell.text.isEmpty() ? QStringLiteral(" ") : c.cell.text;
    while (text.endsWith(QLatin1Char(' ')))
        text.chop(1);
    return text;
}

void TerminalWidget::pushLine(int cols, const void *cells)
{
    const auto *vc = static_cast<const VTermScreenCell *>(cells);
    Line line(static_cast<size_t>(cols));
    for (int i = 0; i < cols; ++i) {
        line[size_t(i)].ch = vc[i].chars[0];
        line[size_t(i)].cell = convert(&vc[i]);
    }
    m_scrollback.push_back(std::move(line));
    while (int(m_scrollback.size()) > m_scrollbackLimit)
        m_scrollback.pop_front();
}

bool TerminalWidget::popLine(int cols, void *cells)
{
    if (m_scrollback.empty())
        return false;
    // Growing the screen pulls lines back from the scrollback; libvterm wants them as cells.
    auto *vc = static_cast<VTermScreenCell *>(cells);
    const Line &line = m_scrollback.back();
    for (int i = 0; i < cols; ++i) {
        VTermScreenCell c{};
        c.width = 1;
        vterm_color_rgb(&c.fg, 0, 0, 0);
        c.fg.type |= VTERM_COLOR_DEFAULT_FG;
        vterm_color_rgb(&c.bg, 0, 0, 0);
        c.bg.type |= VTERM_COLOR_DEFAULT_BG;
        if (size_t(i) < line.size()) {
            c.chars[0] = line[size_t(i)].ch;
            const Cell &cell = line[size_t(i)].cell;
            c.attrs.bold = cell.bold;
            if (!cell.defaultFg)
                vterm_color_rgb(&c.fg, uint8_t(cell.fg.red()), uint8_t(cell.fg.green()), uint8_t(cell.fg.blue()));
        }
        vc[i] = c;
    }
    m_scrollback.pop_back();
    return true;
}

void TerminalWidget::paintCell(QPainter &p, const Cell &c, QRect rect, bool cursor) const
{
    QColor fg = c.fg, bg = c.bg;
    if (c.reverse != cursor)
        std::swap(fg, bg);
    p.fillRect(rect, bg);
    if (c.text.isEmpty() || c.text == QLatin1String(" "))
        return;
    QFont f = font();
    f.setBold(c.bold);
    f.setItalic(c.italic);
    f.setUnderline(c.underline);
    p.setFont(f);
    p.setPen(fg);
    p.drawText(rect, Qt::AlignLeft | Qt::AlignVCenter, c.text);
}

void TerminalWidget::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    const QSize cell = cellSize();
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    // The first visible line: scrolling up shows scrollback lines above the live screen.
    const int back = int(m_scrollback.size()) - verticalScrollBar()->value();
    for (int y = 0; y < m_rows; ++y) {
        const int line = y - back; // < 0: a scrollback line
        for (int x = 0; x < m_cols; ++x) {
            const QRect rect(x * cell.width(), y * cell.height(), cell.width(), cell.height());
            if (line < 0) {
                const Line &sb = m_scrollback[size_t(int(m_scrollback.size()) + line)];
                if (size_t(x) < sb.size())
                    paintCell(p, sb[size_t(x)].cell, rect, false);
                continue;
            }
            const bool cursor = m_cursorVisible && QPoint(x, line) == m_cursor;
            paintCell(p, cellAt(line, x), rect, cursor);
        }
    }
}

void TerminalWidget::wheelEvent(QWheelEvent *event)
{
    QScrollBar *bar = verticalScrollBar();
    bar->setValue(bar->value() - event->angleDelta().y() / 40);
    event->accept();
}

bool TerminalWidget::focusNextPrevChild(bool) { return false; } // Tab belongs to the shell

// Ctrl+key without Shift belongs to the shell (Ctrl+N, Ctrl+P, Ctrl+Q are its history and
// flow control), never to a window shortcut; the app's own keys while typing are Ctrl+Shift.
bool TerminalWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ShortcutOverride) {
        const auto *key = static_cast<QKeyEvent *>(event);
        const Qt::KeyboardModifiers mods = key->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier | Qt::AltModifier | Qt::MetaModifier);
        if (mods == Qt::ControlModifier && key->key() != Qt::Key_Tab && key->key() != Qt::Key_Backtab) {
            event->accept();
            return true;
        }
    }
    return QAbstractScrollArea::event(event);
}

void TerminalWidget::keyPressEvent(QKeyEvent *event)
{
    int mod = VTERM_MOD_NONE;
    if (event->modifiers() & Qt::ShiftModifier) mod |= VTERM_MOD_SHIFT;
    if (event->modifiers() & Qt::AltModifier) mod |= VTERM_MOD_ALT;
    if (event->modifiers() & Qt::ControlModifier) mod |= VTERM_MOD_CTRL;
    const auto m = VTermModifier(mod);

    // Shift+PageUp/Down scroll the scrollback instead of going to the guest.
    if ((event->modifiers() & Qt::ShiftModifier) && (event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown)) {
        QScrollBar *bar = verticalScrollBar();
        bar->setValue(bar->value() + (event->key() == Qt::Key_PageUp ? -m_rows : m_rows));
        return;
    }
    VTermKey key = VTERM_KEY_NONE;
    switch (event->key()) {
    case Qt::Key_Return: case Qt::Key_Enter: key = VTERM_KEY_ENTER; break;
    case Qt::Key_Tab: case Qt::Key_Backtab: key = VTERM_KEY_TAB; break;
    case Qt::Key_Backspace: key = VTERM_KEY_BACKSPACE; break;
    case Qt::Key_Escape: key = VTERM_KEY_ESCAPE; break;
    case Qt::Key_Up: key = VTERM_KEY_UP; break;
    case Qt::Key_Down: key = VTERM_KEY_DOWN; break;
    case Qt::Key_Left: key = VTERM_KEY_LEFT; break;
    case Qt::Key_Right: key = VTERM_KEY_RIGHT; break;
    case Qt::Key_Insert: key = VTERM_KEY_INS; break;
    case Qt::Key_Delete: key = VTERM_KEY_DEL; break;
    case Qt::Key_Home: key = VTERM_KEY_HOME; break;
    case Qt::Key_End: key = VTERM_KEY_END; break;
    case Qt::Key_PageUp: key = VTERM_KEY_PAGEUP; break;
    case Qt::Key_PageDown: key = VTERM_KEY_PAGEDOWN; break;
    default:
        if (event->key() >= Qt::Key_F1 && event->key() <= Qt::Key_F12)
            key = VTermKey(VTERM_KEY_FUNCTION(1 + event->key() - Qt::Key_F1));
    }
    // Tab belongs to the shell; Ctrl+Tab leaves the terminal, so the keyboard never gets stuck.
    if ((event->modifiers() & Qt::ControlModifier) && (event->key() == Qt::Key_Tab || event->key() == Qt::Key_Backtab)) {
        QAbstractScrollArea::focusNextPrevChild(event->key() == Qt::Key_Tab);
        return;
    }
    verticalScrollBar()->setValue(verticalScrollBar()->maximum()); // typing returns to the live screen
    if (key != VTERM_KEY_NONE) {
        vterm_keyboard_key(m_vt, key, m);
        return;
    }
    if (event->modifiers() & Qt::ControlModifier && event->key() >= Qt::Key_A && event->key() <= Qt::Key_Z) {
        vterm_keyboard_unichar(m_vt, uint32_t(event->key() - Qt::Key_A + 'a'), m);
        return;
    }
    const QString text = event->text();
    if (text.isEmpty()) {
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    const auto ucs4 = text.toUcs4();
    for (char32_t c : ucs4)
        vterm_keyboard_unichar(m_vt, uint32_t(c), VTermModifier(mod & ~VTERM_MOD_SHIFT));
}

} // namespace airlock::ui

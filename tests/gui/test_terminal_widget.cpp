// The terminal widget fed raw bytes, as the console delivers them: colours, attributes,
// cursor movement, scrollback, resize, keys, and what ends up on screen.
#include "widgets/terminalwidget.h"

#include <QImage>
#include <QScrollBar>
#include <QAction>
#include <QSignalSpy>
#include <QTest>

using airlock::ui::TerminalWidget;

class TestTerminalWidget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plainTextAndNewlines();
    void coloursAndAttributes();
    void cursorMovesAndErases();
    void scrollbackKeepsOldLines();
    void resizeReflowsSize();
    void keysBecomeBytes();
    void ctrlKeysGoToTheShellNotToShortcuts();
    void rendersColouredPixels();
    void splitUtf8AcrossFeeds();
};

void TestTerminalWidget::plainTextAndNewlines()
{
    TerminalWidget t;
    t.setTerminalSize(24, 80);
    t.feed("hello\r\nworld");
    QCOMPARE(t.lineText(0), QStringLiteral("hello"));
    QCOMPARE(t.lineText(1), QStringLiteral("world"));
    QCOMPARE(t.cursorPosition(), QPoint(5, 1));
}

void TestTerminalWidget::coloursAndAttributes()
{
    TerminalWidget t;
    t.setTerminalSize(24, 80);
    // red fg, bold+green, blue background, 256-colour, truecolour, then reset
    t.feed("\x1b[31mR\x1b[1;32mG\x1b[0m\x1b[44mB\x1b[0m\x1b[38;5;208mO\x1b[38;2;10;20;30mT\x1b[0mN\x1b[7mV\x1b[0m\x1b[4mU");
    const auto r = t.cellAt(0, 0);
    QCOMPARE(r.text, QStringLiteral("R"));
    QVERIFY(!r.defaultFg);
    QVERIFY2(r.fg.red() > 150 && r.fg.green() < 80 && r.fg.blue() < 80, qPrintable(r.fg.name()));
    QVERIFY(!r.bold);
    const auto g = t.cellAt(0, 1);
    QVERIFY(g.bold);
    QVERIFY2(g.fg.green() > 150 && g.fg.red() < 80, qPrintable(g.fg.name()));
    const auto b = t.cellAt(0, 2);
    QVERIFY(b.defaultFg);
    QVERIFY(!b.defaultBg);
    QVERIFY2(b.bg.blue() > 150 && b.bg.red() < 80, qPrintable(b.bg.name()));
    const auto o = t.cellAt(0, 3);
    QCOMPARE(o.fg, QColor(0xff, 0x66, 0x00)); // colour 208 = cube (5,2,0) on libvterm's 0x33-step ramp
    const auto tc = t.cellAt(0, 4);
    QCOMPARE(tc.fg, QColor(10, 20, 30));
    const auto n = t.cellAt(0, 5);
    QVERIFY(n.defaultFg && n.defaultBg && !n.bold);
    QVERIFY(t.cellAt(0, 6).reverse);
    QVERIFY(t.cellAt(0, 7).underline);
}

void TestTerminalWidget::cursorMovesAndErases()
{
    TerminalWidget t;
    t.setTerminalSize(24, 80);
    t.feed("\x1b[5;10HX"); // row 5, column 10 (1-based)
    QCOMPARE(t.cellAt(4, 9).text, QStringLiteral("X"));
    QCOMPARE(t.cursorPosition(), QPoint(10, 4));
    t.feed("\x1b[2A\x1b[3DY"); // up 2, left 3
    QCOMPARE(t.cellAt(2, 7).text, QStringLiteral("Y"));
    t.feed("\x1b[1;1Habcdef\x1b[1;3H\x1b[K"); // erase to end of line from column 3
    QCOMPARE(t.lineText(0), QStringLiteral("ab"));
    t.feed("\x1b[2J\x1b[H");
    QCOMPARE(t.lineText(4), QString());
    QCOMPARE(t.cursorPosition(), QPoint(0, 0));
    t.feed("\x1b[?25l");
    QVERIFY(!t.cursorVisible());
    t.feed("\x1b[?25h");
    QVERIFY(t.cursorVisible());
}

void TestTerminalWidget::scrollbackKeepsOldLines()
{
    TerminalWidget t;
    t.setTerminalSize(10, 40);
    QByteArray bytes;
    for (int i = 0; i < 100; ++i)
        bytes += "line " + QByteArray::number(i) + "\r\n";
    t.feed(bytes);
    // 100 lines and the empty line the cursor sits on: 101 rows, 10 on screen.
    QCOMPARE(t.scrollbackLines(), 91);
    QCOMPARE(t.scrollbackLineText(0), QStringLiteral("line 0"));
    QCOMPARE(t.scrollbackLineText(90), QStringLiteral("line 90"));
    QCOMPARE(t.lineText(0), QStringLiteral("line 91"));
    QCOMPARE(t.verticalScrollBar()->maximum(), 91);
    t.setScrollbackLimit(50);
    t.feed("one more\r\n");
    QCOMPARE(t.scrollbackLines(), 50);
}

void TestTerminalWidget::resizeReflowsSize()
{
    TerminalWidget t;
    QSignalSpy sized(&t, &TerminalWidget::terminalSizeChanged);
    t.setTerminalSize(10, 40);
    t.feed("\x1b[10;40HZ");
    QCOMPARE(t.cursorPosition(), QPoint(39, 9));
    t.setTerminalSize(30, 100);
    QCOMPARE(t.rows(), 30);
    QCOMPARE(t.columns(), 100);
    QVERIFY(sized.count() >= 2);
    QCOMPARE(sized.last().at(0).toInt(), 30);
    t.feed("\x1b[30;100HW");
    QCOMPARE(t.cellAt(29, 99).text, QStringLiteral("W"));

    // Without a forced size the widget sizes the terminal from its own geometry.
    TerminalWidget auto_;
    auto_.resize(800, 400);
    auto_.show();
    QVERIFY(QTest::qWaitForWindowExposed(&auto_));
    const int cols = auto_.columns(), rows = auto_.rows();
    QVERIFY2(cols > 40 && rows > 10, qPrintable(QStringLiteral("%1x%2").arg(cols).arg(rows)));
    auto_.resize(400, 200);
    QTRY_VERIFY(auto_.columns() < cols && auto_.rows() < rows);
}

void TestTerminalWidget::keysBecomeBytes()
{
    TerminalWidget t;
    t.setTerminalSize(24, 80);
    QSignalSpy sent(&t, &TerminalWidget::sendBytes);
    auto typed = [&] {
        QByteArray all;
        for (const auto &args : sent)
            all += args.at(0).toByteArray();
        sent.clear();
        return all;
    };
    QTest::keyClicks(&t, QStringLiteral("ls"));
    QCOMPARE(typed(), QByteArray("ls"));
    QTest::keyClick(&t, Qt::Key_Return);
    QCOMPARE(typed(), QByteArray("\r"));
    QTest::keyClick(&t, Qt::Key_Up);
    QCOMPARE(typed(), QByteArray("\x1b[A"));
    QTest::keyClick(&t, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(typed(), QByteArray("\x03"));
    QTest::keyClick(&t, Qt::Key_Tab);
    QCOMPARE(typed(), QByteArray("\t"));
    QTest::keyClick(&t, Qt::Key_Backspace);
    QCOMPARE(typed(), QByteArray("\x7f"));
}

// A window's Ctrl+P shortcut must not take the shell's previous-history key; the app's own
// keys while the terminal has the focus are Ctrl+Shift ones.
void TestTerminalWidget::ctrlKeysGoToTheShellNotToShortcuts()
{
    QWidget window;
    auto *t = new TerminalWidget(&window);
    t->setTerminalSize(24, 80);
    auto *plain = new QAction(&window);
    plain->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    window.addAction(plain);
    auto *shifted = new QAction(&window);
    shifted->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    window.addAction(shifted);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    t->setFocus();
    QSignalSpy sent(t, &TerminalWidget::sendBytes);
    QSignalSpy plainFired(plain, &QAction::triggered);
    QSignalSpy shiftedFired(shifted, &QAction::triggered);
    QTest::keyClick(t, Qt::Key_P, Qt::ControlModifier);
    QCOMPARE(plainFired.count(), 0);
    QCOMPARE(sent.count(), 1);
    QCOMPARE(sent.at(0).at(0).toByteArray(), QByteArray("\x10"));
    QTest::keyClick(t, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(shiftedFired.count(), 1);
    QCOMPARE(sent.count(), 1); // the shortcut took it; nothing went to the guest
}

void TestTerminalWidget::rendersColouredPixels()
{
    TerminalWidget t;
    t.resize(640, 240);
    t.show();
    QVERIFY(QTest::qWaitForWindowExposed(&t));
    t.feed("\x1b[41m    \x1b[0m plain");
    const QImage image = t.viewport()->grab().toImage();
    // The first cell has the red background of SGR 41.
    const QColor px = image.pixelColor(2, 2);
    QVERIFY2(px.red() > 150 && px.green() < 80 && px.blue() < 80, qPrintable(px.name()));
    if (const QString dir = qEnvironmentVariable("AIRLOCK_SCREENSHOT_DIR"); !dir.isEmpty()) {
        t.feed("\r\n\x1b[1;32muser@sandbox\x1b[0m:\x1b[34m~/project\x1b[0m$ npm test\r\n"
               "\x1b[32m  ✓ 42 passing\x1b[0m  \x1b[31m1 failing\x1b[0m\r\n$ ");
        t.grab().save(dir + QStringLiteral("/widget-terminal.png"));
    }
}

void TestTerminalWidget::splitUtf8AcrossFeeds()
{
    TerminalWidget t;
    t.setTerminalSize(24, 80);
    const QByteArray check = QStringLiteral("✓ ok").toUtf8();
    t.feed(check.left(1));
    t.feed(check.mid(1));
    QCOMPARE(t.lineText(0), QStringLiteral("✓ ok"));
}

QTEST_MAIN(TestTerminalWidget)
#include "test_terminal_widget.moc"

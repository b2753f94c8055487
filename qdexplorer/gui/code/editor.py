"""A code editor for PTX, LLVM IR and Python: line numbers, find, current line, error markers, marked lines.

QPlainTextEdit plus the gutter of Qt's "Code Editor" example. Markers (ptxas or driver diagnostics) are
painted in the gutter and underlined in the text, and their messages show as tooltips over either;
"marked lines" (a task's source lines, the lines mapped from a selection in another view) get a band.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (QColor, QFont, QFontDatabase, QKeySequence, QPainter, QPalette,
                           QTextCharFormat, QTextCursor, QTextDocument, QTextFormat)
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QTextEdit, QToolButton,
                               QToolTip, QVBoxLayout, QWidget)

from .highlight import PygmentsHighlighter
from ..theme import EDITOR, PYGMENTS, current_theme


@dataclass(frozen=True)
class Marker:
    line: int          # 1-based
    severity: str      # "error" | "warning" | "fatal" | "info"
    message: str


HEAT_W = 36              # the counters gutter's width in pixels (a bar per line)
HEAT_COLOR = "#ef6c00"
SEVERITY_COLORS = {"error": "#e53935", "fatal": "#e53935", "warning": "#f9a825", "info": "#1e88e5"}


class _Gutter(QWidget):
    def __init__(self, editor: CodeEditor):
        super().__init__(editor)
        self.editor = editor
        self.setMouseTracking(True)

    def sizeHint(self):  # noqa: N802 - Qt's name
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event):  # noqa: N802
        self.editor.paint_gutter(event)

    def mouseMoveEvent(self, event):  # noqa: N802
        line = self.editor.cursorForPosition(event.position().toPoint()).blockNumber() + 1
        text = self.editor.marker_text(line)
        if text:
            QToolTip.showText(event.globalPosition().toPoint(), text, self)
        else:
            QToolTip.hideText()


class CodeEditor(QPlainTextEdit):
    """`set_markers([Marker])` puts diagnostics at lines; `mark_lines({n})` bands lines; Ctrl+F finds."""
    line_selected = Signal(int)   # 1-based line of the cursor, when the user moves it
    find_requested = Signal()     # Ctrl+F (the platform's Find key) inside the editor

    def __init__(self, language: str = "python", read_only: bool = True, parent=None):
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        font.setStyleHint(QFont.Monospace)
        self.setFont(font)
        self.setReadOnly(read_only)
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        theme = current_theme()
        self.highlighter = PygmentsHighlighter(self.document(), language, PYGMENTS[theme])
        self._anchored: list[tuple[QTextCursor, Marker]] = []   # a cursor at its line moves with edits above
        self.marked: set[int] = set()
        self.find_matches: list[QTextCursor] = []
        self.heat: dict[int, tuple[float, str]] = {}   # line -> (share 0..1, its counters as text): the counters gutter
        self.line_labels: dict[int, str] = {}   # line -> a short note left of its number (SASS: its PTX · source line)
        self._label_w, self._labels_tip = 0, ""
        self.colors = {k: QColor(v) for k, v in EDITOR[theme].items()}
        self._gutter = _Gutter(self)
        self.blockCountChanged.connect(lambda _: self.setViewportMargins(self.gutter_width(), 0, 0, 0))
        self.updateRequest.connect(self._scroll_gutter)
        self.cursorPositionChanged.connect(self._cursor_moved)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self.setMouseTracking(True)
        self._refresh_selections()

    # ---- colours (the theme sets them)
    def set_theme(self, theme: str):
        """Called by theme.restyle for every editor under the window."""
        self.highlighter.set_style(PYGMENTS[theme])
        self.set_colors(**EDITOR[theme])

    def set_colors(self, **colors: str):
        self.colors.update({k: QColor(v) for k, v in colors.items()})
        self._refresh_selections()
        self._gutter.update()

    def setPlainText(self, text: str):  # noqa: N802 - Qt's name: a new text, so the markers of the old go
        self._anchored = []
        super().setPlainText(text)

    # ---- text that keeps the view where it was (saving must not jump to the top)
    def set_text_keep_view(self, text: str):
        if text == self.toPlainText():
            return
        pos, vs, hs = self.textCursor().position(), self.verticalScrollBar().value(), self.horizontalScrollBar().value()
        self.setPlainText(text)
        cur = self.textCursor()
        cur.setPosition(min(pos, len(text)))
        self.setTextCursor(cur)
        self.verticalScrollBar().setValue(vs)
        self.horizontalScrollBar().setValue(hs)

    # ---- markers and marked lines
    def set_markers(self, markers):
        """Diagnostics at their lines. Each is anchored to its line's text, so inserting or deleting
        lines above moves the marker with the line it is about (until the next check)."""
        self._anchored = []
        for m in markers:
            block = self.document().findBlockByNumber(int(m.line) - 1) if m.line else None
            if block is not None and block.isValid():
                self._anchored.append((QTextCursor(block), m))
        self._refresh_selections()
        self._gutter.update()

    @property
    def markers(self) -> dict[int, list[Marker]]:
        """line (1-based, where the marked text is now) -> its markers."""
        out: dict[int, list[Marker]] = {}
        for cur, m in self._anchored:
            out.setdefault(cur.blockNumber() + 1, []).append(m)
        return out

    def marker_text(self, line: int) -> str:
        text = "\n".join(f"{m.severity}: {m.message}" for m in self.markers.get(line, []))
        if line in self.heat:
            text = (text + "\n" if text else "") + self.heat[line][1]
        if line in self.line_labels and self._labels_tip:
            text = (text + "\n" if text else "") + f"{self.line_labels[line]}: {self._labels_tip}"
        return text

    def set_heat(self, heat: dict[int, tuple[float, str]]):
        """Counters per line in the gutter: a bar as long as the line's share of the samples, and
        its counters as the tooltip ({} clears it)."""
        self.heat = dict(heat)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        r = self.contentsRect()
        self._gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))
        self._gutter.update()

    def set_line_labels(self, labels: dict[int, str], tip: str = ""):
        """A short label per line in the gutter, left of the line number (SASS: `41·10`, its PTX and
        source line); {} clears them. `tip` explains them in the gutter's tooltip."""
        self.line_labels = {int(k): str(v) for k, v in labels.items()}
        self._labels_tip = tip
        self._label_w = max((self.fontMetrics().horizontalAdvance(t) for t in self.line_labels.values()), default=0)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        r = self.contentsRect()
        self._gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))
        self._gutter.update()

    def mark_lines(self, lines, scroll: bool = True):
        self.marked = {int(n) for n in lines if n}
        self._refresh_selections()
        if scroll and self.marked:
            first = min(self.marked)
            self.goto_line(first, select=False)
            QTimer.singleShot(0, self, lambda: self.goto_line(first, select=False))  # again once laid out

    def goto_line(self, line: int, select: bool = True):
        block = self.document().findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            return
        cur = QTextCursor(block)
        if select:
            self.setTextCursor(cur)
        self.centerCursor() if select else self._center_on(cur)

    def _center_on(self, cur: QTextCursor):
        """Scrolls `cur`'s line to the middle without moving the user's cursor."""
        line_h = max(1.0, self.blockBoundingRect(cur.block()).height())
        visible = self.viewport().height() / line_h
        self.verticalScrollBar().setValue(max(0, int(cur.blockNumber() - visible / 2)))

    def current_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    # ---- find
    def find_all(self, text: str, case: bool = False) -> int:
        """Highlights every match and moves to the next one after the cursor; returns how many there are."""
        self.find_matches = []
        if text:
            flags = QTextDocument.FindCaseSensitively if case else QTextDocument.FindFlag(0)
            cur = QTextCursor(self.document())
            while True:
                cur = self.document().find(text, cur, flags)
                if cur.isNull():
                    break
                self.find_matches.append(cur)
        self._refresh_selections()
        return len(self.find_matches)

    def find_next(self, text: str, backward: bool = False, case: bool = False) -> bool:
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindBackward
        if case:
            flags |= QTextDocument.FindCaseSensitively
        if self.find(text, flags):
            return True
        cur = self.textCursor()  # wrap around
        cur.movePosition(QTextCursor.End if backward else QTextCursor.Start)
        self.setTextCursor(cur)
        return self.find(text, flags)

    # ---- painting
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        labels = self._label_w + 10 if self.line_labels else 0
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(3, digits) + (HEAT_W + 8 if self.heat else 0) + labels

    def resizeEvent(self, event):  # noqa: N802
        super().resizeEvent(event)
        r = self.contentsRect()
        self._gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))

    def _scroll_gutter(self, rect, dy):
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def paint_gutter(self, event):
        p = QPainter(self._gutter)
        p.fillRect(event.rect(), self.colors["gutter"])
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        h = self.fontMetrics().height()
        current = self.textCursor().blockNumber()
        markers = self.markers
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                n = block.blockNumber() + 1
                ms = markers.get(n)
                if ms:
                    worst = "error" if any(m.severity in ("error", "fatal") for m in ms) else ms[0].severity
                    p.setBrush(QColor(SEVERITY_COLORS.get(worst, "#e53935")))
                    p.setPen(Qt.NoPen)
                    p.drawEllipse(3, top + (h - 8) // 2, 8, 8)
                heat = self.heat.get(n)
                if heat is not None and heat[0] > 0:
                    p.fillRect(self._gutter.width() - HEAT_W - 4, top + 2, max(2, round(HEAT_W * heat[0])), h - 4,
                               QColor(HEAT_COLOR))
                p.setPen(self.palette().color(QPalette.Text) if n - 1 == current else self.colors["gutter_text"])
                label = self.line_labels.get(n)
                if label:
                    p.drawText(4, top, self._label_w + 4, h, Qt.AlignLeft, label)
                p.drawText(0, top, self._gutter.width() - (HEAT_W + 10 if self.heat else 4), h, Qt.AlignRight, str(n))
            block = block.next()
            top = bottom
        p.end()

    def _cursor_moved(self):
        self._refresh_selections()
        self._gutter.update()
        if self.hasFocus() or self.underMouse():
            self.line_selected.emit(self.current_line())

    def _refresh_selections(self):
        sels = []

        def band(line, color):
            block = self.document().findBlockByNumber(line - 1)
            if block.isValid():
                s = QTextEdit.ExtraSelection()
                s.format.setBackground(color)
                s.format.setProperty(QTextFormat.FullWidthSelection, True)
                s.cursor = QTextCursor(block)
                sels.append(s)

        for n in sorted(self.marked):
            band(n, self.colors["marked"])
        cur = QTextEdit.ExtraSelection()
        cur.format.setBackground(self.colors["current"])
        cur.format.setProperty(QTextFormat.FullWidthSelection, True)
        cur.cursor = self.textCursor()
        cur.cursor.clearSelection()
        sels.append(cur)
        for n, ms in self.markers.items():  # noqa: B007 - recomputed per refresh: lines move with edits
            block = self.document().findBlockByNumber(n - 1)
            if not block.isValid():
                continue
            s = QTextEdit.ExtraSelection()
            worst = "error" if any(m.severity in ("error", "fatal") for m in ms) else ms[0].severity
            s.format.setUnderlineStyle(QTextCharFormat.WaveUnderline)
            s.format.setUnderlineColor(QColor(SEVERITY_COLORS.get(worst, "#e53935")))
            s.format.setToolTip(self.marker_text(n))
            c = QTextCursor(block)
            c.movePosition(QTextCursor.StartOfBlock)
            c.movePosition(QTextCursor.EndOfBlock, QTextCursor.KeepAnchor)
            s.cursor = c
            sels.append(s)
        for c in self.find_matches:
            s = QTextEdit.ExtraSelection()
            s.format.setBackground(self.colors["find"])
            s.cursor = c
            sels.append(s)
        self.setExtraSelections(sels)

    def keyPressEvent(self, e):  # noqa: N802
        if e.matches(QKeySequence.Find):
            self.find_requested.emit()
            return
        super().keyPressEvent(e)

    def event(self, e):
        if e.type() == e.Type.ToolTip:  # a marker's message over its underlined line
            line = self.cursorForPosition(self.viewport().mapFrom(self, e.pos())).blockNumber() + 1
            text = self.marker_text(line)
            if text:
                QToolTip.showText(e.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(e)


class FindBar(QWidget):
    """Ctrl+F over a CodeEditor: type to highlight every match, Enter / Shift+Enter for next / previous."""

    def __init__(self, editor: CodeEditor, parent=None):
        super().__init__(parent)
        self.editor = editor
        lay = QHBoxLayout(self)
        lay.setContentsMargins(2, 0, 2, 0)
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find")
        self.field.setClearButtonEnabled(True)
        self.count = QLabel("")
        prev_btn, next_btn, close_btn = QToolButton(), QToolButton(), QToolButton()
        prev_btn.setText("▲")
        prev_btn.setToolTip("Previous match (Shift+Enter)")
        next_btn.setText("▼")
        next_btn.setToolTip("Next match (Enter)")
        close_btn.setText("✕")
        close_btn.setToolTip("Close (Esc)")
        for w in (QLabel("Find:"), self.field, self.count, prev_btn, next_btn, close_btn):
            lay.addWidget(w)
        self.field.textChanged.connect(self._changed)
        self.field.returnPressed.connect(lambda: self.step(False))
        prev_btn.clicked.connect(lambda: self.step(True))
        next_btn.clicked.connect(lambda: self.step(False))
        close_btn.clicked.connect(self.close_bar)
        self.field.installEventFilter(self)
        self.hide()

    def eventFilter(self, obj, e):  # noqa: N802 - Shift+Enter steps back, Esc closes
        if e.type() == e.Type.KeyPress:
            if e.key() in (Qt.Key_Return, Qt.Key_Enter) and e.modifiers() & Qt.ShiftModifier:
                self.step(True)
                return True
            if e.key() == Qt.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(obj, e)

    def open_bar(self):
        self.show()
        cur = self.editor.textCursor()
        if cur.hasSelection():
            self.field.setText(cur.selectedText())
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self):
        self.editor.find_all("")
        self.hide()
        self.editor.setFocus()

    def _changed(self, text):
        n = self.editor.find_all(text)
        self.count.setText(f"{n} match{'es' if n != 1 else ''}" if text else "")
        if n:
            cur = self.editor.textCursor()
            cur.setPosition(cur.selectionStart())
            self.editor.setTextCursor(cur)
            self.editor.find_next(text)

    def step(self, backward: bool):
        if self.field.text():
            self.editor.find_next(self.field.text(), backward)


class EditorPane(QWidget):
    """An editor with its find bar (Ctrl+F inside the pane)."""

    def __init__(self, language: str = "python", read_only: bool = True, parent=None):
        super().__init__(parent)
        self.editor = CodeEditor(language, read_only)
        self.find_bar = FindBar(self.editor)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(0)
        v.addWidget(self.find_bar)
        v.addWidget(self.editor)
        self.editor.find_requested.connect(self.find_bar.open_bar)

"""Generated PTX vs the edited one, side by side, with changed lines aligned and coloured.

difflib's opcodes align the two texts (equal runs side by side, a replaced run padded with blank
lines on the shorter side), so scrolling one side scrolls the other and line N faces line N.
"""
from __future__ import annotations

import difflib

from PySide6.QtGui import QColor, QTextCursor, QTextFormat
from PySide6.QtWidgets import QLabel, QSplitter, QTextEdit, QVBoxLayout, QWidget

from .editor import CodeEditor

COLORS = {"light": {"removed": "#ffd7d5", "added": "#ccffd8", "changed": "#fff1b8"},
          "dark": {"removed": "#5a1e1e", "added": "#1e4620", "changed": "#4d4018"}}


def aligned(a: list[str], b: list[str]):
    """Rows of (left text | None, right text | None, kind) with kind in equal/removed/added/changed."""
    rows = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            rows += [(a[i], b[j], "equal") for i, j in zip(range(i1, i2), range(j1, j2))]
        elif op == "delete":
            rows += [(a[i], None, "removed") for i in range(i1, i2)]
        elif op == "insert":
            rows += [(None, b[j], "added") for j in range(j1, j2)]
        else:
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                left = a[i1 + k] if i1 + k < i2 else None
                right = b[j1 + k] if j1 + k < j2 else None
                rows.append((left, right, "changed"))
    return rows


class DiffView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = "light"
        self.summary = QLabel("")
        self.left = CodeEditor("ptx", True)
        self.right = CodeEditor("ptx", True)
        split = QSplitter()
        split.addWidget(self.left)
        split.addWidget(self.right)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.summary)
        v.addWidget(split, 1)
        self.left.verticalScrollBar().valueChanged.connect(self.right.verticalScrollBar().setValue)
        self.right.verticalScrollBar().valueChanged.connect(self.left.verticalScrollBar().setValue)
        self.rows: list = []
        self.heat: tuple[dict, dict] = ({}, {})

    def set_line_heat(self, left: dict, right: dict):
        """Counters per line of the generated (left) and the edited (right) text, keyed by each text's
        own line numbers, shown in each side's gutter on the row that line sits in: A and B face each
        other line by line."""
        self.heat = (dict(left), dict(right))
        self._apply_heat()

    def row_of(self, side: int) -> dict[int, int]:
        """A side's own line number -> its row (1-based) in the aligned view."""
        out, n = {}, 0
        for i, row in enumerate(self.rows, start=1):
            if row[side] is not None:
                n += 1
                out[n] = i
        return out

    def _apply_heat(self):
        for side, ed in ((0, self.left), (1, self.right)):
            rows = self.row_of(side)
            ed.set_heat({rows[ln]: h for ln, h in self.heat[side].items() if ln in rows})

    def set_texts(self, generated: str, edited: str, names: tuple[str, str] = ("generated", "edited")):
        """`names`: what the two sides are, for the summary line (a pane diffs two runs, say)."""
        self.rows = aligned(generated.splitlines(), edited.splitlines())
        self.left.setPlainText("\n".join("" if r[0] is None else r[0] for r in self.rows))
        self.right.setPlainText("\n".join("" if r[1] is None else r[1] for r in self.rows))
        count = {k: 0 for k in ("changed", "added", "removed")}
        for left, right, kind in self.rows:
            if kind == "changed" and (left is None or right is None):
                kind = "added" if left is None else "removed"
            if kind in count:
                count[kind] += 1
        self.summary.setText(f"{names[0]} (left) ↔ {names[1]} (right): " + (
            ", ".join(f"{n} line{'s' if n != 1 else ''} {k}" for k, n in count.items() if n) or "identical"))
        self._paint()
        self._apply_heat()
        changed = self.changed_rows()
        if changed:  # open on the first difference, not on the header both sides share
            self.left.goto_line(changed[0], select=False)

    def set_theme(self, theme: str):
        self.theme = theme
        self._paint()

    def changed_rows(self) -> list[int]:
        return [i + 1 for i, r in enumerate(self.rows) if r[2] != "equal"]

    def _paint(self):
        colors = COLORS.get(self.theme, COLORS["light"])
        for side, ed in ((0, self.left), (1, self.right)):
            sels = []
            for i, row in enumerate(self.rows):
                kind = row[2]
                if kind == "equal":
                    continue
                if kind == "changed" and row[side] is None:
                    kind = "removed" if side == 1 else "added"
                s = QTextEdit.ExtraSelection()
                s.format.setBackground(QColor(colors[kind]))
                s.format.setProperty(QTextFormat.FullWidthSelection, True)
                s.cursor = QTextCursor(ed.document().findBlockByNumber(i))
                sels.append(s)
            ed.setExtraSelections(sels)

"""Pygments inside a QSyntaxHighlighter (superqt's CodeSyntaxHighlight idea), plus a PTX lexer.

Highlighting runs per text block, so large PTX files stay responsive while scrolling/editing.
"""
from __future__ import annotations

from pygments import lex
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers import LlvmLexer, PythonLexer
from pygments.styles import get_style_by_name
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat


class PtxLexer(RegexLexer):
    """Enough of PTX to read it: directives, opcodes with modifiers, registers, labels, numbers."""
    name = "PTX"
    tokens = {
        "root": [
            (r"//.*$", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"\s+", Text),
            (r'"[^"]*"', String),
            (r"\$?[A-Za-z_][\w$]*:", Name.Label),
            (r"\.(version|target|address_size|visible|entry|func|param|reg|global|shared|local|const|"
             r"align|pragma|maxntid|reqntid|minnctapersm|extern|weak|b8|b16|b32|b64|u8|u16|u32|u64|"
             r"s8|s16|s32|s64|f16|f32|f64|pred|ptr)\b", Keyword.Declaration),
            (r"(@!?%\w+)", Name.Builtin),
            (r"%[A-Za-z_][\w.]*", Name.Variable),
            (r"([a-z][a-z0-9_]*)((?:\.[a-z0-9_]+)+)", bygroups(Keyword, Keyword.Type)),
            (r"\b(ret|bra|exit|bar|membar|trap)\b", Keyword),
            (r"0[fFdD][0-9A-Fa-f]+", Number.Float),
            (r"0x[0-9A-Fa-f]+|-?\d+(\.\d+)?", Number),
            (r"[\[\]{}(),;]", Punctuation),
            (r"[+\-*/|&!<>=]", Operator),
            (r"[A-Za-z_$][\w$]*", Name),
        ]
    }


LEXERS = {"python": PythonLexer, "llvm": LlvmLexer, "ptx": PtxLexer}


class PygmentsHighlighter(QSyntaxHighlighter):
    def __init__(self, document, language: str = "python", style: str = "friendly"):
        super().__init__(document)
        self.lexer = LEXERS[language]()
        self.python = language == "python"
        self.style = get_style_by_name(style)
        self._formats: dict = {}

    def set_language(self, language: str):
        """Another lexer for the same document (a code pane switched from PTX to Python, say)."""
        if self.python != (language == "python") or not isinstance(self.lexer, LEXERS[language]):
            self.lexer, self.python = LEXERS[language](), language == "python"
            self.rehighlight()

    def set_style(self, style: str):
        self.style = get_style_by_name(style)
        self._formats.clear()
        self.rehighlight()

    def _format(self, ttype) -> QTextCharFormat:
        fmt = self._formats.get(ttype)
        if fmt is None:
            fmt = QTextCharFormat()
            known = ttype
            while not self.style.styles_token(known) and known.parent is not None:
                known = known.parent
            st = self.style.style_for_token(known)
            if st["color"]:
                fmt.setForeground(QColor("#" + st["color"]))
            if st["bold"]:
                fmt.setFontWeight(QFont.Bold)
            if st["italic"]:
                fmt.setFontItalic(True)
            self._formats[ttype] = fmt
        return fmt

    def highlightBlock(self, text: str):  # noqa: N802 - Qt's name
        """Pygments lexes one line at a time here, so a Python string over several lines (a docstring)
        is carried from line to line in the block state: 0 outside, 1 inside \"\"\", 2 inside '''."""
        start = 0
        state = self.previousBlockState() if self.previousBlockState() in (1, 2) else 0
        if state and self.python:
            quote = '"""' if state == 1 else "'''"
            end = text.find(quote)
            if end < 0:
                self.setFormat(0, len(text), self._format(String.Doc))
                self.setCurrentBlockState(state)
                return
            start = end + 3
            self.setFormat(0, start, self._format(String.Doc))
        self._lex(text, start)
        self.setCurrentBlockState(self._opens(text[start:]) if self.python else 0)

    def _lex(self, text: str, start: int):
        pos = start
        for ttype, value in lex(text[start:], self.lexer):
            n = len(value)
            if ttype not in (Text,) and value.strip():
                self.setFormat(pos, n, self._format(ttype))
            pos += n

    def _opens(self, text: str) -> int:
        """Whether `text` leaves a triple-quoted string open (1: \"\"\", 2: '''), outside comments."""
        i, open_ = 0, ""
        while i < len(text):
            if not open_ and text[i] == "#":
                break
            for q in ('"""', "'''"):
                if text.startswith(q, i) and (not open_ or open_ == q):
                    open_ = "" if open_ else q
                    i += 2
                    break
            i += 1
        if open_:   # the open part is a string to the line's end, whatever the lexer made of it
            at = len(text) - len(text.split(open_)[-1]) - 3
            self.setFormat(self.currentBlock().length() - 1 - len(text) + at, len(text) - at,
                           self._format(String.Doc))
        return {'"""': 1, "'''": 2}.get(open_, 0)

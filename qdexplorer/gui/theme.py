"""Light and dark themes: one place that sets Qt's palette, pyqtgraph's colours and the Pygments style.

Fusion with a palette (not a style sheet) so every standard widget follows; plots and highlighters
do not read the palette, so `apply_theme` also walks them.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

THEMES = ("light", "dark")
PYGMENTS = {"light": "friendly", "dark": "monokai"}
PLOT = {"light": {"background": "w", "foreground": "#202020"},
        "dark": {"background": "#1e1f22", "foreground": "#d0d0d0"}}
EDITOR = {"light": {"current": "#fff8c5", "marked": "#dbeafe", "find": "#ffe082", "gutter": "#f3f3f3",
                    "gutter_text": "#8a8a8a"},
          "dark": {"current": "#2c313a", "marked": "#1d3b5c", "find": "#6b5400", "gutter": "#25262a",
                   "gutter_text": "#6f737a"}}
STATUS = {"light": {"ok": "#2e7d32", "memory": "#2e7d32", "disk": "#1565c0", "miss": "#ef6c00",
                    "error": "#c62828", "muted": "#6b6b6b"},
          "dark": {"ok": "#81c784", "memory": "#81c784", "disk": "#64b5f6", "miss": "#ffb74d",
                   "error": "#ef5350", "muted": "#9a9a9a"}}


def dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor("#1e1f22"), QColor("#2b2d30"), QColor("#dfe1e5")
    for role, color in [(QPalette.Window, window), (QPalette.WindowText, text), (QPalette.Base, base),
                        (QPalette.AlternateBase, QColor("#26282b")), (QPalette.ToolTipBase, QColor("#3c3f41")),
                        (QPalette.ToolTipText, text), (QPalette.Text, text), (QPalette.Button, window),
                        (QPalette.ButtonText, text), (QPalette.BrightText, QColor("#ff6b6b")),
                        (QPalette.Link, QColor("#6ea8fe")), (QPalette.Highlight, QColor("#2f65ca")),
                        (QPalette.HighlightedText, QColor("#ffffff")), (QPalette.PlaceholderText, QColor("#8c8f94"))]:
        p.setColor(role, color)
    for role in (QPalette.Text, QPalette.WindowText, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor("#6f737a"))
    return p


def apply_theme(theme: str, root: QWidget | None = None) -> str:
    """Sets the app palette and pyqtgraph defaults, then restyles the plots and code under `root`."""
    theme = theme if theme in THEMES else "light"
    app = QApplication.instance()
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if theme == "dark" else app.style().standardPalette())
    app.setProperty("qdexplorer_theme", theme)
    pg.setConfigOptions(antialias=True, **PLOT[theme])
    if root is not None:
        restyle(root, theme)
    return theme


def current_theme() -> str:
    app = QApplication.instance()
    return (app.property("qdexplorer_theme") if app else None) or "light"


def restyle(root: QWidget, theme: str):
    """Existing plots, and every widget with a `set_theme(theme)` (editors, the diff view...), take
    the theme; new ones read it when made. Widgets restyle themselves, so this module imports none."""
    plot_colors = PLOT[theme]
    for w in [root, *root.findChildren(QWidget)]:
        if isinstance(w, pg.PlotWidget):
            w.setBackground(plot_colors["background"])
            fg = pg.mkColor(plot_colors["foreground"])
            for name in ("left", "bottom", "right", "top"):
                ax = w.getPlotItem().getAxis(name)
                ax.setPen(fg)
                ax.setTextPen(fg)
            title = w.getPlotItem().titleLabel
            title.setText(title.text, color=plot_colors["foreground"])
        set_theme = getattr(w, "set_theme", None)
        if callable(set_theme):
            set_theme(theme)

"""Renders qdexplorer/resources/qdexplorer.svg to the PNG sizes desktops and installers ask for.

Run after editing the SVG: `QT_QPA_PLATFORM=offscreen python packaging/render_icons.py`.
"""
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
RESOURCES = Path(__file__).resolve().parent.parent / "qdexplorer" / "resources"   # in the package: pip installs them


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - needed by QImage/QPainter
    renderer = QSvgRenderer(str(RESOURCES / "qdexplorer.svg"))
    out = RESOURCES / "desktop" / "icons"
    out.mkdir(parents=True, exist_ok=True)
    for n in SIZES:
        img = QImage(n, n, QImage.Format_ARGB32)
        img.fill(Qt.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.Antialiasing)
        renderer.render(p)
        p.end()
        img.save(str(out / f"qdexplorer-{n}.png"))
    print(f"wrote {len(SIZES)} PNGs to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An image as PNG bytes, so the window's files go through compiler/safe_files.write_file like
every other file qdexplorer writes (Qt's own `save(path)` opens the path and follows a link)."""
from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise OSError("the image could not be encoded as PNG")
    buf.close()
    return bytes(data.data())

"""Which images of a session may be shown, and how: the one rule the Entry view and the HTML export follow.

Tool results carry images as content parts ``{"type": "image", "data": <base64>, "mimeType": ...}``.
One is shown only as a ``data:`` URI built from the part's own base64 (decoded and encoded again, so
nothing but base64 reaches the attribute), only for the raster types browsers show without running
anything (PNG, JPEG, GIF, WebP; never SVG, which can hold script), and only up to ``MAX_IMAGE_BYTES``
decoded; above it the view says "image not shown: N MB". No URL from a file is ever used: a part naming
a ``url``/``source`` instead of data is not shown, so opening a session never fetches anything.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["IMAGE_TYPES", "MAX_IMAGE_BYTES", "ShownImage", "image_part", "is_image_part"]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_IMAGE_BYTES = 2 * 1024 * 1024  # decoded; a screenshot is well under it, a 20 MB paste is not drawn


@dataclass(frozen=True, slots=True)
class ShownImage:
    """An image part as it may be drawn: ``src`` (a ``data:`` URI) when shown, else ``None`` and ``note``
    saying why; ``size`` is the decoded size in bytes (0 when the data is not base64)."""

    mime: str
    src: str | None
    size: int
    note: str | None = None

    @property
    def shown(self) -> bool:
        return self.src is not None

    def to_json(self) -> dict[str, Any]:
        return {"mime": self.mime, "src": self.src, "size": self.size, "note": self.note}


def is_image_part(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "image"


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def image_part(block: Mapping[str, Any], *, max_bytes: int = MAX_IMAGE_BYTES) -> ShownImage:
    """What may be drawn of one image part (see the module docstring for the rule)."""
    mime = block.get("mimeType")
    mime = mime.lower() if isinstance(mime, str) else ""
    data = block.get("data")
    if mime not in IMAGE_TYPES:
        return ShownImage(mime, None, 0, f"image not shown: type {mime or '(none)'} is not one of png, jpeg, gif, webp")
    if not isinstance(data, str) or not data:
        return ShownImage(mime, None, 0, "image not shown: no image data in the entry (a link is never fetched)")
    clean = "".join(data.split())
    # the decoded size from the text's length (less its padding), before decoding anything large
    size = len(clean) * 3 // 4 - clean[-2:].count("=")
    if size > max_bytes:
        return ShownImage(mime, None, size, f"image not shown: {_megabytes(size)} (limit {_megabytes(max_bytes)})")
    try:
        raw = base64.b64decode(clean, validate=True)
    except (binascii.Error, ValueError):
        return ShownImage(mime, None, 0, "image not shown: the data is not valid base64")
    if len(raw) > max_bytes:
        return ShownImage(mime, None, len(raw), f"image not shown: {_megabytes(len(raw))} (limit {_megabytes(max_bytes)})")
    return ShownImage(mime, f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}", len(raw))

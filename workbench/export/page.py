"""One self-contained HTML file: the payload as inert JSON, the viewer's script and style inline.

Why it is safe to open a page built from a hostile session file:
- the data sits in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as
  JSON escapes, so no text from the session can close the block or open a tag;
- the viewer puts every value into the page with ``textContent``, never as HTML;
- a Content-Security-Policy allows only the viewer's own script (by its hash) and inline style, and no
  connection, image, font or frame source at all: the file works offline and asks nothing of a network.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from typing import Any

from workbench import __version__

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _asset(name: str) -> str:
    return resources.files("workbench.export").joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON text that is inert inside a ``<script>`` element whatever strings it holds."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return "".join(_ESCAPES.get(ch, ch) for ch in text) if any(c in text for c in _ESCAPES) else text


def render_page(payload: dict[str, Any], *, title: str) -> str:
    """The whole HTML document for ``payload`` (``{"meta":…, "session":…?, "stepper":…?}``)."""
    script = _asset("viewer.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:"
    data = dict(payload)
    data.setdefault("meta", {})["generator"] = f"TTSR Workbench {__version__}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_asset('viewer.css')}</style>\n</head>\n"
        "<body><noscript>This export needs JavaScript to show its views.</noscript>\n"
        f"<script type=\"application/json\" id=\"workbench-data\">{embed_json(data)}</script>\n"
        f"<script>{script}</script>\n</body></html>\n"
    )

"""The app's stylesheet (``theme.css``) as one cached URL for served pages.

Given to Panel as raw CSS, the stylesheet's text was copied into every model of the page (Panel adds
its global raw CSS to each component's shadow root): about sixty copies, 166 of the 230 KB of the
first document the browser pulls over the websocket, each parsed again. As a URL it is one
``ImportedStyleSheet`` model per document (Panel shares one per URL) and one file in the browser's
cache. Panel's component-resource route serves it: that route only hands out files a class lists in
one of its resource attributes, which is what ``ThemeFiles`` is for.

Views ask ``theme_sheets()`` for their own ``stylesheets``: nothing on a page of the app (the URL
already reaches every model through ``pn.config.css_files``), the URL on a page served some other
way, and the text itself outside a server (a notebook), where there is no route to load the URL from.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import panel as pn
from panel.io.resources import component_resource_path

from workbench.ui.entry_html import STYLESHEET

_FILE = "theme.css"


class ThemeFiles:
    """The files Panel's component-resource route may serve from this folder."""

    _stylesheets = [_FILE]  # the attribute name is one that route accepts


@cache
def _digest() -> str:
    return hashlib.sha256(Path(__file__).with_name(_FILE).read_bytes()).hexdigest()[:12]


def theme_url() -> str:
    """The stylesheet's URL, relative to the page like Panel's own; ``?v=`` lets the browser keep it
    without asking again (the server sends a long cache lifetime for a versioned static file)."""
    return f"{component_resource_path(ThemeFiles, '_stylesheets', _FILE)}?v={_digest()}"


def theme_sheets() -> list[str]:
    """A view's own ``stylesheets`` entry for the theme (see the module's docstring)."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return [STYLESHEET]
    url = theme_url()
    return [] if url in pn.config.css_files else [url]

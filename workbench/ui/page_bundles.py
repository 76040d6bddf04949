"""The served page loads only the Bokeh bundles the app uses: no MathJax, no WebGL.

Panel puts ``bokeh-mathjax.min.js`` (1.8 MB) on every page that holds one of its HTML models, in
case a string in it is TeX, and ``bokeh-gl.min.js`` on every page. Even from the browser's cache
each is parsed and run before the page's document can be drawn: measured on the 2-core machine,
about 0.08 s of the first tree row's wait for MathJax alone (``benchmarks/ui_browser.py``).

The app needs neither. Its HTML panes keep Panel's default ``disable_math=True`` (text from a
session is shown as written, never typeset), its two Markdown panes are fixed headings, and its
Bokeh plots draw on a canvas (``output_backend`` is never ``"webgl"``). ``install`` wraps the
function Panel's server calls to list a page's scripts so that it asks for neither; like
``write_flush``, it leaves Panel alone and says so in the log if that function has changed.
"""

from __future__ import annotations

import functools
import inspect
import logging
from typing import Any

from panel.io import server as pserver

log = logging.getLogger("workbench.ui")
_MARK = "_workbench_page_bundles"
UNUSED = ("bokeh-gl",)  # Bokeh components no page of the app needs (MathJax goes through its own switch)


def install() -> bool:
    """Wrap the page's bundle listing once per process; False when Panel's function differs."""
    original = getattr(pserver, "bundle_resources", None)
    if original is None or getattr(original, _MARK, False):
        return original is not None
    if "enable_mathjax" not in inspect.signature(original).parameters:
        log.warning("Panel's bundle_resources changed; pages keep Panel's MathJax and WebGL bundles")
        return False

    @functools.wraps(original)
    def bundle(roots: Any, resources: Any, *args: Any, **kwargs: Any) -> Any:
        components = getattr(resources, "components", None)
        if components is not None and any(c in UNUSED for c in components):
            resources = resources.clone(components=[c for c in components if c not in UNUSED])
        kwargs["enable_mathjax"] = False
        return original(roots, resources, *args, **kwargs)

    setattr(bundle, _MARK, True)
    pserver.bundle_resources = bundle  # the module-global name server_html_page_for_session calls
    return True

"""The served page lists no MathJax and no WebGL bundle (``workbench.ui.page_bundles``)."""

from __future__ import annotations

import urllib.request

import panel as pn
from panel.io import server as pserver
from panel.io.resources import Resources

from tests.ui.conftest import serving
from workbench.ui import page_bundles


def _scripts(bundle) -> str:
    return " ".join(str(f) for f in bundle.js_files)


def test_panel_alone_would_list_both_for_a_page_with_an_html_pane():
    # why the guard exists: with an HTML model on the page Panel adds MathJax, and WebGL always.
    # If a later Panel stops doing so, this fails and the guard can go.
    page_bundles.install()
    root = pn.pane.HTML("<b>text from a session, $$x$$ included</b>").get_root()
    listed = _scripts(pserver.bundle_resources.__wrapped__([root], Resources(mode="server")))
    assert "bokeh-mathjax" in listed and "bokeh-gl" in listed


def test_the_guard_drops_them_and_keeps_the_rest():
    assert page_bundles.install()
    root = pn.pane.HTML("<b>x</b>").get_root()
    listed = _scripts(pserver.bundle_resources([root], Resources(mode="server")))
    assert "bokeh-mathjax" not in listed and "bokeh-gl" not in listed
    assert all(name in listed for name in ("bokeh.min.js", "bokeh-widgets", "bokeh-tables", "panel.min.js"))


def test_install_wraps_once():
    assert page_bundles.install() and page_bundles.install()
    assert not getattr(pserver.bundle_resources.__wrapped__, page_bundles._MARK, False)


def test_a_served_page_asks_for_neither(served_dir):
    with serving([served_dir]) as url:
        html = urllib.request.urlopen(f"{url}?tab=tree", timeout=120).read().decode()
    assert "bokeh.min.js" in html and "panel.min.js" in html
    assert "bokeh-mathjax" not in html and "bokeh-gl" not in html

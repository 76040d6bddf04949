"""Fixtures for the UI tests: small session folders and an in-process server for Playwright."""

from __future__ import annotations

import contextlib
import shutil
import socket
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

# The machine may be busy (other test suites, benchmarks): every browser expectation gets a generous
# timeout, not only the first page load (pitfall P3).
expect.set_options(timeout=20_000)

FIXTURES = Path(__file__).with_name("fixtures")
HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    # Panel 1.9 announces its 2.0 removals (Widget.name -> label, Button(button_type=) -> color) as
    # PendingDeprecationWarning; the app must stay clean of them, served pages included (the filter
    # is process-wide while a test runs, so the server threads see it too).
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.filterwarnings("error::PendingDeprecationWarning"))


@pytest.fixture
def served(tmp_path) -> Path:
    """A copy of the fixture folder for one test."""
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    return target


@pytest.fixture(scope="module")
def served_dir(tmp_path_factory) -> Path:
    """A copy of the fixture folder per test module (label edits append; the originals stay untouched)."""
    target = tmp_path_factory.mktemp("served")  / "served"
    shutil.copytree(FIXTURES, target)
    return target


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_live(base: str) -> None:
    """Wait until a server started with ``liveness=True`` answers (or 60 s have passed)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{base}/liveness", timeout=1)
            return
        except OSError:
            time.sleep(0.1)


@contextlib.contextmanager
def serving_app(app, **kwargs):
    """Serve the Panel app function ``app`` in-process at ``/app``; yields its URL (pitfall P1: servers
    killed after)."""
    import panel as pn

    port = _free_port()
    server = pn.serve({"app": app}, port=port, address="127.0.0.1", websocket_origin=[f"127.0.0.1:{port}"],
                      threaded=True, show=False, liveness=True, **kwargs)
    base = f"http://127.0.0.1:{port}"
    _wait_until_live(base)
    try:
        yield f"{base}/app"
    finally:
        try:
            server.stop()
        except RuntimeError:  # already stopping
            pass
        # wait for the server's thread: a callback it still runs holds Bokeh's process-wide current
        # document, which the next test would otherwise see as its own
        server.join(timeout=60)
        try:
            pn.state.kill_all_servers()
        except RuntimeError:
            pass


@contextlib.contextmanager
def serving(paths, **kwargs):
    """Serve the workbench app over ``paths`` in-process; yields the app URL."""
    from workbench.ui.app import TITLE, create_app

    with serving_app(create_app(list(paths)), title=TITLE, **kwargs) as url:
        yield url


@pytest.fixture(scope="module")
def app_url(served_dir: Path):
    """Serve the app over ``served_dir`` in-process; yields the base URL."""
    with serving([served_dir]) as url:
        yield url


@pytest.fixture
def shot(tmp_path_factory):
    """Save a screenshot of the fixture views under pytest's temp folder and return its path.

    Not into docs/screenshots: the README shows the sample_sessions/ tour (docs/screenshots/take_tour.py),
    which a test run over the small fixtures must not overwrite.
    """
    folder = tmp_path_factory.getbasetemp() / "screenshots"

    def take(page, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        page.screenshot(path=str(path))
        return path

    return take


@pytest.fixture
def page(page):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.set_default_timeout(20_000)
    return page


@pytest.fixture
def clean_page(page, recwarn):
    """``page``, and at the end of the test a failure for any error the browser's console printed (a
    page error included) or any ``BokehUserWarning`` the server raised meanwhile ("reference already
    known 'pNNNN'": a model the page and the server disagree about, issue 27). ``recwarn`` records
    the server threads' warnings too: the warnings filters are process-wide."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    yield page
    from bokeh.util.warnings import BokehUserWarning

    bokeh = [str(w.message) for w in recwarn if issubclass(w.category, BokehUserWarning)]
    assert not bokeh, bokeh
    assert not errors, errors

"""Suite-wide fixtures: isolation from the real home directory, and the browser set-up for e2e tests."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = (
    os.environ.get("CHROMIUM_PATH")
    or shutil.which("chromium")
    or ("/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") else "/usr/bin/chromium")
)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path_factory, monkeypatch):
    """Tests never read the real home directory: HOME points at an empty temp folder, and big sessions'
    first passes are kept under it."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("WORKBENCH_INDEX_CACHE", str(home / "first-pass"))
    for var in ("PI_CODING_AGENT_DIR", "PI_CONFIG_DIR", "COPILOT_CUSTOM_INSTRUCTIONS_DIRS"):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Playwright cannot download its own browser here; drive Debian's chromium instead.
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_FLAGS}

"""The gates CI runs before the tests: ruff and mypy are configured, and scripts/test runs them first."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_scripts_test_runs_ruff_and_mypy_before_pytest():
    lines = [line.strip() for line in (ROOT / "scripts" / "test").read_text(encoding="utf-8").splitlines()]
    ruff = next(i for i, line in enumerate(lines) if "-m ruff check" in line)
    mypy = next(i for i, line in enumerate(lines) if line.endswith("-m mypy"))
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert ruff < pytest_line and mypy < pytest_line
    # `set -e` is in force for the gates (it is lifted only around pytest to report its exit code).
    assert lines.index("set -euo pipefail") < ruff and "set +e" not in lines[:mypy]


def test_tools_are_configured_and_installed_by_the_test_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["ruff"]["lint"]["select"]
    assert project["tool"]["mypy"]["files"] == ["workbench"]
    extra = " ".join(project["project"]["optional-dependencies"]["test"])
    assert "ruff" in extra and "mypy" in extra


def test_the_package_is_marked_typed():
    assert (ROOT / "workbench" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["workbench"]

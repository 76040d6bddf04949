"""Where the conformance case files live, and how a case becomes a test.

The runners read ``tests/conformance/data/`` unless ``WORKBENCH_CONFORMANCE_DIR`` names another
directory with files of the same names and formats (CONTRACT §2).
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.deviations import DEVIATIONS

DEFAULT_DIR = Path(__file__).parent / "data"


def data_dir() -> Path:
    override = os.environ.get("WORKBENCH_CONFORMANCE_DIR")
    return Path(override) if override else DEFAULT_DIR


@cache
def load(filename: str) -> Any:
    path = data_dir() / filename
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def param(filename: str, name: str, value: Any) -> Any:
    """One pytest param per case, id ``<file>::<name>``; listed deviations become strict xfails."""
    test_id = f"{filename}::{name}"
    marks = []
    if test_id in DEVIATIONS:
        marks.append(pytest.mark.xfail(reason=DEVIATIONS[test_id], strict=True))
    return pytest.param(value, id=test_id, marks=marks)

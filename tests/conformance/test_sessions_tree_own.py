"""The workbench's own cases (``own/sessions-tree-own.json``) through the same runner as the public file.

They pin behaviours the public cases do not show (issue 14: unusable files, orphans, labels on missing
entries, hookMessage migration, session operations, navigation no-ops) and add the ``omp18`` variant.
Expected values were read off the reference source, see the file's ``meta``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.test_sessions_tree import RUNNERS

FILE = Path(__file__).parent / "own" / "sessions-tree-own.json"


def _cases() -> list[Any]:
    data = json.loads(FILE.read_text(encoding="utf-8"))
    return [pytest.param((section, case), id=f"own::{section}/{case['name']}")
            for section, cases in data.items() if section != "meta" for case in cases]


@pytest.mark.parametrize("case", _cases())
def test_own_sessions_tree_case(case: tuple[str, dict[str, Any]]) -> None:
    section, body = case
    RUNNERS[section](body)

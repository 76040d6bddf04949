"""Runner for ``rules-pipeline.json``: one test per case, dispatched on the case's ``kind``.

The handlers live in modules named for the layer they exercise; a kind no module handles fails.
"""

from __future__ import annotations

import pytest

from tests.conformance import (
    pipeline_engine,
    pipeline_rules,
    pipeline_session,
    pipeline_tools,
)
from tests.conformance._data import load, param

FILENAME = "rules-pipeline.json"
HANDLERS = {
    **pipeline_rules.HANDLERS,
    **pipeline_engine.HANDLERS,
    **pipeline_session.HANDLERS,
    **pipeline_tools.HANDLERS,
}


def _cases():
    data = load(FILENAME)
    return [param(FILENAME, case.get("id") or case["name"], case) for case in data["cases"]]


@pytest.mark.parametrize("case", _cases())
def test_case(case):
    handler = HANDLERS.get(case["kind"])
    if handler is None:
        pytest.fail(f"no runner for kind {case['kind']!r}")
    handler(case, load(FILENAME))

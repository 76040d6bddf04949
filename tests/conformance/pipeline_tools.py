"""rules-pipeline.json handlers for the tool surfaces: kinds ``edit_strategy`` and ``render_template``.

``edit_strategy`` runs ``EDIT_MODE_STRATEGIES[mode][method](args)`` (one call, or several under
``input.calls``); ``null`` in an expectation means undefined. ``render_template`` renders the file's
reference templates (``fixtures.templates_17_4_1``, stored under ``templates_reference`` in some
copies) once per rule with the path substituted as given, formats and joins.
"""

from __future__ import annotations

from typing import Any

from workbench.ttsr.matchers import EDIT_MODE_STRATEGIES, MatcherEntry
from workbench.ttsr.templates import render_template


def as_json(value: Any) -> Any:
    """A strategy result in the case file's JSON shape (entries as ``{path, digest}``)."""
    if isinstance(value, MatcherEntry):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


def edit_strategy(mode: str, method: str, args: Any) -> Any:
    """The conformance op ``editStrategy(mode, method, args)``."""
    strategy = EDIT_MODE_STRATEGIES.get(mode)
    if strategy is None or method not in strategy:
        raise AssertionError(f"unknown edit strategy {mode}.{method}")
    return as_json(strategy[method](args))


def _edit_strategy_case(case: dict, _data: dict) -> None:
    spec = case["input"]
    for call in spec.get("calls", [spec]):
        got = edit_strategy(call["mode"], call["method"], call.get("args"))
        assert got == call.get("expect"), f"{call['mode']}.{call['method']}: {got!r} != {call.get('expect')!r}"


def _templates(data: dict) -> dict[str, str]:
    fixtures = data.get("fixtures", {})
    templates = fixtures.get("templates_17_4_1") or fixtures.get("templates_reference")
    if not isinstance(templates, dict):
        raise AssertionError("the case file has no reference templates fixture")
    return templates


def _render_template_case(case: dict, data: dict) -> None:
    spec = case["input"]
    template = _templates(data)[spec["template"]]
    rendered = [
        render_template(template, name=rule["name"], path=rule["path"], content=rule["content"])
        for rule in spec["rules"]
    ]
    assert spec.get("join", "\n\n").join(rendered) == case["expected"]["output"]


HANDLERS: dict = {"edit_strategy": _edit_strategy_case, "render_template": _render_template_case}

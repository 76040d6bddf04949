"""``fixtures.builtin_rules`` of rules-pipeline.json against what the builtin-defaults provider loads.

Every fixture rule is compared field by field (absent = ``None``, the body excepted: the fixture
omits bodies and the workbench's own are reworded) with the rule the provider produces, from the
workbench's own files and, when present, from the reference package itself. The provider's facts
(issue 14): the lowest priority of all providers, unique names, and on every rule a condition or AST
condition, a scope and an interrupt mode.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance._data import load
from tests.conformance.pipeline_rules import _RULE_FIELDS, rule_to_js
from tests.reference.oracle import require_oracle
from workbench.rules import INTERRUPT_MODES, PROVIDERS, load_rules

FIXTURE: list[dict[str, Any]] = load("rules-pipeline.json")["fixtures"]["builtin_rules"]
PROVIDER = "builtin-defaults"

SOURCES = [
    pytest.param("none", id="workbench-files"),
    pytest.param("reference", id="omp-18.3.4-package"),  # the package scripts/reference-oracle installs
]


@pytest.fixture(scope="module", params=SOURCES)
def loaded(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("builtin")
    result = load_rules(cwd=root, home=root, env={}, providers=[PROVIDER], omp_package=str(require_oracle().agent) if request.param == "reference" else request.param)
    assert not result.warnings
    return result


def _expected(fixture_rule: dict[str, Any]) -> dict[str, Any]:
    want = {js: fixture_rule.get(js) for js in _RULE_FIELDS if js != "content"}
    want["_source"] = fixture_rule.get("_source") or {
        "provider": PROVIDER, "providerName": "Builtin Defaults", "path": fixture_rule["path"], "level": "user",
    }
    return want


@pytest.mark.parametrize("fixture_rule", FIXTURE, ids=[r["name"] for r in FIXTURE])
def test_fixture_rule_is_what_the_provider_loads(loaded, fixture_rule):
    by_name = {r.name: r for r in loaded.rules}
    assert fixture_rule["name"] in by_name, f"{fixture_rule['name']} not loaded"
    got = rule_to_js(by_name[fixture_rule["name"]])
    got.pop("content")
    assert got == _expected(fixture_rule)


def test_the_provider_loads_exactly_the_fixture_rules_in_its_order(loaded):
    # The agent registers them ordered by name; so does the workbench (index.ts order when installed).
    assert [r.name for r in loaded.rules] == [r["name"] for r in FIXTURE]
    assert all(r.content for r in loaded.rules)


def test_provider_facts(loaded):
    builtin = next(p for p in PROVIDERS if p.id == PROVIDER)
    assert builtin.display_name == "Builtin Defaults"
    others = [p.priority for p in PROVIDERS if p.id != PROVIDER]
    assert builtin.priority < min(others), "builtin-defaults has the lowest priority of all providers"
    assert PROVIDERS[-1].id == PROVIDER
    names = [r.name for r in loaded.rules]
    assert len(names) == len(set(names)) == len(FIXTURE)
    for rule in loaded.rules:
        assert rule.condition or rule.ast_condition, f"{rule.name}: neither condition nor astCondition"
        assert rule.scope, f"{rule.name}: no scope"
        assert rule.interrupt_mode in INTERRUPT_MODES, f"{rule.name}: interruptMode {rule.interrupt_mode!r}"
        assert rule.path == f"{PROVIDER}:{rule.name}.md"
        assert rule.source is not None and (rule.source.provider, rule.source.level) == (PROVIDER, "user")

"""The oracle itself: the installed reference is the pinned one, and the harness fails loudly."""

from __future__ import annotations

import json
import re

from tests.reference.oracle import INSTALLER


def _pin(name: str) -> str:
    match = re.search(rf"^{name}=(\S+)", INSTALLER.read_text(encoding="utf-8"), re.MULTILINE)
    assert match, f"{name} not pinned in {INSTALLER}"
    return match.group(1)


def test_installed_packages_are_the_pinned_ones(oracle):
    for folder, spec, sha in ((oracle.agent, "AGENT_SPEC", "AGENT_SHA"), (oracle.tui, "TUI_SPEC", "TUI_SHA")):
        name, version = _pin(spec).rsplit("@", 1)
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        assert (manifest["name"], manifest["version"]) == (name, version)
        # The installer stamps a package with the integrity its tarball was checked against.
        assert (folder / ".integrity").read_text(encoding="utf-8").strip() == _pin(sha)
    assert oracle.bun_version == _pin("BUN_VERSION")
    assert oracle.ast_grep is not None
    assert (oracle.ast_grep / ".integrity").read_text(encoding="utf-8").strip() == _pin("SG_SHA")
    assert json.loads((oracle.ast_grep / "package.json").read_text(encoding="utf-8"))["version"] == _pin("SG_VERSION")


def test_unknown_cases_and_ops_are_errors_not_answers(oracle):
    results = oracle.run([
        {"kind": "nope"},
        {"kind": "engine", "ops": [{"op": "noSuchOp"}]},
    ])
    assert "unknown case kind" in results[0]["error"]
    assert "unknown op" in results[1]["error"]


def test_a_shim_reached_fails_the_case(oracle):
    # A thinking-level entry without its level makes the selector's search read pi-agent-core's
    # ThinkingLevel, which the harness does not have: the case must error, not answer.
    entry = {"type": "thinking_level_change", "id": "a", "parentId": None, "timestamp": "2026-01-01T00:00:00Z"}
    [result] = oracle.run([{"kind": "tree", "entries": [entry], "leaf": "a",
                            "queries": [{"filter": "all", "search": "t"}]}])
    assert "shim reached" in result["error"]


def test_reference_facts_come_through(oracle):
    # Facts from spec/ttsr-manager-oracle-notes.md, asked of the reference through the harness.
    [result] = oracle.run([{"kind": "engine", "ops": [
        {"op": "addRule", "rule": {"name": "r", "path": "r.md", "content": "", "condition": ["(?i)foo"]}},
        {"op": "checkDelta", "delta": "xF", "ctx": {"source": "text"}},
        {"op": "checkDelta", "delta": "OO", "ctx": {"source": "text"}},
        {"op": "checkDelta", "delta": "", "ctx": {"source": "text"}},
        {"op": "checkDelta", "delta": "foo", "ctx": {"source": "thinking"}},
    ]}])
    # Leading flags translated; a match across deltas; it keeps matching until marked; thinking
    # is outside the default scope.
    assert result["out"] == [True, [], ["r"], ["r"], []]

"""Runner for ``sessions-tree.json`` (format in its ``meta.conventions``).

Variant mapping (CONTRACT §2): ``pimono`` expectations run against the ``pi`` flavour, ``omp17`` against
``omp``; ``omp57`` expectations run against the package's ``omp57`` flavour where it has one. A case
with an op or shape this runner does not know fails.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.conformance._data import load, param
from workbench.errors import WorkbenchError
from workbench.sessions import build_session_context, parse_session_text
from workbench.sessions.tree import SessionTree
from workbench.tree.fuzzy import fuzzy_filter, scorer_for
from workbench.tree.treelist import TreeList

FILE = "sessions-tree.json"
FLAVOR = {"pimono": "pi", "omp57": "omp57", "omp17": "omp", "omp18": "omp18"}
HOME = "/home/u"
WIDTH = 200  # the render width the expected lines were produced with


def _data() -> dict[str, Any]:
    return load(FILE)


def _cases() -> list[Any]:
    data = _data()
    out: list[Any] = []
    fuzzy = data["fuzzy"]
    for i, vec in enumerate(fuzzy["match_vectors"]):
        out.append(param(FILE, f"fuzzy/match_vectors/{i}:{vec['query']}|{vec['text']}", ("fuzzy_match", vec)))
    for vec in fuzzy["filter_vectors"]:
        out.append(param(FILE, f"fuzzy/filter_vectors/{vec['name']}", ("fuzzy_filter", vec)))
    for group in fuzzy["reference_tests"]:
        for case in group["cases"]:
            out.append(param(FILE, f"fuzzy/reference_tests/{case['name']}", ("fuzzy_ref", case)))
    skip = {"meta", "fuzzy"}
    for section, cases in data.items():
        if section in skip or section.endswith("_note") or not isinstance(cases, list):
            continue
        for case in cases:
            out.append(param(FILE, f"{section}/{case['name']}", (section, case)))
    return out


# ----- helpers ---------------------------------------------------------------------------------

def _session_text(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _case_text(holder: dict[str, Any]) -> str:
    """The session file of a case: ``rawFile`` verbatim, or ``file`` records one per line."""
    if "rawFile" in holder:
        return holder["rawFile"]
    if "file" in holder:
        return _session_text(holder["file"])
    pytest.fail(f"case has neither 'file' nor 'rawFile': {sorted(holder)}")


def _summarise_content(content: Any) -> Any:
    if isinstance(content, list):
        return [{"text": b.get("text")} if isinstance(b, dict) and b.get("type") == "text"
                else {"type": b.get("type") if isinstance(b, dict) else None} for b in content]
    return content


def _check_messages(mine: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert [m.get("role") for m in mine] == [m["role"] for m in expected]
    for got, exp in zip(mine, expected, strict=True):
        for key, value in exp.items():
            have = _summarise_content(got.get("content")) if key == "content" else got.get(key)
            assert have == value, f"message {exp.get('role')}: {key} {have!r} != {value!r}"


def _check_context(ctx: Any, expected: dict[str, Any], variant: str) -> None:
    _check_messages(list(ctx.messages), expected["messages"])
    assert ctx.thinking_level == expected["thinkingLevel"]
    if variant == "pimono":
        assert (dict(ctx.model) if ctx.model is not None else None) == expected["model"]
    else:
        assert dict(ctx.models) == expected["models"]
        assert list(ctx.injected_ttsr_rules) == expected["injectedTtsrRules"]
    for key, value in expected.items():  # omp18 extras, when a case records them
        if key in ("mode", "serviceTier", "resetBoundaryId"):
            assert ctx.to_dict()[key] == value, key


def _tree_summary(nodes: list[Any]) -> list[dict[str, Any]]:
    out = []
    for node in nodes:
        item: dict[str, Any] = {"id": node.entry.id}
        if node.label is not None:
            item["label"] = node.label
        if node.children:
            item["children"] = _tree_summary(node.children)
        out.append(item)
    return out


def _entry_value(entry: Any, key: str) -> Any:
    if key == "id":
        return entry.id
    if key == "parentId":
        # As written (an orphan's or a self-parent's id stays), or as the migration set it.
        return entry.obj.get("parentId", entry.parent_id)
    if key == "type":
        return entry.type
    if key == "role":
        return entry.role
    return entry.obj.get(key)


def _as_expected(value: Any, expected: Any) -> Any:
    """An op's result in the shape the case records it: entries as ids or as dicts of the listed keys."""
    if isinstance(value, list):
        template = expected[0] if isinstance(expected, list) and expected else None
        return [_as_expected(v, template) for v in value]
    if hasattr(value, "parent_id") and hasattr(value, "obj"):  # an Entry
        if isinstance(expected, dict):
            return {k: _entry_value(value, k) for k in expected}
        if isinstance(expected, str):
            return value.id
        return {"id": value.id, "type": value.type}
    return value


class _Renamer:
    """Maps implementation-minted ids to the case's names (``as`` symbols, ``#n:type``, ``E<n>``)."""

    def __init__(self, known: set[str], style: str, start: int = 1) -> None:
        self.known = known
        self.style = style
        self.map: dict[str, str] = {}
        self.next = start
        # Ids the implementation minted; None = every unknown id. Anything else is kept as written:
        # an orphan's missing parent, a label's missing target, a summary's "root".
        self.minted: set[str] | None = None

    def name(self, entry_id: Any, etype: str = "") -> Any:
        if not isinstance(entry_id, str) or entry_id in self.known:
            return entry_id
        if self.minted is not None and entry_id not in self.minted and entry_id not in self.map:
            return entry_id
        if entry_id not in self.map:
            self.map[entry_id] = f"#{self.next}:{etype}" if self.style == "hash" else f"E{self.next}"
            self.next += 1
        return self.map[entry_id]


def _check_final(tree: SessionTree, final: dict[str, Any], variant: str, ren: _Renamer,
                 session_name: Any = None) -> None:
    ren.minted = {e.id for e in tree.entries} - ren.known
    for entry in tree.entries:
        ren.name(entry.id, entry.type)
    exp_entries = final["entries"]
    assert len(tree.entries) == len(exp_entries)
    for entry, exp in zip(tree.entries, exp_entries, strict=True):
        for key, value in exp.items():
            have = _entry_value(entry, key)
            if key in ("id", "parentId", "firstKeptEntryId", "targetId", "fromId"):
                have = ren.name(have, entry.type if key == "id" else "")
            assert have == value, f"entry {exp.get('id')}: {key} {have!r} != {value!r}"
    assert ren.name(tree.leaf_id) == final["leafId"]
    assert [ren.name(e.id) for e in tree.get_branch()] == final["branch"]

    def rename_tree(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**i, "id": ren.name(i["id"]), **({"children": rename_tree(i["children"])} if "children" in i else {})}
                for i in items]

    assert rename_tree(_tree_summary(tree.get_tree())) == final["tree"]
    assert {ren.name(k): v for k, v in tree.labels.items()} == final["labels"]
    ctx = build_session_context(tree.entries, tree.leaf_id, flavor=FLAVOR[variant])
    _check_context(ctx, final["context"], variant)
    if "sessionName" in final:
        assert session_name == final["sessionName"]


# ----- section runners ------------------------------------------------------------------------

def _run_fuzzy_match(vec: dict[str, Any]) -> None:
    algorithms = _data()["fuzzy"]["algorithms"]
    for alg in algorithms:
        got = scorer_for(alg)(vec["query"], vec["text"])
        exp = vec[alg]
        assert got.matches == exp["matches"], alg
        assert math.isclose(got.score, exp["score"], abs_tol=1e-9), (alg, got.score, exp["score"])


def _run_fuzzy_filter(vec: dict[str, Any]) -> None:
    for alg in _data()["fuzzy"]["algorithms"]:
        assert fuzzy_filter(vec["items"], vec["query"], lambda s: s, scorer_for(alg)) == vec[alg], alg


def _run_fuzzy_ref(case: dict[str, Any]) -> None:
    algorithms = case.get("variants") or list(_data()["fuzzy"]["algorithms"])
    for alg in algorithms:
        scorer = scorer_for(alg)
        expect = case.get("expect")
        if "compare" in case:
            a, b = (scorer(c["query"], c["text"]) for c in case["compare"])
            assert expect == "score(first) < score(second), both match"
            assert a.matches and b.matches and a.score < b.score, alg
        elif "items" in case:
            got = fuzzy_filter(case["items"], case["query"], lambda s: s, scorer)
            known = {"expect", "expect_contains", "expect_not_contains", "expect_first", "expect_set"}
            assert set(case) & known, f"unknown filter expectation in {sorted(case)}"
            if "expect" in case:
                assert got == expect, alg
            for item in case.get("expect_contains", []):
                assert item in got, alg
            for item in case.get("expect_not_contains", []):
                assert item not in got, alg
            if "expect_first" in case:
                assert got[0] == case["expect_first"], alg
            if "expect_set" in case:
                assert set(got) == set(case["expect_set"]), alg
        else:
            got = scorer(case["query"], case["text"])
            assert set(expect) <= {"matches", "score", "score_lt"}, f"unknown expectation {expect}"
            assert got.matches == expect["matches"], alg
            if "score" in expect:
                assert got.score == expect["score"], alg
            if "score_lt" in expect:
                assert got.score < expect["score_lt"], alg


def _run_ops(case: dict[str, Any], variant: str) -> None:
    flavor = FLAVOR[variant]
    tree = SessionTree([], leaf=None, flavor=flavor)
    symbols = {op["as"] for op in case["ops"] if "as" in op}
    literal_ids = symbols | {op.get("target") for op in case["ops"]} | {op.get("id") for op in case["ops"]}
    expected = case["expected"][variant]
    assert len(expected["steps"]) == len(case["ops"])
    for op, step in zip(case["ops"], expected["steps"], strict=True):
        name = op["op"]
        extra = {"id": op["as"]} if "as" in op else {}
        result: Any = None
        try:
            if name == "appendMessage":
                tree.append({"type": "message", **extra, "message": op["message"]})
            elif name == "appendThinkingLevelChange":
                tree.append({"type": "thinking_level_change", **extra, "thinkingLevel": op["level"]})
            elif name == "appendModelChange":
                body = ({"provider": op["provider"], "modelId": op["modelId"]} if variant == "pimono"
                        else {"model": f"{op['provider']}/{op['modelId']}", **({"role": op["role"]} if op.get("role") else {})})
                tree.append({"type": "model_change", **extra, **body})
            elif name == "appendCompaction":
                tree.append({"type": "compaction", **extra, "summary": op["summary"],
                             "firstKeptEntryId": op["firstKept"], "tokensBefore": op["tokensBefore"]})
            elif name == "appendCustomEntry":
                tree.append({"type": "custom", **extra, "customType": op["customType"], "data": op.get("data")})
            elif name == "appendCustomMessageEntry":
                tree.append({"type": "custom_message", **extra, "customType": op["customType"],
                             "content": op.get("content"), "display": op.get("display"), "details": op.get("details")})
            elif name == "appendLabelChange":
                if op["target"] not in tree.by_id:
                    raise WorkbenchError(f"Entry {op['target']} not found")
                obj = {"type": "label", **extra, "targetId": op["target"]}
                if op.get("label") is not None:
                    obj["label"] = op["label"]
                tree.append(obj)
            elif name == "appendTtsrInjection":
                tree.append({"type": "ttsr_injection", **extra, "injectedRules": op["rules"]})
            elif name == "appendSessionInfo":
                tree.append({"type": "session_info", **extra, "name": str(op.get("name", "")).strip()})
            elif name == "branch":
                tree.branch(op["target"])
            elif name == "resetLeaf":
                tree.reset_leaf()
            elif name == "branchWithSummary":
                target = op.get("target")
                if target is not None and target not in tree.by_id:
                    raise WorkbenchError(f"Entry {target} not found")
                tree.leaf_id = target
                tree.append({"type": "branch_summary", **extra, **tree.summary_record(target, op["summary"])})
            elif name == "createBranchedSession":
                tree = tree.create_branched(op["target"])
            elif name == "getBranch":
                start = next((op[k] for k in ("from", "fromId", "start", "startId", "id", "target") if k in op), None)
                result = tree.get_branch() if start is None else tree.get_branch(start)
            elif name == "getChildren":
                result = tree.get_children(op.get("id", op.get("target")))
            elif name == "getLeafId":
                result = tree.leaf_id
            elif name == "getTree":
                result = _tree_summary(tree.get_tree())
            elif name == "getEntry":
                e = tree.get_entry(op["id"])
                result = None if e is None else {"id": e.id, "type": e.type}
            elif name == "getLeafEntry":
                e = tree.get_leaf_entry()
                result = None if e is None else {"id": e.id, "type": e.type}
            elif name == "getLabel":
                result = tree.get_label(op["id"])
            else:
                pytest.fail(f"unknown op {name!r}")
        except WorkbenchError as exc:
            assert "threw" in step, f"{name} raised {exc}"
            assert str(exc) == step["threw"]
            continue
        assert "threw" not in step, f"{name} should have raised {step['threw']}"
        if "result" in step:
            assert _as_expected(result, step["result"]) == step["result"], name
    ren = _Renamer({s for s in literal_ids if s}, "hash")
    session_name = next((e.obj.get("name") for e in reversed(tree.entries)
                         if e.type == "session_info" and e.obj.get("name")), None)
    _check_final(tree, expected["final"], variant, ren, session_name)


def _run_session_ops(case: dict[str, Any]) -> None:
    for variant in case["expected"]:
        _run_ops(case, variant)


def _run_session_file_load(case: dict[str, Any]) -> None:
    # The library call answers as the agent's loader does (CLI/app raise: deviations.py).
    session = parse_session_text(_case_text(case), path="case.jsonl", strict=False)
    literal = {e.id for e in session.entries if e.data is None or "id" in e.raw}
    for variant, expected in case["expected"].items():
        tree = SessionTree(session, flavor=FLAVOR[variant])
        ren = _Renamer(literal if not case.get("anonymizeIds") else set(), "E", start=0)
        if not case.get("anonymizeIds"):
            ren.known = {e.id for e in tree.entries}
        final = expected["final"]
        if "header" in final and final["header"] is None:
            assert dict(session.header) == {}
        elif "header" in final:
            assert {k: session.header.get(k) for k in final["header"]} == final["header"]
        _check_final(tree, final, variant, ren, session.name)


def _run_build_context(case: dict[str, Any]) -> None:
    leaf = case.get("leafId")
    for variant, expected in case["expected"].items():
        if leaf == "__undefined__":
            ctx = build_session_context(case["entries"], flavor=FLAVOR[variant])
        else:
            ctx = build_session_context(case["entries"], leaf, flavor=FLAVOR[variant])
        _check_context(ctx, expected, variant)


def _run_migration(case: dict[str, Any]) -> None:
    text = _session_text(case["entries"])
    session = parse_session_text(text, path="case.jsonl", strict=False)
    # Minted ids are the same on every load (the agent writes them back; the workbench never writes).
    assert [e.id for e in parse_session_text(text, path="case.jsonl", strict=False).entries] == \
        [e.id for e in session.entries]
    for expected in case["expected"].values():
        exp = expected["entries"]
        assert dict(session.header) == exp[0]
        ren = _Renamer(set(), "E", start=1)
        got = []
        for entry in session.entries:
            obj = dict(entry.obj)
            for key in ("id", "parentId", "firstKeptEntryId"):
                if key in obj:
                    obj[key] = ren.name(obj[key])
            got.append(obj)
        assert got == exp[1:]
        assert [len(e.id) for e in session.entries] == expected["idLengths"]


def _run_load_entries(case: dict[str, Any]) -> None:
    session = parse_session_text(case["rawFile"], path="case.jsonl", strict=False)
    types = (["session"] if session.header else []) + [e.type for e in session.entries]
    for expected in case["expected"].values():
        assert len(types) == expected["count"]
        assert types == expected["types"]


def _run_navigate(case: dict[str, Any]) -> None:
    session = parse_session_text(_case_text(case), path="case.jsonl")
    for variant, exp in case["expected"].items():
        tree = SessionTree(session, leaf=case["oldLeaf"], flavor=FLAVOR[variant])
        if "threw" in exp:
            with pytest.raises(WorkbenchError) as err:
                tree.navigate(case["target"], summary=case["summaryText"] if case["summarize"] else None)
            assert str(err.value) == exp["threw"]
            continue
        result = tree.navigate(case["target"], summary=case["summaryText"] if case["summarize"] else None)
        if "noOp" in exp:
            assert result.no_op == exp["noOp"]
        if "result" in exp:  # navigateTree's own return value (summaryEntry compared by its fields)
            got = result.to_dict()
            if "summaryEntry" in got and "summaryEntry" in exp["result"]:
                got["summaryEntry"] = {k: got["summaryEntry"].get(k) for k in exp["result"]["summaryEntry"]}
            assert got == exp["result"]
        assert result.old_leaf_id == exp["oldLeafId"]
        if "commonAncestorId" in exp or not result.no_op:
            assert result.common_ancestor_id == exp["commonAncestorId"]
        if "entriesToSummarize" in exp or not result.no_op:
            assert list(result.entries_to_summarize) == exp["entriesToSummarize"]
        assert result.editor_text == exp.get("editorText")
        tree.apply_navigation(result)
        if "summaryEntry" in exp:
            se = exp["summaryEntry"]
            assert result.summary_entry is not None
            leaf = tree.get_leaf_entry()
            assert leaf is not None and leaf.type == "branch_summary"
            assert leaf.parent_id == se["parentId"]
            assert leaf.obj.get("fromId") == se["fromId"] and leaf.obj.get("summary") == se["summary"]
            assert se["isLeaf"] is True and exp["newLeafId"] == "<summaryEntry>"
        else:
            assert result.summary_entry is None
            if "newLeafId" in exp:
                assert tree.leaf_id == exp["newLeafId"]
        if "contextRoles" not in exp:
            continue
        ctx = build_session_context(tree.entries, tree.leaf_id, flavor=FLAVOR[variant])
        roles = []
        for m in ctx.messages:
            content = m.get("content")
            text = content if isinstance(content, str) else "".join(
                b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
            roles.append(f"{m['role']}:{text}" if m["role"] in ("user", "assistant") else m["role"])
        assert roles == exp["contextRoles"]


def _selector(case_input: dict[str, Any], variant: str) -> TreeList:
    session = parse_session_text(_case_text(case_input), path="case.jsonl")
    kwargs: dict[str, Any] = {"flavor": FLAVOR[variant], "height": case_input.get("height", 24), "home": HOME,
                              "width": WIDTH}
    if "leafOverride" in case_input:
        kwargs["leaf"] = case_input["leafOverride"]
    return TreeList(session, **kwargs)


def _check_step(state: TreeList, step: dict[str, Any]) -> None:
    assert state.visible_ids == step["visible"], step["after"]
    assert state.selected_id == step["selectedId"], step["after"]
    if "selectedIndex" in step and step["selectedId"] is not None:
        assert state.selected_index == step["selectedIndex"], step["after"]
    assert state.lines() == step["lines"], step["after"]


def _run_tree_view(case: dict[str, Any]) -> None:
    inp = case["input"]
    for variant, exp in case["expected"].items():
        state = _selector(inp, variant)
        session = parse_session_text(_case_text(inp), path="case.jsonl")
        tree = SessionTree(session)
        assert tree.leaf_id == exp["realLeafId"], variant
        if "leafOverride" not in inp:
            assert state.leaf_id == exp["leafForSelector"], variant
        assert state.flat_ids == exp["flatOrder"], variant
        assert [e.id for e in tree.entries] == exp["entryOrder"], variant
        for entry_id, text in exp["displayText"].items():
            assert state.display_text(entry_id) == text, (variant, entry_id)
        for entry_id, text in exp["searchText"].items():
            assert state.search_text(entry_id) == text, (variant, entry_id)
        keys = inp.get("keys", [])
        assert len(exp["steps"]) == len(keys) + 1
        _check_step(state, exp["steps"][0])
        for key, step in zip(keys, exp["steps"][1:], strict=True):
            state = state.press(key)
            _check_step(state, step)


def _run_selection_script(inp: dict[str, Any], variant: str, expected: list[Any] | None, case_name: str) -> None:
    state = _selector(inp, variant)
    seen = [state.selected_id]
    for key in inp.get("keys", []):
        state = state.press(key)
        seen.append(state.selected_id)
    if expected is not None:
        assert len(expected) == len(seen)
        for got, want in zip(seen, expected, strict=True):
            if want is not None or len(expected) == 1:
                assert got == want
        return
    if case_name in ("pimono_filter_change_resets_folds", "pimono_search_resets_folds"):
        for _ in range(len(state.visible_ids)):
            if state.selected_id == "user-3a":
                break
            state = state.down()
        assert state.selected_id == "user-3a"
        assert state.down().selected_id == "asst-3a"
        return
    pytest.fail(f"no expectation this runner knows for {case_name}")


def _run_tree_reference(case: dict[str, Any]) -> None:
    for variant in case["variants"]:
        _run_selection_script(case["input"], variant, case["expected_selected_after_each_key"], case["name"])


def _run_tree_probe(case: dict[str, Any]) -> None:
    for variant, expected in case["selected_after_each_key"].items():
        _run_selection_script(case["input"], variant, expected, case["name"])


RUNNERS = {
    "fuzzy_match": _run_fuzzy_match,
    "fuzzy_filter": _run_fuzzy_filter,
    "fuzzy_ref": _run_fuzzy_ref,
    "session_ops": _run_session_ops,
    "session_file_load": _run_session_file_load,
    "build_context": _run_build_context,
    "migration": _run_migration,
    "load_entries_from_file": _run_load_entries,
    "navigate_tree": _run_navigate,
    "tree_view": _run_tree_view,
    "tree_view_reference_tests": _run_tree_reference,
    "tree_view_variant_probes": _run_tree_probe,
}


@pytest.mark.parametrize("case", _cases())
def test_sessions_tree_case(case: tuple[str, dict[str, Any]]) -> None:
    section, body = case
    runner = RUNNERS.get(section)
    if runner is None:
        pytest.fail(f"unknown section {section!r}: this runner cannot execute it")
    runner(body)

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main

FIXTURES = Path(__file__).parent.parent / "sessions" / "fixtures"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tree_json_rows_in_display_order(capsys):
    code, out, _ = _run(capsys, "tree", str(FIXTURES / "v3_branched_labels.jsonl"), "--json", "--flavor", "omp")
    assert code == 0
    data = json.loads(out)
    assert [r["id"] for r in data["rows"]] == ["u1", "a1", "u2b", "a2b", "u2a", "a2a"]
    # omp 17's selector leaf walks up past the trailing label; the file's leaf is the label itself
    assert data["leaf"] == "a2b" and data["leafId"] == "l3" and data["total"] == 9
    assert set(data["rows"][0]) >= {"id", "type", "text", "label", "active", "line"}
    assert data["rows"][4]["label"] == "plan-a"


def test_tree_text_filter_search_flavor(capsys):
    code, out, _ = _run(capsys, "tree", str(FIXTURES / "v3_branched_labels.jsonl"), "--filter", "user-only",
                        "--flavor", "pi", "--search", "branch")
    assert code == 0
    # pi re-lays out the visible rows: without their hidden parent both branch heads are roots.
    assert out.splitlines() == ["› • user: branch B question", "  [plan-a] user: branch A question"]


def test_tree_leaf_option(capsys):
    code, out, _ = _run(capsys, "tree", str(FIXTURES / "v3_branched_labels.jsonl"), "--leaf", "a2a", "--json")
    data = json.loads(out)
    assert code == 0 and data["leaf"] == "a2a" and data["rows"][2]["id"] == "u2a"


def test_tree_reports_diagnostics_on_stderr(capsys):
    code, out, err = _run(capsys, "tree", str(FIXTURES / "two_objects_line.jsonl"))
    assert code == 0 and "two-objects" in err and ":3:" in err
    code, out, _ = _run(capsys, "tree", str(FIXTURES / "two_objects_line.jsonl"), "--json")
    data = json.loads(out)
    assert [d["kind"] for d in data["diagnostics"]][:1] == ["two-objects"]
    assert [n["line"] for n in data["notLoaded"]] == [3, 3]


@pytest.mark.parametrize("argv,needle", [
    (("tree", str(FIXTURES / "not_a_session.jsonl")), "not a session"),
    (("tree", str(FIXTURES / "nope.jsonl")), "not found"),
    (("tree", str(FIXTURES / "v3_branched_labels.jsonl"), "--leaf", "zz"), "'zz' not found"),
    (("context", str(FIXTURES / "v3_branched_labels.jsonl"), "--leaf", "zz", "--json"), "'zz' not found"),
])
def test_bad_input_is_one_error_line(capsys, argv, needle):
    code, out, err = _run(capsys, *argv)
    assert code != 0 and out == ""
    assert err.startswith("error: ") and needle in err and len(err.strip().splitlines()) == 1


def test_context_json_and_text(capsys):
    code, out, _ = _run(capsys, "context", str(FIXTURES / "v3_branched_labels.jsonl"), "--leaf", "a2a", "--json")
    data = json.loads(out)
    assert code == 0
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "user", "assistant"]
    assert data["leafId"] == "a2a" and data["models"] == {"default": "anthropic/claude-test"}
    code, out, _ = _run(capsys, "context", str(FIXTURES / "v1_linear.jsonl"), "--flavor", "pi")
    lines = out.splitlines()
    assert code == 0 and lines[1] == "compactionSummary: S" and lines[-1] == "user: third"


_PI_CUSTOM = (
    '{"type":"session","version":3,"id":"5b0e2f4c-91d7-4c6a-a3e8-0d7f1b9c2e64","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}\n'
    '{"type":"custom","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01Z","customType":"x"}\n'
    '{"type":"custom","id":"legacy","parentId":"a1","timestamp":"2026-01-01T00:00:02Z","customType":"y"}\n'
)


def test_tree_and_context_agree_on_the_leaf_under_auto(capsys, tmp_path):
    path = tmp_path / "pi.jsonl"
    path.write_text(_PI_CUSTOM)
    _, out, _ = _run(capsys, "tree", str(path), "--json")
    tree = json.loads(out)
    _, out, _ = _run(capsys, "context", str(path), "--json")
    ctx = json.loads(out)
    assert tree["flavor"] == ctx["flavor"] == "pi" and tree["flavorReason"] == ctx["flavorReason"]
    assert tree["leaf"] == tree["leafId"] == ctx["leafId"] == "legacy"
    assert [r["type"] for r in tree["rows"]] == [] and tree["total"] == 2  # custom rows: hidden by default


def test_no_mark_is_said_where_the_flavour_is_shown(capsys, tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(_PI_CUSTOM.replace("5b0e2f4c-91d7-4c6a-a3e8-0d7f1b9c2e64", "plain"))
    _, out, _ = _run(capsys, "tree", str(path), "--json")
    assert json.loads(out)["flavorReason"] == "detected: no mark: read as omp 18.3 (the current release)"
    _, _, err = _run(capsys, "tree", str(path))
    assert "note: no mark: read as omp 18.3" in err


def test_a_header_only_session_says_no_entries(capsys, tmp_path):
    path = tmp_path / "head.jsonl"
    path.write_text(_PI_CUSTOM.splitlines()[0] + "\n")
    code, out, _ = _run(capsys, "tree", str(path))
    assert code == 0 and out == "no entries\n"
    code, out, _ = _run(capsys, "context", str(path))
    assert code == 0 and out == "# no entries: the model would see no messages\n"


def test_a_filter_that_leaves_no_rows_says_so(capsys, tmp_path):
    path = tmp_path / "custom.jsonl"
    path.write_text(_PI_CUSTOM)
    code, out, _ = _run(capsys, "tree", str(path), "--search", "no such words anywhere")
    assert code == 0
    assert out.startswith("no rows under filter default and search 'no such words anywhere' (")
    assert out.rstrip().endswith("in the file; --filter all shows every kind)")
    code, out, _ = _run(capsys, "tree", str(path), "--filter", "all", "--search", "zzzqqq")
    assert code == 0 and out.startswith("no rows under filter all and search 'zzzqqq'") and "--filter all" not in out


@pytest.mark.parametrize("argv", [["--json"], ["--search", "compute"], ["--filter", "all", "--json"]])
def test_tree_of_a_big_file_leaves_its_results_in_it_and_prints_the_same(capsys, tmp_path, monkeypatch, argv):
    # what `workbench tree` does to a file of 32 MB or more, on a small one: the same rows and search
    from workbench.sessions import OnDisk, loader
    from workbench.sessions.records import LAZY_LINE_BYTES
    from workbench.sessions.synthetic import generate_session_text

    path = tmp_path / "big.jsonl"
    path.write_text(generate_session_text(120, tool_result_bytes=LAZY_LINE_BYTES), encoding="utf-8")
    whole = _run(capsys, "tree", str(path), *argv)
    monkeypatch.setattr(loader, "LINE_BY_LINE_BYTES", 0)
    left = loader.load_session(path, leave_big_results=True)
    assert sum(type(e.record) is OnDisk for e in left.entries) > 30
    assert _run(capsys, "tree", str(path), *argv) == whole and whole[0] == 0

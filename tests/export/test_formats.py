"""``export --format md|json``: the conversation at a leaf (tool calls folded) and the entries on the path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.export.formats import conversation_markdown
from workbench.sessions import choose_flavor, load_session

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    records = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/p"},
        {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
         "message": {"role": "user", "content": "list <files> ```"}},
        {"type": "message", "id": "a", "parentId": "u", "timestamp": "2026-11-30T10:00:01Z",
         "message": {"role": "assistant", "model": "m1", "content": [
             {"type": "text", "text": "looking"},
             {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}]}},
        {"type": "message", "id": "r", "parentId": "a", "timestamp": "2026-11-30T10:00:02Z",
         "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "bash", "content": [{"type": "text", "text": "a.py"}]}},
        {"type": "message", "id": "other", "parentId": "u", "timestamp": "2026-11-30T10:00:03Z",
         "message": {"role": "assistant", "model": "m1", "content": [{"type": "text", "text": "another branch"}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_markdown_folds_tool_calls_and_escapes_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.md"
    assert main(["export", str(_session(tmp_path)), "--leaf", "r", "--format", "md", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<details><summary>tool call: bash</summary>" in text and '"command": "ls"' in text
    assert "<details><summary>result of bash</summary>" in text and "a.py" in text
    assert "&lt;files&gt;" in text and "<files>" not in text and "another branch" not in text


def test_json_is_the_entries_on_the_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.json"
    session = _session(tmp_path)
    before = session.read_bytes()
    assert main(["export", str(session), "--leaf", "r", "--format", "json", "--out", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [e["id"] for e in data["entries"]] == ["u", "a", "r"] and data["leafId"] == "r"
    assert session.read_bytes() == before
    assert main(["export", str(session), "--format", "json", "--out", str(session)]) == 2
    assert session.read_bytes() == before


def test_markdown_reads_the_file_with_its_detected_flavour():
    # omp18-billing.jsonl carries omp 18's marks; read as omp 17 its conversation differs, so the
    # Markdown must follow the detection (as tree and context do), not a fixed omp 17.
    session = load_session(SAMPLES / "omp18-billing.jsonl")
    assert choose_flavor("auto", session).flavor == "omp18"
    as_auto = conversation_markdown(session, flavor="auto")
    assert as_auto == conversation_markdown(session, flavor="omp18")
    assert as_auto != conversation_markdown(session, flavor="omp")


def test_markdown_shows_the_compaction_summary_the_model_reads_and_pis_edits_as_diffs(tmp_path: Path) -> None:
    # a pi file (v3): the context at the leaf opens with the compaction's summary, which the Markdown
    # printed as an empty heading; pi's edit tool ({path, oldText, newText}) printed no diff
    records = [
        {"type": "session", "version": 3, "id": "p", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/p"},
        {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
         "message": {"role": "user", "content": "old question"}},
        {"type": "compaction", "id": "c", "parentId": "u", "timestamp": "2026-11-30T10:00:01Z",
         "summary": "## Goal\nrename <Foo>", "firstKeptEntryId": "u", "tokensBefore": 1000},
        {"type": "message", "id": "a", "parentId": "c", "timestamp": "2026-11-30T10:00:02Z",
         "message": {"role": "assistant", "model": "m1", "content": [
             {"type": "toolCall", "id": "t1", "name": "edit",
              "arguments": {"path": "src/a.ts", "oldText": "const Foo = 1;", "newText": "const Bar = 1;"}}]}},
    ]
    path = tmp_path / "pi.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    md = conversation_markdown(load_session(path), flavor="pi")
    assert "### compactionSummary\n\n<details><summary>compaction summary</summary>" in md
    assert "## Goal\nrename <Foo>" in md  # in a fence: code, as the agent wrote it
    assert "**`src/a.ts`** (edit, +1 −1)\n\n```diff\n-const Foo = 1;\n+const Bar = 1;\n```" in md

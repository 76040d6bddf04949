"""The app reads a file with the CLI's flavour decision, says what `auto` chose, and takes `&flavor=`."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.sessions import choose_flavor, load_session
from workbench.ui.roots import ServedRoots
from workbench.ui.session_doc import SessionDoc
from workbench.ui.state import AppState
from workbench.ui.tree_detail import nan_note

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def test_the_app_follows_auto_like_the_cli(tmp_path):
    state = AppState(ServedRoots.of([tmp_path]))
    assert state.flavour == "auto"
    sample = SAMPLES / "broken-line.jsonl"
    doc = SessionDoc(sample, state.flavour)
    assert doc.resolved == choose_flavor("auto", load_session(sample)).flavor == "pi"
    assert doc.flavour_note == "read as pi"
    row = next(r.text for r in doc.base.set_filter("all").rows() if r.type == "model_change")
    assert row == "[model: claude-sonnet-4-5]"


def test_a_file_without_a_mark_says_so(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"type": "session", "version": 3, "id": "S", "timestamp": "t", "cwd": "/"}) + "\n")
    assert SessionDoc(path, "auto").flavour_note == "no mark: read as omp18"
    assert SessionDoc(path, "pi").flavour_note == ""


def test_a_link_may_name_the_flavour_by_its_version(tmp_path):
    state = AppState(ServedRoots.of([tmp_path]))
    state.apply_query({"flavor": [b"omp17"]})
    assert state.flavour == "omp"
    state.apply_query({"flavor": [b"pi"]})
    assert state.flavour == "pi"
    state.apply_query({"flavor": [b"nonsense"]})
    assert state.flavour == "pi"


def test_the_entry_view_says_why_a_compaction_reads_nan(tmp_path):
    path = tmp_path / "c.jsonl"
    records = [{"type": "session", "version": 3, "id": "S", "timestamp": "t", "cwd": "/"},
               {"type": "compaction", "id": "c1", "parentId": None, "timestamp": "t", "summary": "s"},
               {"type": "compaction", "id": "c2", "parentId": "c1", "timestamp": "t", "summary": "s",
                "tokensBefore": 1500}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    doc = SessionDoc(path, "omp")
    assert doc.display_text("c1") == "[compaction: NaNk tokens]"
    assert "tokensBefore" in nan_note(doc, doc.entry("c1"))
    assert nan_note(doc, doc.entry("c2")) == ""

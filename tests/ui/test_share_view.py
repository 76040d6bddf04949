"""Export HTML and Copy link from Python: the downloaded page and the deep link."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from workbench.ui.roots import ServedRoots
from workbench.ui.share_view import ShareBar, export_bytes, link_query
from workbench.ui.state import AppState

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def state(tmp_path):
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    return AppState(ServedRoots.of([target]), session="branched.jsonl", rules_dir="project")


def _payload(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="workbench-data">(.*?)</script>', html, re.DOTALL)
    return json.loads(m.group(1))


def test_export_holds_the_session_and_the_stepper_at_the_current_step(state):
    state.stream = "project/unwrap.stream.jsonl"
    state.step = 5
    data, name = export_bytes(state)
    assert name == "branched-step5.html"
    html = data.decode("utf-8")
    assert "default-src 'none'" in html
    payload = _payload(html)
    assert payload["meta"]["openAt"] == "stepper"
    assert payload["session"]["id"] == "sess-branched-1"
    assert payload["stepper"]["open"] == 5 and len(payload["stepper"]["steps"]) > 5
    only_session, name = export_bytes(state, with_stepper=False)
    assert name == "branched.html" and "stepper" not in _payload(only_session.decode("utf-8"))


def test_export_without_anything_open_is_a_clear_error(tmp_path):
    from workbench.errors import UsageError

    with pytest.raises(UsageError, match="nothing to export"):
        export_bytes(AppState(ServedRoots.of([tmp_path])))


def test_the_link_restores_the_shareable_state(state):
    bar = ShareBar(state=state)
    state.param.update(step=7, tab="stepper", leaf="e05")
    query = parse_qs(bar.link.value.lstrip("?"))
    assert query == {"session": ["branched.jsonl"], "leaf": ["e05"], "step": ["7"], "tab": ["stepper"],
                     "rules": ["project"]}
    again = AppState(state.roots)
    again.apply_query({k: [v[0].encode()] for k, v in parse_qs(link_query(state)).items()})
    assert (again.session, again.leaf, again.step, again.tab) == ("branched.jsonl", "e05", 7, "stepper")


def test_the_download_callback_names_the_file(state):
    bar = ShareBar(state=state)
    out = bar._export()
    assert bar.save.filename == "branched-step0.html"
    assert out.read().startswith(b"<!DOCTYPE html>")


def test_the_download_is_disabled_while_nothing_is_open(tmp_path):
    state = AppState(ServedRoots.of([tmp_path]))
    bar = ShareBar(state=state)
    assert bar.download.disabled
    (tmp_path / "s.jsonl").write_text('{"type": "session", "version": 3, "id": "s", "cwd": "/"}\n', encoding="utf-8")
    state.session = "s.jsonl"
    assert not bar.download.disabled


def test_the_redacted_export_and_its_preview(tmp_path):
    from tests.sessions.subagent_family import MAIL, SECRET, write_family
    from workbench.export import Redactor
    from workbench.ui.share_view import preview_html

    paths = write_family(tmp_path)
    before = paths["parent"].read_bytes()
    state = AppState(ServedRoots.of([tmp_path]), session="support-parent.jsonl")
    report: list = []
    data, name = export_bytes(state, with_stepper=False, redactor=Redactor(("src/app",)), report=report)
    text = data.decode("utf-8")
    assert name == "support-parent-redacted.html"
    assert SECRET not in text and MAIL not in text and "src/app" not in text and "[redacted:email]" in text
    found = report[0]
    assert found.counts["api-key"] == 1 and found.counts["email"] == 1 and found.counts["pattern"] == 1
    html = preview_html(found)
    assert "wb-redact-count" in html and SECRET in html and "&lt;" not in html.split("<table")[0]
    assert paths["parent"].read_bytes() == before  # the session file is never changed
    dry: list = []
    assert export_bytes(state, with_stepper=False, redactor=Redactor(), report=dry, dry_run=True)[0] == b""
    assert dry[0].total == found.total - 1


def test_the_dialog_turns_redaction_on_and_shows_the_preview(tmp_path):
    from tests.sessions.subagent_family import SECRET, write_family

    write_family(tmp_path)
    bar = ShareBar(state=AppState(ServedRoots.of([tmp_path]), session="support-parent.jsonl"))
    bar.with_stepper.value = False
    assert bar.patterns.disabled and bar.download.label == "Export HTML"
    bar.redact.value = True
    assert not bar.patterns.disabled and bar.download.label == "Export redacted HTML"
    assert SECRET in bar.preview.object and "value(s) will be redacted" in bar.preview.object
    out = bar._export().read().decode("utf-8")
    assert SECRET not in out and bar.save.filename.endswith("-redacted.html")
    bar.patterns.value = "(unclosed"
    assert "No preview" in bar.preview.object  # a bad pattern is reported, not a traceback


def test_the_export_button_builds_the_file_and_hands_it_to_the_download(state):
    bar = ShareBar(state=state)
    bar.open_dialog()  # the dialog counts the stepper run's steps
    assert bar.steps is not None and 0 < bar.steps <= 5_000 and bar.with_stepper.value
    assert f"{bar.steps:,} step(s)" in bar.steps_note.object
    task = bar.start_export()
    assert task.finished and not bar.progress.visible and not bar.cancel_button.visible
    assert bar.save.filename == "branched-step0.html" and bar.save.data.startswith("data:text/html;base64,")


def test_the_export_reports_progress_and_stops_when_cancelled(state):
    from workbench.ui.background import Cancelled

    state.stream = "project/unwrap.stream.jsonl"
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int, text: str) -> None:
        seen.append((done, total))
        if done > 1:
            raise Cancelled("export")  # what task.progress raises once Cancel was pressed

    with pytest.raises(Cancelled):
        export_bytes(state, progress=progress)
    assert seen[-1][0] > 1 and all(d <= 1 for d, _t in seen[:-1])  # it stopped at the first report past 1
    full: list[tuple[int, int]] = []
    export_bytes(state, progress=lambda d, t, _s: full.append((d, t)))
    assert full[-1][0] == full[-1][1]  # the last report is the whole run
    assert all(d < t for d, t in full[:-1])  # and only the last: the bar is full only when the page is


def test_a_big_stepper_run_is_left_out_by_default_with_a_note(tmp_path, monkeypatch):
    from workbench.sessions.synthetic import generate_session_text
    from workbench.ui import share_view

    (tmp_path / "big.jsonl").write_text(generate_session_text(300, tool_result_bytes=2000), encoding="utf-8")
    state = AppState(ServedRoots.of([tmp_path]), session="big.jsonl")
    steps = share_view.stepper_steps(state)
    assert steps is not None and steps > 100
    monkeypatch.setattr(share_view, "STEP_LIMIT", 100)
    bar = ShareBar(state=state)
    bar.open_dialog()
    assert bar.steps == steps and not bar.with_stepper.value
    assert f"<b>{steps:,}</b> steps" in bar.steps_note.object and "Tick the box" in bar.steps_note.object
    bar._export()
    assert bar.save.filename == "big.html"  # the tree only
    bar.with_stepper.value = True  # the user may include it anyway
    assert "Cancel stops it" in bar.steps_note.object
    monkeypatch.setattr(share_view, "STEP_LIMIT", 5_000)
    small = ShareBar(state=state)
    small.open_dialog()
    assert small.with_stepper.value and "step(s)" in small.steps_note.object


def test_the_steps_are_counted_when_the_dialog_opens_not_with_the_page(state, monkeypatch):
    """Counting loads and derives the session's stream: at every page build it parsed a large session
    a second time beside the tab that opened it (docs/large-sessions.md)."""
    from workbench.ui import share_view

    counted: list[str] = []
    real = share_view.stepper_steps

    def counting(s):
        counted.append(s.session)
        return real(s)

    monkeypatch.setattr(share_view, "stepper_steps", counting)
    bar = ShareBar(state=state)
    state.chunking = "tokens"
    assert counted == [] and bar.steps is None and not bar.counting
    bar.open_dialog()
    assert counted == ["branched.jsonl"] and bar.steps == real(state) and not bar.counting
    assert not bar.download.disabled
    state.chunking = "fixed"  # the dialog is open: recounted at once
    assert len(counted) == 2 and bar.steps == real(state)
    out = ShareBar(state=state)
    assert out._export() is not None and len(counted) == 3  # an export made without the dialog counts first

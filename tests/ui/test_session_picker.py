"""The header's session picker without a browser: its lines, what a pick opens, what a bad pick says."""

from __future__ import annotations

from pathlib import Path

from workbench.sessions.synthetic import CORPUS_PROJECTS, write_corpus
from workbench.ui import notify
from workbench.ui.app import Server
from workbench.ui.session_picker import SessionPicker, picker_line


def _picker(folder: Path):
    server = Server([folder], uploads=False)
    state = server.new_state()
    return SessionPicker(state=state, catalog=server.catalog), state, server


def test_each_session_has_one_line_with_its_file_title_and_project(tmp_path: Path) -> None:
    write_corpus(tmp_path, 9)
    picker, state, server = _picker(tmp_path)
    lines = picker.input.options
    assert len(lines) == len(server.catalog.summaries()) == 9 and len(set(lines)) == 9
    titled = next(s for s in server.catalog.summaries() if s.path.endswith("session-00004.jsonl"))
    line = picker_line(titled.path, titled.name, titled.project)
    assert line in lines and titled.name in line and titled.project in line and line.startswith(titled.path)
    # a file without a title is not named twice
    plain = next(s for s in server.catalog.summaries() if s.path.endswith("session-00001.jsonl"))
    assert picker_line(plain.path, plain.name, plain.project) == f"{plain.path} · {CORPUS_PROJECTS[1]}"
    assert picker.input.value == state.session  # the box shows the open file


def test_picking_a_line_opens_its_session_and_the_box_shows_the_file(tmp_path: Path) -> None:
    write_corpus(tmp_path, 6)
    picker, state, _ = _picker(tmp_path)
    line = next(x for x in picker.input.options if "session-00002.jsonl" in x)
    picker.input.value = line
    assert state.session.endswith("session-00002.jsonl") and state.tab == "tree"
    assert picker.input.value == state.session
    # the state drives the box too (a link, a row of the Sessions table)
    other = next(x for x in picker.input.options if "session-00005.jsonl" in x)
    state.open_session(picker.path_of(other))
    assert picker.input.value == state.session and state.session.endswith("session-00005.jsonl")


def test_text_that_names_no_session_says_so_and_keeps_the_open_one(tmp_path: Path) -> None:
    write_corpus(tmp_path, 3)
    picker, state, _ = _picker(tmp_path)
    before = state.session
    picker.input.value = "<b>nothing</b>"
    level, message = notify.history()[-1]
    assert level == "warning" and "&lt;b&gt;nothing&lt;/b&gt;" in message and "<b>" not in message
    assert state.session == before and picker.input.value == before


def test_new_sessions_reach_the_menu(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a", 2)
    picker, state, server = _picker(tmp_path)
    write_corpus(tmp_path / "b", 3)
    server.catalog.add([tmp_path / "b"])
    state.catalog_revision += 1
    assert len(picker.input.options) == len(server.catalog.summaries()) == 5

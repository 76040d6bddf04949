"""The Sessions table without a browser: failed files say why on click, notices are named and escaped."""

from __future__ import annotations

from types import SimpleNamespace

from tests.ui.test_catalog import _hostile
from workbench.ui import notify
from workbench.ui.app import Server, build_views


def _view(tmp_path):
    folder = _hostile(tmp_path / "served")
    server = Server([folder], uploads=False)
    state = server.new_state()
    return build_views(server, state)["sessions"], state


def _row(view, path):
    return list(view._table.value["path"]).index(path)


def test_clicking_a_file_that_did_not_load_shows_its_reason_and_opens_nothing(tmp_path):
    view, state = _view(tmp_path)
    state.session = "branched.jsonl"
    view._on_row_click(SimpleNamespace(row=_row(view, "headless.jsonl")))
    level, message = notify.history()[-1]
    assert level == "error"
    assert message == "not loaded: headless.jsonl:1: not a session: the first record is not a session header"
    assert state.session == "branched.jsonl"  # never another session, never this one


def test_clicking_a_file_with_notices_names_them_escaped_and_opens_it(tmp_path):
    view, state = _view(tmp_path)
    view._on_row_click(SimpleNamespace(row=_row(view, "future.jsonl")))
    level, message = notify.history()[-1]
    assert level == "info" and message.startswith("future.jsonl: header: newer-version")
    # toasts render HTML: the type name from the file arrives as text
    assert "&lt;b&gt;odd&lt;/b&gt;" in message and "<b>" not in message
    assert state.session == "future.jsonl"


def test_the_table_lists_every_served_file_with_a_status(tmp_path):
    view, _ = _view(tmp_path)
    table = view._table.value
    assert set(table["path"]) == {"binary.jsonl", "empty.jsonl", "headless.jsonl", "branched.jsonl", "future.jsonl"}
    assert all(s.startswith("not loaded: ") for s in table["status"][:3])
    # shown as text (Tabulator's plaintext and textarea formatters escape), never as HTML
    assert all(view._table.formatters.get(c, {"type": "plaintext"})["type"] in ("plaintext", "textarea")
               for c in ("name", "status", "notices", "path"))

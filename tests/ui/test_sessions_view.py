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


# -- many sessions: the columns that tell rows apart, the total, the live search ---------------------

def _corpus_view(tmp_path, count=24):
    from workbench.sessions.synthetic import write_corpus

    write_corpus(tmp_path / "corpus", count)
    server = Server([tmp_path / "corpus"], uploads=False)
    state = server.new_state()
    return build_views(server, state)["sessions"], state, server


def test_the_table_shows_file_project_date_model_and_cost_and_a_total(tmp_path):
    from workbench.store import session_usage

    view, _, server = _corpus_view(tmp_path)
    table = view._table.value
    assert list(table.columns[:6]) == ["path", "name", "project", "date", "model", "cost"]
    assert view._table.titles["path"] == "File" and view._table.titles["project"] == "Project (cwd)"
    per_file = session_usage(server.catalog.store)
    for row in table.to_dict("records"):
        stored = per_file[str(server.roots.resolve(row["path"]))]
        assert row["cost"] == stored["cost"] and row["model"] == stored["model"] and row["project"].startswith("/")
    assert "<b>24</b> session(s)" in view._total.object
    assert f"${sum(table['cost']):,.4f}" in view._total.object


def test_the_search_runs_as_the_user_types_and_counts_every_hit(tmp_path, monkeypatch):
    from workbench.ui import sessions_view

    monkeypatch.setattr(sessions_view, "SEARCH_LIMIT", 4)
    view, state, server = _corpus_view(tmp_path)
    view._search.value_input = "look at module1"  # no Enter
    every = server.catalog.store.search("look at module1", limit=10_000)
    assert len(view._hits.value) == 4 < len(every)
    files = len({h["path"] for h in every})
    assert f"<b>{len(every):,}</b> hit(s) in <b>{files:,}</b> session(s)" in view._hit_count.object
    assert "the first 4 listed" in view._hit_count.object
    first = view._hits.value.iloc[0]
    assert first["session"].endswith(".jsonl") and first["title"]
    view._on_hit_click(SimpleNamespace(row=0))
    assert (state.session, state.leaf, state.tab) == (first["session"], first["id"], "tree")
    view._search.value_input = "no such words anywhere"
    assert "No entry matches" in view._hit_count.object and view._hits.value.empty
    view._search.value_input = ""
    assert not view._hits.visible and view._hit_count.object == ""


def test_the_search_count_escapes_the_query(tmp_path):
    view, _, _ = _corpus_view(tmp_path, 2)
    view._search.value_input = "<img src=x>"
    assert "&lt;img src=x&gt;" in view._hit_count.object and "<img" not in view._hit_count.object

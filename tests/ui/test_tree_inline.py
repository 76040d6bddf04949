"""A small session is read while the page is built (``TreeView._open_inline``); the rest waits for the lane."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.ui import tree_view
from workbench.ui.tree_view import TreeView

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def view(tmp_path):
    target = tmp_path / "served"
    shutil.copytree(FIXTURES, target)
    v = TreeView.from_path(target / "branched.jsonl")
    v._graph = None  # as on a page being built: nothing drawn yet
    v.graph.object = None
    return v


def test_a_small_file_comes_with_its_rows_and_leaves_the_graph_for_later(view):
    assert view._open_inline()
    assert view.rows.rows and view.tl.selected_id == "e09"
    # the graph and the conversation wait for the page's first render
    assert view._graph is None and "Building the conversation" in view.detail.conversation.object
    view._after_first_render()
    assert view._graph is not None and view.graph.object is not None
    assert "message(s) the model would see" in view.detail.conversation.object


def test_a_file_over_the_limit_takes_the_lane(view, monkeypatch):
    monkeypatch.setattr(tree_view, "INLINE_BYTES", 10)
    generation = view._generation
    assert not view._open_inline()
    assert view._generation == generation  # nothing was loaded in its place


def test_a_file_that_cannot_be_read_takes_the_lane(view):
    view.state.session_path().unlink()
    assert not view._open_inline()


def test_no_session_takes_the_lane(view):
    view.state.session = ""
    assert not view._open_inline()

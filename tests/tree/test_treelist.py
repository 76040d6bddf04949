from __future__ import annotations

import pytest

from workbench.errors import UsageError
from workbench.sessions import load_session
from workbench.sessions.loader import parse_session_text
from workbench.sessions.synthetic import generate_session_text
from workbench.tree.treelist import FILTER_MODES, TreeList


@pytest.fixture
def branched(fixture_path):
    return load_session(fixture_path("v3_branched_labels.jsonl"))


def test_omp_rows_put_active_branch_first_with_connectors(branched):
    tl = TreeList(branched, flavor="omp", home="/home/u")
    assert tl.leaf_id == "a2b"  # trailing labels skipped
    assert tl.visible_ids == ["u1", "a1", "u2b", "a2b", "u2a", "a2a"]
    assert tl.selected_id == "a2b"
    assert tl.lines() == [
        "  • user: start",
        "  • assistant: response one",
        "  ├─ • user: branch B question",
        "› │     • assistant: branch B answer",
        "  └─ [plan-a] user: branch A question",
        "     │  assistant: branch A answer",  # omp17 chain anchor under └─
    ]


def test_pi_uses_real_leaf_fold_glyphs_and_counter(branched):
    tl = TreeList(branched, flavor="pi")
    assert tl.leaf_id == "l3"
    # l3 is hidden by the default filter: selection walks up to the nearest visible ancestor.
    assert tl.selected_id == "a2b"
    lines = tl.lines()
    assert lines[2] == "  ├⊟ • user: branch B question"
    assert lines[-1] == "  (4/6)"


def test_filter_modes_and_cycle(branched):
    tl = TreeList(branched, flavor="omp")
    assert tl.set_filter("user-only").visible_ids == ["u1", "u2b", "u2a"]
    assert tl.set_filter("labeled-only").visible_ids == ["u2a"]
    assert "l1" in tl.set_filter("all").visible_ids
    states = [tl]
    for _ in FILTER_MODES:
        states.append(states[-1].cycle_filter())
    assert [s.filter_mode for s in states] == [*FILTER_MODES, "default"]
    assert tl.cycle_filter(backward=True).filter_mode == "all"
    with pytest.raises(UsageError):
        tl.set_filter("everything")


def test_search_fuzzy_for_omp_substring_for_pi(branched):
    omp = TreeList(branched, flavor="omp").set_search("brnch qstn")
    assert omp.visible_ids == ["u2b", "u2a"]
    pi = TreeList(branched, flavor="pi").set_search("brnch")
    assert pi.visible_ids == []
    assert pi.lines() == ["  No entries found", "  (0/0)"]
    assert TreeList(branched, flavor="pi").set_search("plan-a").visible_ids == ["u2a"]  # labels are searchable


def test_omp_empty_states(branched):
    tl = TreeList(branched, flavor="omp")
    assert tl.set_search("zzzz").lines() == [
        '  No entries match search "zzzz"', "  Press Backspace to clear the search", "  (0/9)"]
    user_only_search = tl.set_filter("labeled-only").set_search("start")
    assert user_only_search.lines()[0] == '  No entries match search "start"'


def test_keys_are_pure_and_wrap(branched):
    tl = TreeList(branched, flavor="omp")
    down = tl.down()
    assert tl.selected_id == "a2b" and down.selected_id == "u2a"
    assert tl.up().up().up().up().selected_id == "a2a"  # wraps from the top to the bottom
    assert tl.page_up().selected_id == "u1" and tl.page_down().selected_id == "a2a"
    typed = tl.press("b").press("r")
    assert typed.search == "br" and typed.backspace().search == "b"
    assert typed.escape().search == "" and tl.escape().closed


def test_selection_is_remembered_across_filters(branched):
    tl = TreeList(branched, flavor="omp").select("a2a")
    assert tl.set_filter("user-only").selected_id == "u2a"
    assert tl.set_filter("user-only").set_filter("default").selected_id == "u2a"


def test_pi_fold_and_unfold(branched):
    tl = TreeList(branched, flavor="pi").select("u2b")
    folded = tl.fold_left()
    assert folded.visible_ids == ["u1", "a1", "u2b", "u2a", "a2a"]
    assert folded.lines()[2].startswith("› ├⊞ ")
    assert folded.fold_right().visible_ids == tl.visible_ids
    # a filter change clears folds
    assert folded.set_filter("default").visible_ids == tl.visible_ids


def test_rows_carry_file_lines_and_labels(branched):
    rows = {r.id: r for r in TreeList(branched, flavor="omp").rows()}
    assert rows["u2a"].label == "plan-a" and rows["u2a"].file_line == 4
    assert rows["a2b"].selected and rows["a2b"].active and not rows["a2a"].active


def test_script_content_stays_plain_text(fixture_path):
    rows = TreeList(load_session(fixture_path("script_content.jsonl")), flavor="omp", filter_mode="all").rows()
    texts = [r.line for r in rows]
    assert any("<script>alert(1)</script>" in t for t in texts)
    assert any("[<img src=x onerror=alert(2)>]" in t for t in texts)


def test_orphans_render_as_roots(fixture_path):
    tl = TreeList(load_session(fixture_path("missing_parent.jsonl")), flavor="omp")
    assert tl.visible_ids == ["o1", "o2", "u1", "a1"]  # the root holding the leaf first


def test_window_centres_on_selection():
    tl = TreeList(parse_session_text(generate_session_text(40), path="g.jsonl"), flavor="pi", height=10)
    assert tl.max_visible == 5
    start, end = tl.window()
    assert end - start == 5 and tl.selected_index == len(tl.visible_ids) - 1
    assert len(tl.lines()) == 6


def test_large_session_flattens_without_recursion_errors():
    session = parse_session_text(generate_session_text(5000, branch_every=100), path="big.jsonl")
    tl = TreeList(session, flavor="omp")
    assert tl.total == 5000
    assert len(tl.rows()) == len(tl.visible_ids)


def test_home_end_and_visible_ids(branched):
    tl = TreeList(branched, flavor="omp")
    assert tl.press("home").selected_id == "u1" and tl.press("end").selected_id == "a2a"
    assert tl.visible_ids == ["u1", "a1", "u2b", "a2b", "u2a", "a2a"]


def test_pi_page_keys_and_toggles(branched):
    tl = TreeList(branched, flavor="pi")
    assert tl.press("ctrl+b").selected_id == "u1" and tl.press("ctrl+f").selected_id == "a2a"
    assert tl.press("ctrl+u").filter_mode == "user-only"
    assert tl.press("ctrl+u").press("ctrl+u").filter_mode == "default"
    assert tl.press("alt+u").filter_mode == "default"  # not a pi key
    assert TreeList(branched, flavor="omp").press("alt+u").filter_mode == "user-only"
    assert tl.press("L").search == "" and TreeList(branched, flavor="omp").press("l").search == "l"


@pytest.mark.parametrize("flavor", ["omp", "pi", "omp57"])
def test_rows_slice_renders_the_same_rows_as_the_full_list(branched, flavor):
    tl = TreeList(branched, flavor=flavor).down()
    full = tl.rows()
    assert tl.rows(1, 4) == full[1:4]
    assert tl.rows(2) == full[2:]
    assert tl.rows(-2, None) == full[-2:]
    assert tl.rows(10, 20) == []
    assert tl.window_rows() == full[slice(*tl.window())]
    assert tl.visible_count == len(full)


def test_search_states_share_results_and_backspace_restores(branched):
    tl = TreeList(branched, flavor="omp")
    narrowed = tl.type_text("branch").type_text(" qu")
    assert narrowed.visible_ids == ["u2b", "u2a"]  # the two questions; the answers lack "qu"
    again = narrowed.backspace().backspace().backspace()
    assert again.search == "branch"
    assert again.visible_ids == tl.set_search("branch").visible_ids
    cleared = again
    for _ in "branch":
        cleared = cleared.backspace()
    assert cleared.search == "" and cleared.visible_ids == tl.visible_ids

"""The omp18 flavour: rows, filters, search, keys and detection of omp 18.3.4 (pi-tui 18.2.9's selector).

Expected texts are read off the reference source (tree-selector.ts ``#getEntryDisplayText`` /
``#getSearchableText``, session-context.ts); the fuzzy vectors were produced by running pi-tui 18.2.9's
``fuzzy.ts`` (fixtures/fuzzy18_vectors.json says how).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sessions.generated import HEADER, assistant_msg, chained_session, user_msg
from workbench.errors import UsageError
from workbench.sessions import parse_session_text
from workbench.sessions.flavors import detect_flavor, resolve_flavor
from workbench.tree import TreeList
from workbench.tree.fuzzy import word_match
from workbench.tree.fuzzy18 import word_match18

FIXTURES = Path(__file__).parent / "fixtures"
ROWS = [
    ({"type": "model_usage", "purpose": "title", "role": "tiny", "api": "a", "provider": "anthropic",
      "model": "claude-haiku-4-5", "usage": {}, "stopReason": "stop"}, "[model usage: title tiny anthropic/claude-haiku-4-5]"),
    ({"type": "model_usage", "purpose": "judge", "provider": "openai", "model": "gpt-5"}, "[model usage: judge openai/gpt-5]"),
    ({"type": "thinking_level_change", "thinkingLevel": "high", "configured": "auto"}, "[thinking: high]"),
    ({"type": "thinking_level_change", "thinkingLevel": None, "configured": None}, "[thinking: off]"),
    ({"type": "model_change", "model": "anthropic/claude-opus-4-1", "role": "slow", "resolvedModelIsFallback": True},
     "[model: anthropic/claude-opus-4-1]"),
    ({"type": "service_tier_change", "serviceTier": {"openai": "flex", "anthropic": "priority"}},
     "[service tier: openai:flex anthropic:priority]"),
    ({"type": "service_tier_change", "serviceTier": None}, "[service tier: (default)]"),
    ({"type": "reset_boundary"}, "[reset boundary]"),
    ({"type": "credential_pin", "provider": "anthropic", "hash": "ab12"}, "[credential pin: anthropic]"),
    ({"type": "session_init", "systemPrompt": "p", "task": "t", "tools": []}, "[session init]"),
    ({"type": "mode_change", "mode": "plan", "data": {"planFilePath": "/x.md"}}, "[mode: plan]"),
    ({"type": "title_change", "title": "New\ttitle", "source": "user"}, "[title: New title]"),
    ({"type": "ttsr_injection", "injectedRules": ["no-unwrap"]}, "[ttsr injection]"),
    ({"type": "session_info", "name": "x"}, "[session info]"),
    ({"type": "custom", "customType": "ext/state", "data": {}}, "[custom: ext/state]"),
    ({"type": "label", "targetId": "e1"}, "[label: (cleared)]"),
    ({"type": "custom_message", "customType": "ttsr-injection", "display": False,
      "content": '<system-interrupt reason="rule_violation" rule="r">\nStop.\n</system-interrupt>'},
     "[ttsr-injection]: Stop."),
    ({"type": "custom_message", "customType": "note", "display": True,
      "content": [{"type": "text", "text": "<system-reminder>a</system-reminder>"}, {"type": "image"}]},
     "[note]: a"),
    ({"type": "custom_message", "customType": "note", "display": True, "content": "<system-x>a</system-y>"},
     "[note]: <system-x>a</system-y>"),
    ({"type": "custom_message", "customType": "advisor", "display": True, "content": "<advisory>..</advisory>",
      "details": {"notes": [{"note": "Check it.", "severity": "nit", "advisor": "sec"},
                            {"note": "Twice.", "severity": "nit", "advisor": "default"}]}},
     "advisor (sec, nit): Check it. Twice."),
    ({"type": "compaction", "summary": "s", "firstKeptEntryId": "e1", "tokensBefore": 1500}, "[compaction: 2k tokens]"),
    ({"type": "future_thing"}, "[future thing]"),
]


@pytest.mark.parametrize("body,text", ROWS, ids=[r[1] for r in ROWS])
def test_row_text_of_every_entry_type(body, text):
    session = chained_session(user_msg("hi"), body)
    assert TreeList(session, flavor="omp18", filter_mode="all").display_text("e2") == text


def test_assistant_rows():
    session = chained_session(
        user_msg("hi"),
        assistant_msg([], stopReason="aborted", errorMessage="Interrupted by user"),
        assistant_msg([], stopReason="aborted", errorMessage="Request was aborted"),
        assistant_msg([], stopReason="aborted", errorMessage="TTSR matched rule: no-unwrap"),
        assistant_msg([], stopReason="error"),
        assistant_msg([{"type": "text", "text": "partial"}], retryRecovery={"status": "recovered", "note": "retried\tonce"}),
        assistant_msg([{"type": "text", "text": "..."}], stopReason="stop"),
    )
    tl = TreeList(session, flavor="omp18", filter_mode="all", leaf="e7")
    assert [tl.display_text(f"e{i}") for i in range(2, 8)] == [
        "assistant: (aborted)", "assistant: Operation aborted", "assistant: TTSR matched rule: no-unwrap",
        "assistant: Error", "assistant: retried once", "assistant: ...",
    ]
    # "..." has no text for the tree: hidden unless it is the current leaf.
    assert "e7" in tl.visible_ids
    assert "e7" not in TreeList(session, flavor="omp18", filter_mode="all", leaf="e6").visible_ids


def _tool_rows(flavor: str, calls: list[tuple[str, dict]]) -> list[str]:
    content = [{"type": "toolCall", "id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(calls)]
    results = [{"type": "message", "message": {"role": "toolResult", "toolCallId": f"c{i}", "toolName": n,
                                               "content": [{"type": "text", "text": "ok"}], "timestamp": 3}}
               for i, (n, _) in enumerate(calls)]
    session = chained_session(user_msg("go"), assistant_msg(content, stopReason="toolUse"), *results)
    tl = TreeList(session, flavor=flavor, filter_mode="all", home="/home/u")  # type: ignore[arg-type]
    return [tl.display_text(f"e{i + 3}") for i in range(len(calls))]


MISSING_FIELDS = [("read", {}), ("write", {}), ("edit", {}), ("bash", {}), ("grep", {}), ("ls", {}),
                  ("glob", {"pattern": "**/*.ts"}), ("find", {})]


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi", "omp57"])
def test_tool_rows_without_argument_fields_never_say_undefined(flavor):
    rows = _tool_rows(flavor, MISSING_FIELDS)
    assert not any("undefined" in r for r in rows), rows
    assert rows[:6] == ["[read: ]", "[write: ]", "[edit: ]", "[bash: ]", "[grep: // in .]", "[ls: .]"]
    if flavor in ("omp", "omp18"):
        assert rows[6] == "[glob: .]"  # omp renders where a glob looks, not its pattern
        assert rows[7] == "[find: {}]"  # no find tool in omp: the generic form
    else:
        assert rows[7] == "[find:  in .]"


def test_glob_and_grep_scopes():
    rows = _tool_rows("omp18", [("glob", {"pattern": "*.ts", "path": "/home/u/src"}),
                                ("glob", {"pattern": "*.ts", "paths": '["a", "b"]'}),
                                ("grep", {"pattern": "x", "paths": ["/home/u/a", "/home/u/b"]}),
                                ("grep", {"pattern": "x", "path": "/home/user2/a"}),
                                ("read", {"path": "/home/u/f.ts", "offset": 5})])
    assert rows == ["[glob: ~/src]", "[glob: a, b]", "[grep: /x/ in ~/a, /home/u/b]", "[grep: /x/ in /home/user2/a]",
                    "[read: ~/f.ts:5]"]


FILTERS = {
    # entry → the filter modes that show it (omp18's isSettingsEntry / isUserRequestEntry)
    "user": {"default", "no-tools", "user-only", "all"},
    "skill": {"default", "no-tools", "user-only", "all"},
    "agent-skill": {"default", "no-tools", "all"},
    "result": {"default", "all"},
    "usage": {"all"}, "tier": {"all"}, "pin": {"all"}, "init": {"all"}, "mode": {"all"}, "reset": {"all"},
    "title": {"all"}, "ttsr": {"all"}, "thinking": {"all"}, "model": {"all"},
    "info": {"default", "no-tools", "all"},  # session_info is not bookkeeping for omp 18: "[session info]"
}


def test_visibility_per_filter_mode():
    bodies = {
        "user": user_msg("hello"),
        "skill": {"type": "custom_message", "customType": "skill-prompt", "content": "/skill:x", "display": True,
                  "attribution": "user"},
        "agent-skill": {"type": "custom_message", "customType": "skill-prompt", "content": "/skill:y",
                        "display": True, "attribution": "agent"},
        "call": assistant_msg([{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}],
                           stopReason="toolUse"),
        "result": {"type": "message", "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                                                  "content": [], "timestamp": 3}},
        "usage": {"type": "model_usage", "purpose": "title", "provider": "p", "model": "m"},
        "tier": {"type": "service_tier_change", "serviceTier": None},
        "pin": {"type": "credential_pin", "provider": "p", "hash": "h"},
        "init": {"type": "session_init", "systemPrompt": "", "task": "", "tools": []},
        "mode": {"type": "mode_change", "mode": "plan"},
        "reset": {"type": "reset_boundary"},
        "title": {"type": "title_change", "title": "t", "source": "auto"},
        "ttsr": {"type": "ttsr_injection", "injectedRules": []},
        "thinking": {"type": "thinking_level_change", "thinkingLevel": "low", "configured": "low"},
        "model": {"type": "model_change", "model": "p/m", "resolvedModelIsFallback": False},
        "info": {"type": "session_info", "name": "n"},
        "last": assistant_msg([{"type": "text", "text": "done"}]),
    }
    names = list(bodies)
    session = chained_session(*bodies.values())
    ids = {name: f"e{i}" for i, name in enumerate(names, start=1)}
    for mode in ("default", "no-tools", "user-only", "labeled-only", "all"):
        visible = set(TreeList(session, flavor="omp18", filter_mode=mode).visible_ids)
        for name, modes in FILTERS.items():
            assert (ids[name] in visible) == (mode in modes), (name, mode)
        assert ids["call"] not in visible  # tool-call-only assistant rows are hidden in every mode


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi", "omp57"])
def test_search_ignores_case_in_every_flavour(flavor):
    session = chained_session(user_msg("hello world"), assistant_msg([{"type": "text", "text": "Bye"}]))
    for query in ("HELLO", "Hello", "hello", "BYE"):
        tl = TreeList(session, flavor=flavor, search=query)  # type: ignore[arg-type]
        assert tl.visible_ids == (["e1"] if query != "BYE" else ["e2"]), (flavor, query)


def test_search_text_of_new_types():
    session = chained_session(user_msg("hi"), {"type": "service_tier_change", "serviceTier": {"openai": "flex", "google": None}},
                       {"type": "ttsr_injection", "injectedRules": ["no-unwrap", "ts-any"]},
                       {"type": "model_usage", "purpose": "title", "provider": "anthropic", "model": "haiku"})
    tl = TreeList(session, flavor="omp18", filter_mode="all")
    assert tl.search_text("e2") == "service tier openai flex"
    assert tl.search_text("e3") == "ttsr injection no-unwrap ts-any"
    assert tl.search_text("e4") == "model usage title  anthropic haiku"
    assert TreeList(session, flavor="omp18", filter_mode="all", search="INJECTION").visible_ids == ["e3"]


def test_fuzzy18_matches_the_reference_vectors():
    doc = json.loads((FIXTURES / "fuzzy18_vectors.json").read_text(encoding="utf-8"))
    assert len(doc["vectors"]) > 500
    for vec in doc["vectors"]:
        got = word_match18(vec["query"], vec["text"])
        assert got.matches == vec["matches"], vec
        if vec["matches"]:
            assert got.score == vec["score"], vec


@pytest.mark.parametrize("scorer", [word_match, word_match18])
def test_a_long_token_is_never_matched_by_letters_scattered_across_words(scorer):
    # Each letter of "provider" occurs, in order, across these unrelated words; no word holds it.
    assert not scorer("provider", "print review of video merge request").matches
    assert not scorer("authentication", "a useful tool helps every new team in cash and tax in one").matches
    # Inside one word within the span limit it does match; the compact text at a word start also counts.
    assert scorer("prvdr", "provider").matches
    assert scorer("imageprovider", "image provider").matches


def test_fuzzy18_camel_case_split_is_ascii_only():
    # omp17 splits "éA" into two words; pi-tui 18.2.9 does not.
    assert word_match18("ddda", "dddéAb22").matches and not word_match("ddda", "dddéAb22").matches


def test_alt_up_down_move_by_turn_and_empty_states():
    session = chained_session(user_msg("one"), assistant_msg([{"type": "text", "text": "a"}]),
                       {"type": "custom_message", "customType": "note", "content": "n", "display": True},
                       user_msg("two"), assistant_msg([{"type": "text", "text": "b"}]))
    tl = TreeList(session, flavor="omp18")
    assert tl.selected_id == "e5"
    assert tl.press("alt+up").selected_id == "e4"
    assert tl.press("alt+up").press("alt+up").selected_id == "e2"  # skips the custom message
    assert tl.press("home").press("alt+up").selected_id == "e1"  # no wrap
    assert tl.press("up").selected_id == "e4" and tl.press("down").selected_id == "e1"  # arrows wrap
    assert tl.set_search("zzz").lines() == ['No entries match search "zzz"', "Press Backspace to clear the search",
                                            "(0/5)"]
    assert tl.set_filter("labeled-only").lines() == ["5 entries hidden by the current filter [labeled]",
                                                     "Press Alt+A to show all, Alt+D for default", "(0/5) [labeled]"]
    assert tl.set_filter("all").lines()[-1] == "[all]"


def test_flavour_detection_and_switching():
    assert detect_flavor(chained_session(user_msg("x"), {"type": "reset_boundary"})).flavor == "omp18"
    assert detect_flavor(chained_session(user_msg("x"), header={**HEADER, "providerPromptCacheKey": "k"})).flavor == "omp18"
    assert detect_flavor(chained_session({"type": "thinking_level_change", "thinkingLevel": "low",
                                   "configured": "low"})).flavor == "omp18"
    assert detect_flavor(chained_session({"type": "model_change", "provider": "a", "modelId": "m"})).flavor == "pi"
    assert detect_flavor(chained_session({"type": "session_info", "name": "n"}, {"type": "reset_boundary"})).flavor == "pi"
    # a mark of oh-my-pi but none of its version: the current release
    assert detect_flavor(chained_session(user_msg("x"), {"type": "ttsr_injection", "injectedRules": []})).flavor == "omp18"
    session = chained_session(user_msg("x"), {"type": "reset_boundary"})
    assert TreeList(session, flavor="auto").flavor == "omp18"
    assert TreeList(session, flavor="omp17").flavor == "omp"  # always switchable
    assert resolve_flavor("pi") == "pi"
    with pytest.raises(UsageError):
        resolve_flavor("omp19")


def test_omp18_tree_search_equals_the_scorer_on_every_row():
    # The filter's cheap pre-check must never drop a row the scorer would keep.
    import random

    from workbench.sessions.synthetic import generate_session_text

    session = parse_session_text(generate_session_text(400), path="synthetic")
    base = TreeList(session, flavor="omp18", filter_mode="all")
    rng = random.Random(7)
    words = [w for n in base.visible_ids for w in base.search_text(n).split()][:3000]
    queries = ["mdl", "module4", "HELLO", "ast", "rslt", "tool"] + [rng.choice(words)[: rng.randint(2, 9)]
                                                                   for _ in range(40)]
    for query in queries:
        want = [n for n in base.visible_ids if all(word_match18(t, base.search_text(n)).matches
                                                   for t in query.lower().split())]
        assert base.set_search(query).visible_ids == want, query


def test_layout_follows_the_18_2_9_tree_view():
    # Two roots (r1 holds the leaf, so it comes first); r1 → a → {b1 → c, b2}.
    session = chained_session(user_msg("r1"), user_msg("a"), user_msg("b1"), user_msg("c"))
    records = [dict(e.raw) for e in session.entries]
    records += [{**user_msg("b2"), "id": "b2", "parentId": "e2", "timestamp": "2026-01-01T00:00:09.000Z"},
                {**user_msg("r2"), "id": "r2", "parentId": None, "timestamp": "2026-01-01T00:00:10.000Z"}]
    tl = TreeList(records, flavor="omp18", leaf="e4")
    assert tl.lines() == [
        "  • user: r1",
        "     • user: a",  # a root's only child still steps in when there are several roots
        "     ├─ • user: b1",
        "›    │  • user: c",  # a chain under a branch head keeps its depth (omp17 steps in once more)
        "     └─ user: b2",
        "  user: r2",
    ]
    assert TreeList(records, flavor="omp", leaf="e4").lines()[3] == "›    │     • user: c"


def test_deep_windows_share_one_offset():
    # Nested branches 12 deep; at width 60 only (60 - 30 - 4) // 3 = 8 levels fit: the window shifts.
    records, parent = [], None
    for depth in range(12):
        main = f"m{depth}"
        for name in (main, f"s{depth}"):
            records.append({**user_msg(name), "id": name, "parentId": parent,
                            "timestamp": f"2026-01-01T00:{depth:02d}:{0 if name == main else 1:02d}.000Z"})
        parent = main
    tl = TreeList(records, flavor="omp18", leaf="m11", width=60, height=200)
    lines = tl.lines()
    assert all(len(line) <= 60 for line in lines)
    deepest = next(line for line in lines if "user: m11" in line)
    assert deepest.startswith("› …") and deepest.index("user: m11") == 2 + 8 * 3 + 2


def test_selector_is_given_the_real_leaf_and_stops_there():
    from workbench.sessions import SessionTree

    label = {"type": "label", "targetId": "e1", "label": "start"}
    session = chained_session(user_msg("one"), assistant_msg([{"type": "text", "text": "a"}]), user_msg("two"), label)
    assert TreeList(session, flavor="omp18").leaf_id == "e4"  # omp 18.3: getLeafId(), trailing label kept
    assert TreeList(session, flavor="omp").leaf_id == "e3"  # omp17 skipped trailing label/custom entries
    tree = SessionTree(session, flavor="omp18", leaf="e3")
    assert tree.navigate("e3", interactive=True).no_op  # "Already at this point"
    assert not tree.navigate("e3").no_op  # navigateTree itself rewinds past a user prompt
    assert TreeList(session, flavor="omp18", height=12).max_visible == 4  # min(max(5, 6), 12 - 8)
    assert TreeList(session, flavor="omp", height=12).max_visible == 6


@pytest.mark.parametrize("flavor", ["omp", "omp18", "pi"])
def test_read_ranges_follow_js_arithmetic(flavor):
    rows = _tool_rows(flavor, [("read", {"path": "a", "offset": 5, "limit": 10}), ("read", {"path": "a", "limit": 3}),
                               ("read", {"path": "a", "offset": 5, "limit": None}), ("read", {"path": "a", "offset": 5}),
                               ("read", {"path": "a", "offset": "5", "limit": 2}), ("read", {"path": "a", "offset": 1,
                                                                                          "limit": "x"})])
    # 5+10-1; 1+3-1; 5+null-1 = 4; no limit; "5"+2 = "52", -1 = 51; 1+"x" = "1x", -1 = NaN (falsy).
    assert rows == ["[read: a:5-14]", "[read: a:1-3]", "[read: a:5-4]", "[read: a:5]", "[read: a:5-51]", "[read: a:1]"]


def test_user_row_with_empty_block_list_searches_as_the_reference():
    session = chained_session({"type": "message", "message": {"role": "user", "content": [], "timestamp": 1}})
    assert TreeList(session, flavor="omp18").search_text("e1") == "user "


def test_reused_tool_call_id_resolves_as_omp18_walks_its_roots():
    # #indexSession pops roots from the end: the first root's call is met last and wins.
    def call(path):
        return assistant_msg([{"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": path}}],
                                       stopReason="toolUse")
    result = {"type": "message", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "read",
                                             "content": [], "timestamp": 3}}
    records = []
    for i, body in enumerate([call("first"), result, call("second"), result]):
        records.append({**body, "id": f"x{i}", "parentId": None if i % 2 == 0 else f"x{i - 1}",
                        "timestamp": f"2026-01-01T00:00:0{i}.000Z"})
    for leaf in ("x1", "x3"):
        omp18 = TreeList(records, flavor="omp18", filter_mode="all", leaf=leaf)
        assert omp18.display_text("x1") == omp18.display_text("x3") == "[read: first]"
    # omp17 uses display order (the leaf's root first), the later one wins.
    assert TreeList(records, flavor="omp", filter_mode="all", leaf="x1").display_text("x3") == "[read: second]"



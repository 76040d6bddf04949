"""The matcher hooks and per-file outputs of a call; the mode choice and its reason."""

import json

import pytest

from workbench.edits import AUTO, EDIT_MODES, FileOutput, check_edit_mode, choose_mode, tool_view
from workbench.errors import UsageError
from workbench.ttsr import parse_partial_json

HASHLINE = "*** Begin Patch\n[src/a.ts#1A2B]\nPUT >3:\n+console.log(x)\n[src/b.md]\nREM\n[src/c.ts]\nPUT >1:\n+y\n*** End Patch\n"


def test_outputs_carry_per_file_stream_keys_and_the_digest_skips_empty_files():
    view = tool_view("edit", {"input": HASHLINE}, call_id="call_1")
    assert view.stream_key == "toolcall:call_1"
    assert view.paths == ("src/a.ts", "src/b.md", "src/c.ts")
    assert view.digest == "console.log(x)\ny"
    assert view.outputs[0] == FileOutput("src/a.ts", "toolcall:call_1#src/a.ts", "console.log(x)")
    assert [o.stream_key for o in view.outputs][1:] == ["toolcall:call_1#src/b.md", "toolcall:call_1#src/c.ts"]
    assert view.to_json()["mode"] == "hashline"


def test_a_call_without_an_id_is_keyed_by_name_and_index():
    assert tool_view("edit", {"input": HASHLINE}, content_index=2).stream_key == "tool:edit:2"


def test_nothing_recovered_yet_means_absent_hooks():
    view = tool_view("edit", {"input": "*** Begin Patch\n"})
    assert (view.paths, view.digest, view.entries) == (None, None, ())
    assert tool_view("bash", {"command": "ls"}).mode is None


@pytest.mark.parametrize(("args", "mode", "reason"), [
    ({"input": HASHLINE}, "hashline", "auto: hashline markers"),
    ({"input": "*** Begin Patch\n"}, "hashline", "auto: input with no marks yet"),
    ({"input": "*** Begin Patch\n*** Update File: a\n"}, "apply_patch", "auto: apply_patch file headers"),
    ({"input": "*** Edit File: a\n*** Find\n"}, "sloppy", "auto: sloppy markers"),
    ({"path": "a", "edits": [{"diff": "+x"}]}, "patch", "auto: edits[] of diffs"),
    ({"path": "a", "edits": [{"old_string": "x", "new_string": "y"}]}, "replace", "auto: edits[] of old_string"),
    ({"path": "a", "old_string": "x"}, "replace", "auto: old_string/new_string"),
    ({"path": "a"}, "replace", "auto: a top-level path"),
    ({}, "hashline", "auto: no arguments yet"),
])
def test_auto_reads_the_mode_from_the_arguments(args, mode, reason):
    choice = choose_mode("edit", args)
    assert choice.mode == mode and choice.reason.startswith(reason)


def test_a_set_mode_wins_and_apply_patch_answers_only_in_its_mode():
    assert choose_mode("edit", {"input": HASHLINE}, "apply_patch").to_json() == {
        "mode": "apply_patch", "reason": "set by --edit-mode"}
    assert choose_mode("apply_patch", {}, AUTO).mode == "apply_patch"
    assert choose_mode("apply_patch", {}, "hashline").mode is None
    assert choose_mode("edit", {}, "sloppy", set_by="the Stepper").reason == "set by the Stepper"


def test_check_edit_mode():
    assert [check_edit_mode(m) for m in (AUTO, *EDIT_MODES)] == [AUTO, *EDIT_MODES]
    with pytest.raises(UsageError, match="expected one of auto, hashline"):
        check_edit_mode("diff")


CALLS = [
    ("edit", {"input": HASHLINE}),
    ("edit", {"input": "*** Begin Patch\n*** Add File: n.ts\n+a\n+b\n*** Update File: o.ts\n@@\n-x\n+console.log(1)\n*** End Patch\n"}),
    ("edit", {"input": "*** Edit File: a.ts\n*** Find\nx\n*** Replace\nconsole.log(2)\n*** Find\ny\n*** Insert After\nz\n"}),
    ("edit", {"path": "a.ts", "edits": [{"op": "update", "diff": "@@\n-x\n+console.log(3)\n"}]}),
    ("edit", {"path": "a.ts", "old_string": "x", "new_string": "console.log(4)"}),
    ("write", {"path": "a.ts", "content": "console.log(5)"}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS)
def test_every_prefix_of_a_streamed_call_grows_toward_the_final_view(tool, args):
    """As the JSON streams, each file's digest is a prefix of its final digest and no path appears that
    the complete call does not name (the checks run on every delta)."""
    text = json.dumps(args)
    mode = tool_view(tool, args, final=True).mode
    final = tool_view(tool, args, edit_mode=mode or AUTO, final=True)
    finals = {o.path: o.digest for o in final.outputs}
    for end in range(len(text)):
        view = tool_view(tool, parse_partial_json(text[:end]), edit_mode=mode or AUTO)
        # A JSON ``path`` field is seen as it streams (a prefix); a path inside a payload only whole.
        assert all(any(p.startswith(q) for p in final.paths or ()) for q in view.paths or ()), text[:end]
        if "input" in args:
            assert set(view.paths or ()) <= set(final.paths or ()), text[:end]
        for out in view.outputs:
            assert finals.get(out.path, "").startswith(out.digest), text[:end]
        if view.digest is not None and final.digest is not None and not view.entries:
            assert final.digest.startswith(view.digest)

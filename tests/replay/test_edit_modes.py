"""The agent's edit modes through the replay: which files a call touches, and which mode read it."""

from __future__ import annotations

import json

import pytest

from tests.replay.conftest import prose_turn, rule, stream_of, tool_turn
from workbench.replay import ReplayConfig, run_session

HASHLINE = "*** Begin Patch\n[src/a.ts#1A2B]\nPUT >3:\n+console.log(value);\n*** End Patch\n"


def _chunks(args: dict, size: int = 7) -> list[str]:
    raw = json.dumps(args)
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def _edit_turn(args: dict, name: str = "edit"):
    return tool_turn("call_1", name, _chunks(args), args, "ok")


def test_a_hashline_edit_of_a_ts_file_fires_a_tool_edit_ts_rule():
    """18.3.4's default mode: `*** Begin Patch` opens a hashline payload, its `[PATH#TAG]` names the file."""
    no_console = rule("no-console", r"console\.log\(", scope=["tool:edit(*.ts)"])
    result = run_session(stream_of(_edit_turn({"input": HASHLINE}), prose_turn("done")), [no_console], ReplayConfig(cwd="/proj"))
    fired = [e for e in result.events if e.type == "ttsr_triggered"]
    assert [e.rules for e in fired] == [("no-console",)]
    assert fired[0].stream_key == "toolcall:call_1"
    assert result.to_json()["edit_modes"] == [{
        "stream_key": "toolcall:call_1", "tool": "edit", "mode": "hashline",
        "reason": "auto: hashline markers ([PATH#TAG] header, PUT/CUT)"}]


def test_the_path_gate_reads_the_header_path():
    no_console = rule("no-console", r"console\.log\(", scope=["tool:edit(*.rs)"])
    assert run_session(stream_of(_edit_turn({"input": HASHLINE})), [no_console], ReplayConfig(cwd="/proj")).events == ()


@pytest.mark.parametrize("payload", [
    "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+console.log(value);\n*** End Patch\n",
    "*** Edit File: src/a.ts\n*** Find\nx\n*** Replace\nconsole.log(value);\n",
])
def test_the_other_input_grammars_are_read_by_their_marks(payload):
    no_console = rule("no-console", r"console\.log\(", scope=["tool:edit(*.ts)"])
    result = run_session(stream_of(_edit_turn({"input": payload})), [no_console], ReplayConfig(cwd="/proj"))
    assert [e.type for e in result.events][:1] == ["ttsr_triggered"]


def test_a_set_mode_reads_every_call_in_that_mode_and_says_so():
    no_console = rule("no-console", r"console\.log\(", scope=["tool:edit(*.ts)"])
    result = run_session(stream_of(_edit_turn({"input": HASHLINE})), [no_console], ReplayConfig(cwd="/proj", edit_mode="sloppy"))
    assert result.events == ()  # no `*** Edit File:` header: sloppy finds no file
    assert result.to_json()["edit_modes"][0]["reason"] == "set by --edit-mode"
    auto = run_session(stream_of(_edit_turn({"input": HASHLINE})), [no_console], ReplayConfig(cwd="/proj", edit_mode="auto"))
    assert [e.type for e in auto.events][:1] == ["ttsr_triggered"]

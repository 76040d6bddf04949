"""The rule-set and agent options: one definition, shared by every command that discovers rules."""

from __future__ import annotations

import argparse
import json

import pytest

from workbench.cli import build_parser, main
from workbench.cli.options import FLAG_HELP, RULES_HELP, rule_set_options
from workbench.rules import AGENT_EDIT_MODES, RuleSetOptions, discover_rule_set

# Every command that discovers rules, and whether it replays for an agent (--agent / --edit-mode).
DISCOVERING = {
    ("replay",): True, ("backtest",): True, ("export",): False, ("timeline",): False, ("serve",): False,
    ("rules", "list"): True, ("rules", "show"): True, ("rules", "test"): True, ("rules", "scan"): True,
}
SHARED = ("--no-builtin", "--omp-package")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _command(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        parser = _subparsers(parser)[name]
    return parser


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {opt: a for a in parser._actions for opt in a.option_strings}


def test_the_discovering_commands_are_all_listed():
    top = _subparsers(build_parser())
    discovering = {name for name, p in top.items() if "--no-builtin" in _flags(p)}
    rules = {name for name, p in _subparsers(top["rules"]).items() if "--no-builtin" in _flags(p)}
    assert discovering == {p[0] for p in DISCOVERING if len(p) == 1}
    assert rules >= {p[1] for p in DISCOVERING if len(p) == 2}


@pytest.mark.parametrize("path", sorted(DISCOVERING), ids=" ".join)
def test_every_discovering_command_shares_the_definition(path):
    flags = _flags(_command(path))
    for flag in SHARED + tuple(f for f in ("--cwd", "--home", "--agent-dir", "--disable-rule") if f in flags):
        assert flags[flag].help == FLAG_HELP[flag], (path, flag)
    if "--rules" in flags:
        assert flags["--rules"].help.startswith(RULES_HELP) and flags["--rules"].metavar == "PATH"
    if DISCOVERING[path]:
        assert flags["--agent"].help == FLAG_HELP["--agent"] and flags["--agent"].default is None
        assert tuple(flags["--edit-mode"].choices) == AGENT_EDIT_MODES and flags["--edit-mode"].default == "auto"
    else:
        assert "--agent" not in flags and "--edit-mode" not in flags


def test_the_flags_become_one_typed_value(tmp_path):
    args = build_parser().parse_args(["replay", "s.jsonl", "--rules", str(tmp_path), "--no-builtin",
                                      "--agent", "scout", "--edit-mode", "hashline", "--home", str(tmp_path)])
    options = rule_set_options(args)
    assert options == RuleSetOptions(rules=(str(tmp_path),), home=str(tmp_path), builtin=False, agent="scout",
                                     edit_mode="hashline")
    assert options.agent_for("from-session") == "scout" and options.fixed_edit_mode == "hashline"
    plain = rule_set_options(build_parser().parse_args(["replay", "s.jsonl", "--rules", str(tmp_path)]))
    assert plain.agent_for(None) == "main" and plain.agent_for("sub") == "sub" and plain.fixed_edit_mode is None
    with pytest.raises(ValueError):
        RuleSetOptions(edit_mode="vim")


RULE = "---\ndescription: no fixmes\ncondition: FIXME\n---\nNo FIXME.\n"


def _stream(tmp_path, cwd):
    lines = [{"type": "stream", "version": 1, "cwd": str(cwd)}, {"type": "turn_start"},
             {"type": "message_start", "role": "assistant"},
             {"type": "text_delta", "contentIndex": 0, "delta": "a FIXME here"},
             {"type": "message_end", "stopReason": "stop"}, {"type": "turn_end"}]
    path = tmp_path / "run.stream.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("shape", ["project", "rule-folder", "rule-file"])
def test_replay_takes_every_shape_of_rules(tmp_path, capsys, shape):
    project = tmp_path / "proj"
    (project / ".omp" / "rules").mkdir(parents=True)
    (project / "README.md").write_text("# not a rule: the .omp folder makes this a project\n")
    folder = tmp_path / "loose"
    folder.mkdir()
    for where in (project / ".omp" / "rules", folder):
        (where / "no-fixme.md").write_text(RULE)
    target = {"project": project, "rule-folder": folder, "rule-file": folder / "no-fixme.md"}[shape]
    code = main(["replay", str(_stream(tmp_path, project)), "--rules", str(target), "--no-builtin",
                 "--time-bound", "0", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["injected"] == ["no-fixme"]


def test_a_project_with_a_readme_is_discovered_not_read_as_rules(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("# hello\n")
    names = {r.name for r in discover_rule_set(RuleSetOptions(rules=(str(tmp_path),), home=str(tmp_path),
                                                              builtin=False)).rules}
    assert "README" not in names


@pytest.mark.parametrize("command", [["timeline", "S"], ["export", "--stream", "S", "--out", "o.html"]])
def test_export_and_timeline_take_no_builtin(tmp_path, capsys, command):
    project = tmp_path / "proj"
    (project / ".omp").mkdir(parents=True)
    stream = _stream(tmp_path, project)
    argv = [str(stream) if a == "S" else str(tmp_path / a) if a.endswith(".html") else a for a in command]
    assert main([*argv, "--rules", str(project), "--no-builtin", "--omp-package", "none", "--home", str(tmp_path),
                 "--json"]) == 0
    capsys.readouterr()


def test_a_missing_rules_path_names_the_flag(tmp_path, capsys):
    code = main(["timeline", str(_stream(tmp_path, tmp_path)), "--rules", str(tmp_path / "nope")])
    assert code == 2
    assert capsys.readouterr().err == f"error: --rules {tmp_path / 'nope'}: no such file or directory\n"


def test_library_errors_name_their_field_and_the_cli_its_flag(tmp_path, capsys):
    from workbench.backtest import run_backtest
    from workbench.errors import UsageError

    with pytest.raises(UsageError) as caught:
        run_backtest([], [tmp_path], workers=0)
    assert (caught.value.field, str(caught.value)) == ("workers", "workers must be at least 1")
    assert main(["backtest", "--rules", str(tmp_path), str(tmp_path), "--workers", "0"]) == 2
    assert capsys.readouterr().err == "error: --workers must be at least 1\n"

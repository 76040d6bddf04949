"""A command line the parser cannot read is one line naming the subcommand, exit status 2 (argparse's
own usage block is left out: it buried the message)."""

from __future__ import annotations

import pytest

from workbench.cli import USAGE_EXIT, main

CASES = [
    (["tree"], "error: workbench tree: the following arguments are required: SESSION"),
    (["tree", "s.jsonl", "--bogus"], "error: workbench tree: unrecognized arguments: --bogus"),
    (["rules", "list", "--zap", "x"], "error: workbench rules list: unrecognized arguments: --zap x"),
    (["rules"], "error: workbench rules: the following arguments are required: SUBCOMMAND"),
    (["tree", "--filter", "nope", "s.jsonl"], "error: workbench tree: argument --filter: invalid choice: 'nope'"),
    (["nosuch"], "error: workbench: argument COMMAND: invalid choice: 'nosuch'"),
    (["usage", "--by", "year", "a"], "error: workbench usage: argument --by: invalid choice: 'year'"),
]


@pytest.mark.parametrize(("argv", "start"), CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_a_command_line_that_cannot_be_read_is_one_line(capsys, argv, start):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == USAGE_EXIT == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(start), captured.err
    assert captured.err.count("\n") == 1
    prog = start.split(": ")[1]
    assert captured.err.rstrip().endswith(f"(see {prog} --help)")


def test_help_still_prints_the_usage_and_exits_0(capsys):
    with pytest.raises(SystemExit) as info:
        main(["tree", "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: workbench tree")

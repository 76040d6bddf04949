"""The one definition of the rule-set and agent options of every command that discovers rules.

``replay``, ``backtest``, ``export``, ``timeline``, ``rules list/show/test/scan`` and ``serve`` add
their options through ``add_rule_set_flags`` / ``add_agent_flags`` (``add_replay_flags`` for the
commands that replay as the agent: the agent flags and ``--judge``) and read them back with
``rule_set_options`` as one ``workbench.rules.RuleSetOptions``; each flag's name, help and meaning
live here once (tests/cli/test_options.py walks the parsers); docs/cli.md says what each means.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Literal

from workbench.cli.judge_flags import add_judge_flags
from workbench.errors import FieldError, NotFoundError, UsageError, WorkbenchError
from workbench.replay import ReplayConfig, Stream, open_stream
from workbench.rules import AGENT_EDIT_MODES, Rule, RuleSetOptions, discover_rule_set

__all__ = ["FLAG_HELP", "cli_message", "RulesFlag", "add_agent_flags", "add_edit_mode_flag", "add_replay_flags",
           "add_rule_set_flags", "rule_set_options", "stream_with_rules"]

RULES_HELP = ("a rule file, a folder of rule files, or a project folder to discover rules from as the agent "
              "does (its providers, user-level rules under --home, the bundled rules)")

# The help of each shared flag, word for word on every command (the parser test compares against it).
FLAG_HELP: dict[str, str] = {
    "--rules": RULES_HELP,
    "--cwd": "project folder to discover rules from (default: the current folder)",
    "--home": "home folder for user-level rules (default: $HOME)",
    "--agent-dir": "agent folder (default: <home>/.xcsh/agent and <home>/.omp/agent)",
    "--disable-rule": "ignore this rule (repeatable; ttsr.disabledRules)",
    "--no-builtin": "leave out the bundled rules (ttsr.builtinRules = false)",
    "--omp-package": "oh-my-pi agent package folder to read the bundled rules from (default: "
                     "$WORKBENCH_OMP_PACKAGE, else a Bun or npm global install, else the workbench's own; "
                     "'none': the workbench's own)",
    "--agent": "the agent that agents: frontmatter is checked against (main, sub or an agent definition's "
               "name; default: from the session, else main)",
    "--edit-mode": "how edit tool calls are read (default: auto, from each call's arguments)",
    "--enable-provider": "opt a provider's user-level folder in, e.g. cursor (repeatable; enabledProviders)",
    "--disable-provider": "leave a rule provider out entirely (repeatable; disabledProviders)",
}

RulesFlag = Literal["required", "optional", "repeatable"] | None


def add_rule_set_flags(parser: argparse.ArgumentParser, *, rules: RulesFlag = None, cwd: bool = False,
                       home: bool = True, agent_dir: bool = False, disable_rule: bool = False,
                       rules_note: str = "") -> None:
    """The rule-set flags: ``--rules`` (``rules``: required, optional, repeatable or absent), and
    ``--cwd``, ``--home``, ``--agent-dir``, ``--disable-rule`` where the command has them;
    ``--no-builtin`` and ``--omp-package`` always. ``rules_note`` is appended to ``--rules``' help
    (e.g. when it is read)."""
    if rules is not None:
        kwargs: dict[str, Any] = {"metavar": "PATH", "help": RULES_HELP + rules_note}
        if rules == "repeatable":
            kwargs.update(action="append", default=[])
        else:
            kwargs.update(required=rules == "required")
        parser.add_argument("--rules", **kwargs)
    if cwd:
        parser.add_argument("--cwd", metavar="DIR", help=FLAG_HELP["--cwd"])
    if home:
        parser.add_argument("--home", metavar="DIR", help=FLAG_HELP["--home"])
    if agent_dir:
        parser.add_argument("--agent-dir", metavar="DIR", help=FLAG_HELP["--agent-dir"])
    if disable_rule:
        parser.add_argument("--disable-rule", metavar="NAME", action="append", default=[],
                            help=FLAG_HELP["--disable-rule"])
    parser.add_argument("--no-builtin", action="store_true", help=FLAG_HELP["--no-builtin"])
    parser.add_argument("--omp-package", metavar="DIR", help=FLAG_HELP["--omp-package"])


def add_agent_flags(parser: argparse.ArgumentParser, *, providers: bool = False) -> None:
    """``--agent NAME`` and ``--edit-mode MODE``: the agent the replay stands in for; with ``providers``,
    the provider switches ``--enable-provider`` / ``--disable-provider`` too (each above the config
    files' value)."""
    parser.add_argument("--agent", metavar="NAME", help=FLAG_HELP["--agent"])
    add_edit_mode_flag(parser)
    if providers:
        for flag in ("--enable-provider", "--disable-provider"):
            parser.add_argument(flag, metavar="ID", action="append", default=None, help=FLAG_HELP[flag])


def add_edit_mode_flag(parser: argparse.ArgumentParser) -> None:
    """``--edit-mode MODE`` (once per parser: the agent flags bring it too).

    A session file does not record the agent's ``edit.mode``; ``auto`` (the default) reads each edit
    call's mode from its arguments (docs/edit-modes.md), a mode reads every ``edit`` call in that grammar.
    """
    if "--edit-mode" not in parser._option_string_actions:
        parser.add_argument("--edit-mode", choices=AGENT_EDIT_MODES, default="auto", help=FLAG_HELP["--edit-mode"])


def add_replay_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of a command that replays as the agent would (``replay``, ``backtest``): ``--edit-mode``,
    ``--judge`` / ``--judge-model``, ``--agent`` and the provider switches, in that order."""
    add_edit_mode_flag(parser)
    add_judge_flags(parser)
    add_agent_flags(parser, providers=True)


def rule_set_options(args: argparse.Namespace) -> RuleSetOptions:
    """The parsed flags as one ``RuleSetOptions``; a named folder or file that does not exist fails here,
    naming its flag."""
    raw = getattr(args, "rules", None)
    rules = tuple(raw) if isinstance(raw, list) else (raw,) if raw else ()
    for path in rules:
        if not Path(path).exists():
            raise NotFoundError(f"--rules {path}: no such file or directory")
    # A --home without the folder is kept: a fresh home has no user-level rules, which is no error.
    for flag in ("cwd", "agent_dir"):
        value = getattr(args, flag, None)
        if value is not None and not os.path.isdir(value):
            raise UsageError(f"--{flag.replace('_', '-')} {value}: not a directory")
    return RuleSetOptions(
        rules=rules,
        cwd=getattr(args, "cwd", None),
        home=getattr(args, "home", None),
        agent_dir=getattr(args, "agent_dir", None),
        disabled_rules=tuple(getattr(args, "disable_rule", None) or ()),
        builtin=not getattr(args, "no_builtin", False),
        omp_package=getattr(args, "omp_package", None),
        agent=getattr(args, "agent", None),
        edit_mode=getattr(args, "edit_mode", None) or "auto",
    )


def stream_with_rules(args: argparse.Namespace, path: str) -> tuple[Stream, Any, tuple[Rule, ...], ReplayConfig]:
    """What ``timeline`` and ``export --stream`` replay: the stream at ``path`` (a session file is
    re-chunked; the session, else ``None``), the rules the rule-set flags name, and the replay's
    configuration (the stream's cwd, else the project, and ``--home``)."""
    options = rule_set_options(args)
    stream, session = open_stream(path)
    rules = discover_rule_set(options).rules
    return stream, session, rules, ReplayConfig(cwd=stream.cwd or options.project, home=options.home)


def cli_message(exc: WorkbenchError) -> str:
    """An error's one line as the command line says it: a library field becomes its flag
    (``workers`` -> ``--workers``), the one place the library's names meet the flags."""
    if isinstance(exc, FieldError) and exc.field is not None:
        return exc.named("--" + exc.field.replace("_", "-"))
    return str(exc)

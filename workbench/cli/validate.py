"""``workbench rules validate RULE_FILE --on SESSION ...``: would ``/omfg`` accept this rule?

The rule is checked against the sessions' history as ``/omfg`` checks the rule it generated
(``workbench.rulecheck.validate``): where it would fire, and the feedback the agent would give
(no match, a scope broader than the matching ``tool:<name>(*.ext)`` call, the judge's verdict on the
last 8 in-scope outputs). Exit 0 when ``/omfg`` would accept it, 1 when not, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.agent_config import resolve_agent
from workbench.cli.judge_flags import add_judge_flags, judge_from_args
from workbench.cli.options import add_agent_flags
from workbench.errors import NotFoundError, UsageError
from workbench.rulecheck import HistoryOutput, history_outputs, validate_rule
from workbench.rules import Rule, load_rule_paths, rule_applies_to_agent
from workbench.sessions import load_session


def register_validate(sub: Any) -> None:
    p = add_command(sub, "validate", run_validate,
                    help="check a rule against sessions' history as /omfg validates a generated rule")
    p.add_argument("rule_file", metavar="RULE_FILE", help="the rule's Markdown file")
    p.add_argument("--on", dest="sessions", metavar="SESSION", nargs="+", required=True,
                   help="session files whose history the rule is checked against")
    add_judge_flags(p)
    add_agent_flags(p)  # --agent NAME, --edit-mode MODE
    add_json_flag(p)


def _outputs(paths: list[str], rule: Rule, args: argparse.Namespace) -> tuple[list[HistoryOutput], list[dict[str, str]]]:
    """The history outputs of the sessions the rule applies in, and the sessions left out: a rule whose
    ``agents:`` does not admit the session's agent (``--agent``, else the session's own, else ``main``,
    as ``replay`` derives it) is never loaded there."""
    out: list[HistoryOutput] = []
    skipped: list[dict[str, str]] = []
    edit_mode = None if args.edit_mode == "auto" else args.edit_mode
    for raw in paths:
        if not Path(raw).is_file():
            raise NotFoundError(f"{raw}: no such session file (--on)")
        session = load_session(raw)
        agent = resolve_agent(args, session)
        if not rule_applies_to_agent(rule.agents, agent["name"]):
            skipped.append({"session": raw, "agent": agent["name"], "why": agent["why"]})
            continue
        out += history_outputs(session, edit_mode=edit_mode)
    return out, skipped


def run_validate(args: argparse.Namespace) -> int:
    """Check RULE_FILE against the history of each SESSION as oh-my-pi's /omfg validates the rule it generated:
    whole outputs (reply and reasoning joined, each tool call per file) in a fresh manager with default
    settings. Lists where the rule would fire and the feedback /omfg would give. Exit 0 when /omfg would
    accept it, 1 when not."""
    if Path(args.rule_file).is_dir():
        raise UsageError(f"{args.rule_file}: a folder; give one rule file")
    warnings: list[str] = []
    rules = load_rule_paths([args.rule_file], warnings)
    if len(rules) != 1:
        raise UsageError(f"{args.rule_file}: expected one rule, found {len(rules)}")
    rule = rules[0]
    outputs, skipped = _outputs(args.sessions, rule, args)
    judge = judge_from_args(args)
    result = validate_rule(rule, outputs, judge if rule.question is not None else None)
    if args.json:
        print_json({**result.to_json(), "rulePath": rule.path, "sessions": list(args.sessions),
                    "judge": judge.label if judge is not None else None, "editMode": args.edit_mode,
                    "skippedSessions": skipped, "warnings": warnings})
        return 0 if result.matched else 1
    out = sys.stdout
    verdict = "accepted" if result.matched else "not accepted"
    out.write(f"{rule.name}: {verdict} by /omfg's check ({result.checked} output(s) in {len(args.sessions)} session(s))\n")
    for left in skipped:
        out.write(f"  not checked on {left['session']}: agents: does not include {left['agent']} ({left['why']})\n")
    for item in result.matches:
        where = f"{item.session}" + (f" entry {item.entry}" if item.entry else "")
        out.write(f"  fires on the {item.output.subject} ({where})\n")
    if result.judged and not result.matches:
        out.write(f"  {len(result.judged)} in-scope output(s) for the judge: "
                  + ", ".join(j.output.subject for j in result.judged) + "\n")
    if result.feedback:
        label = "note" if result.judge_unavailable else "feedback"
        out.write(f"{label}: " + result.feedback.replace("\n", "\n  ") + "\n")
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    return 0 if result.matched else 1

"""``--judge`` / ``--judge-model`` for the commands that replay (``replay``, ``backtest``).

ANSWER is ``yes`` or ``no`` (every question gets that answer), a ``.yaml``/``.json`` answer file, or
an ``http(s)://`` OpenAI-compatible endpoint (key from ``WORKBENCH_JUDGE_API_KEY``). Without it,
judged rules are counted but never delivered, and the output says so.
"""

from __future__ import annotations

import argparse
from typing import Any

from workbench.replay.judge.judges import API_KEY_ENV, judge_from_option
from workbench.replay.judge.tally import judge_line


def add_judge_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", metavar="ANSWER",
                   help="who answers judged rules (question:): yes, no, an answer file (.yaml/.json) or an "
                   f"http(s):// OpenAI-compatible endpoint (key from ${API_KEY_ENV}); "
                   "default: none, judged rules are never delivered")
    p.add_argument("--judge-model", metavar="NAME", help="model name sent to an http(s) --judge")


def judge_from_args(args: argparse.Namespace) -> Any:
    return judge_from_option(args.judge, model=args.judge_model)


def replay_judged_lines(result: Any) -> list[str]:
    """The replay's text lines about judged rules (none when the rule set has none)."""
    if not result.judged_rules:
        return []
    s = result.judged_summary()
    line = (f"judged rules: {', '.join(s['rules'])}; {judge_line(s['judge'])}; "
            f"{s['requests']} judge request(s) for {s['questions']} question(s)")
    if s["judge"] is None:
        line += ", none sent"
    else:
        line += f", {s['asked']} answered, delivered: {', '.join(s['delivered']) or '-'}"
        if s["errors"]:
            line += f", {s['errors']} failed"
    return [line]


def backtest_judged_lines(result: Any) -> list[str]:
    """The backtest's table of judged rules: judge calls (what they cost) and hits."""
    judged = result.judged
    if judged is None:
        return []
    lines = [f"\njudged rules ({judge_line(judged.judge)}); {judged.requests} judge call(s)"
             + (f", {judged.asked} answered" if judged.judge is not None else ", none sent")
             + (f", {judged.errors} failed" if judged.errors else ""),
             f"{'rule':<28} {'sessions':>8} {'calls':>6} {'yes':>5} {'turns':>6} {'delivered':>9}"]
    for t in judged.rules:
        yes = str(t.yes) if judged.judge is not None else "-"
        delivered = str(t.delivered) if judged.judge is not None else "-"
        turns = str(t.turns) if judged.judge is not None else "-"
        lines.append(f"{t.rule:<28} {t.sessions:>8} {t.calls:>6} {yes:>5} {turns:>6} {delivered:>9}")
    return lines

"""``workbench timeline``: the stream's turns as lanes with the replay's acts, and session totals."""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.options import add_rule_set_flags, stream_with_rules
from workbench.replay import run_session
from workbench.replay.timeline import build_timeline
from workbench.sessions.usage import usage_totals


def register(subparsers: Any) -> None:
    p = add_command(subparsers, "timeline", run,
                    help="show a stream's turns as lanes with triggers, aborts, retries and injections")
    p.add_argument("source", metavar="STREAM_OR_SESSION")
    add_rule_set_flags(p, rules="required")
    p.add_argument("--tool", metavar="NAME", help="only turns that call this tool")
    p.add_argument("--errors", action="store_true", help="only turns with an error")
    p.add_argument("--model", metavar="NAME", help="only turns of this model")
    add_json_flag(p)


def run(args: argparse.Namespace) -> int:
    """Replay a stream (or a session, re-chunked) through the rules and print one lane per turn: its steps,
    deltas by kind, tools, models and what the session did; a session also gets its token and cost totals."""
    stream, session, rules, config = stream_with_rules(args, args.source)
    result = run_session(stream, rules, config)
    timeline = build_timeline(stream, result.events).filter(tool=args.tool, error=True if args.errors else None,
                                                            model=args.model)
    totals = usage_totals(session.entries) if session is not None else None
    if args.json:
        print_json({
            "steps": timeline.steps,
            "lanes": [{"turn": lane.turn, "start": lane.start, "end": lane.end, "characters": lane.characters,
                       "deltas": len(lane.deltas), "tools": list(lane.tools), "models": list(lane.models),
                       "error": lane.error,
                       "markers": [{"step": m.step, "kind": m.kind, "rules": list(m.rules), "label": m.label}
                                   for m in lane.markers]} for lane in timeline.lanes],
            "totals": totals.to_json() if totals else None,
        })
        return 0
    for lane in timeline.lanes:
        marks = "; ".join(f"[{m.step}] {m.label}" for m in lane.markers)
        extra = " ".join(filter(None, [",".join(lane.tools), ",".join(lane.models), "error" if lane.error else ""]))
        print(f"turn {lane.turn:>3}  steps {lane.start}-{lane.end}  {len(lane.deltas)} deltas  {extra}".rstrip()
              + (f"  {marks}" if marks else ""))
    if totals is not None:
        print(f"totals: {totals.messages} assistant messages, {int(totals.tokens['totalTokens']):,} tokens, "
              f"${totals.cost:.4f}, {totals.errors} errors")
    return 0

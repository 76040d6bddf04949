"""``workbench replay``: step a recorded stream (or a session, re-chunked) through the rules headless."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.agent_config import (
    config_json,
    config_lines,
    discovery_switches,
    read_settings,
    resolve_agent,
    templates_for,
)
from workbench.cli.judge_flags import judge_from_args, replay_judged_lines
from workbench.cli.options import add_replay_flags, add_rule_set_flags, rule_set_options
from workbench.cli.rules import bundled_json, bundled_line
from workbench.errors import NotFoundError, UsageError
from workbench.replay import CHUNK_POLICIES, ReplayConfig, SessionCopy, open_stream, run_session
from workbench.rules import discover_rule_set, judge_state, rules_for_agent
from workbench.sessions import load_session
from workbench.ttsr import CONTEXT_MODES, INTERRUPT_MODES, REPEAT_MODES, TtsrSettings


def register(subparsers: Any) -> None:
    p = add_command(subparsers, "replay", run,
                    help="replay a stream or session through TTSR rules and print what the agent would do")
    p.add_argument("source", metavar="STREAM_OR_SESSION", help="a stream .jsonl file or a session .jsonl file")
    add_rule_set_flags(p, rules="required")
    p.add_argument("--context-mode", choices=CONTEXT_MODES)
    p.add_argument("--interrupt-mode", choices=INTERRUPT_MODES)
    p.add_argument("--repeat-mode", choices=REPEAT_MODES)
    p.add_argument("--repeat-gap", type=int, metavar="N")
    p.add_argument("--chunking", choices=CHUNK_POLICIES, default="words",
                   help="how a session's messages are cut into deltas (default: words)")
    p.add_argument("--chunk-size", type=int, metavar="N", help="units per delta for --chunking")
    p.add_argument("--all-branches", action="store_true", help="derive from every branch of a session, not the active one")
    p.add_argument("--time-bound", type=float, default=2.0, metavar="SECONDS",
                   help="disable a rule whose condition runs longer than this on one event (default: 2)")
    p.add_argument("--resume", metavar="SESSION",
                   help="start from this session: its conversation, and the rules its ttsr_injection entries name")
    p.add_argument("--write-session", metavar="PATH",
                   help="write a copy of the session (--resume, else the input session) with the injections appended")
    add_replay_flags(p)
    add_json_flag(p)


def run(args: argparse.Namespace) -> int:
    """Replay a recorded stream (or a session file, re-chunked into deltas) through the rules discovered under
    --rules; print one line per TTSR event and the final state."""
    if args.repeat_gap is not None and args.repeat_gap < 0:
        raise UsageError("--repeat-gap must be >= 0")
    judge_given = args.judge is not None
    judge = judge_from_args(args) if judge_given else None
    options = rule_set_options(args)
    stream, _session = open_stream(args.source, policy=args.chunking, size=args.chunk_size,
                                   all_branches=args.all_branches)
    layers = read_settings(args, options.project)
    loaded = discover_rule_set(options, **discovery_switches(layers))
    settings = TtsrSettings.from_mapping(layers.ttsr_mapping())
    judging = judge_state(layers, judge_given)
    judge = judge if judging.active else None
    cwd = stream.cwd or options.project
    resume = None
    if args.resume:
        if not Path(args.resume).is_file():
            raise NotFoundError(f"--resume {args.resume}: no such file")
        resume = load_session(args.resume)
    agent = resolve_agent(args, resume or _session)
    rules = rules_for_agent(list(loaded.rules), agent["name"])
    texts = templates_for(args, loaded.bundled)
    config = ReplayConfig(settings, cwd=cwd, home=args.home, resume=resume, templates=texts.templates(), judge=judge,
                          edit_mode=args.edit_mode or "auto",
                          time_bound=args.time_bound if args.time_bound > 0 else None)
    result = run_session(stream, rules, config)
    if args.write_session:
        copy = SessionCopy(resume or _session, cwd=cwd)
        copy.adopt(result.entries)
        copy.write(args.write_session)
    bundled = bundled_json(loaded, args, layers.value("builtinRules"))
    if args.json:
        print_json({**result.to_json(), "builtinSource": bundled,
                    **config_json(layers, agent, providers=loaded.providers, templates=texts, judge_given=judge_given)})
        return 0
    for ev in result.events:
        print(_line(ev))
    for line in replay_judged_lines(result):
        print(line)
    for call in result.edit_modes:
        print(f"edit mode of {call['stream_key']}: {call['mode'] or '-'} ({call['reason']})")
    if result.judged_rules and not judging.active:
        print(f"judge: {judging.why}")
    for line in config_lines(layers, agent):
        print(line)
    print(f"status: {result.status}; injected: {', '.join(result.injected) or '-'}; "
          f"messages in context: {len(result.context)}; {bundled_line(bundled, short=True)}")
    return 0


def _line(ev: Any) -> str:
    # Each field shown only when the event has it; texts are JSON-quoted (a delta may be "").
    fields = (("rules", ",".join(ev.rules)), ("source", ev.source), ("call", ev.tool_call_id),
              ("delta", None if ev.delta is None else json.dumps(ev.delta, ensure_ascii=False)),
              ("reason", json.dumps(ev.reason, ensure_ascii=False) if ev.reason else None))
    shown = [f"{key}={value}" for key, value in fields if value]
    shown += [f"{key}={json.dumps(value)}" for key, value in ev.detail.items()
              if key in ("mode", "continuation", "deferred", "judged", "subject")]
    return " ".join([f"[{ev.step}]", ev.type, *shown])

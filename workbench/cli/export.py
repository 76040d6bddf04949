"""``workbench export``: a session's tree and entries, or a stepper run, as one offline HTML file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli._output import add_json_flag, print_json
from workbench.errors import NotFoundError, UsageError
from workbench.export import export_html
from workbench.replay import ReplayConfig, Stepper
from workbench.replay.derive import open_stream
from workbench.rules import load_rules
from workbench.sessions import load_session


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a session (and optionally a stepper run) as one self-contained HTML file",
        description="Export a session's /tree and entries, and with --stream and --rules every step of a "
        "stepper run, into one HTML file that works offline and escapes everything from the session.",
    )
    p.add_argument("session", metavar="SESSION", nargs="?", help="a .jsonl session file")
    p.add_argument("--leaf", metavar="ID", help="current leaf of the tree (default: the file's leaf)")
    p.add_argument("--flavor", default="omp", choices=("omp", "pi"), help="which agent's /tree to mimic")
    p.add_argument("--stream", metavar="FILE", help="a recorded stream (or a session, re-chunked) to step through the rules")
    p.add_argument("--rules", metavar="DIR", help="project directory to discover rules from (with --stream)")
    p.add_argument("--home", metavar="DIR", help="home directory for user-level rules")
    p.add_argument("--step", type=int, default=0, metavar="N", help="the step the page opens at (default: 0)")
    p.add_argument("--out", required=True, metavar="FILE.html", help="where to write the page")
    add_json_flag(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.session and not args.stream:
        raise UsageError("give a SESSION, a --stream, or both")
    if args.stream and not args.rules:
        raise UsageError("--stream needs --rules DIR (the rules to step it through)")
    session = None
    if args.session:
        if not Path(args.session).is_file():
            raise NotFoundError(f"{args.session}: no such file")
        session = load_session(args.session)
        if args.leaf is not None and args.leaf not in session.by_id:
            raise NotFoundError(f"{args.session}: entry {args.leaf!r} not found (--leaf)")
    stepper = None
    if args.stream:
        rules_dir = Path(args.rules)
        if not rules_dir.is_dir():
            raise NotFoundError(f"--rules {args.rules}: no such directory")
        stream, _ = open_stream(args.stream)  # a session file is re-chunked into a stream
        rules = load_rules(cwd=str(rules_dir.resolve()), home=args.home).rules
        stepper = Stepper(stream, rules, ReplayConfig(cwd=stream.cwd or str(rules_dir.resolve()), home=args.home))
        if len(stepper) and not 0 <= args.step < len(stepper):
            raise UsageError(f"--step {args.step}: the stream has {len(stepper)} events (0..{len(stepper) - 1})")
    out = export_html(args.out, session=session, stepper=stepper, step=args.step, leaf=args.leaf,
                      flavor=args.flavor, inputs=tuple(p for p in (args.stream,) if p))
    if args.json:
        print_json({"out": str(out), "bytes": out.stat().st_size, "session": bool(session),
                    "steps": len(stepper) if stepper else 0})
    else:
        print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0

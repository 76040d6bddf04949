"""``workbench export``: a session's tree and entries, or a stepper run, as one offline HTML file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.options import add_rule_set_flags, stream_with_rules
from workbench.errors import NotFoundError, UsageError
from workbench.export import FORMATS, Redaction, Redactor, conversation_markdown, export_html, path_json
from workbench.replay import Stepper
from workbench.sessions import FLAVOR_CHOICES, choose_flavor, load_session


def register(subparsers: Any) -> None:
    p = add_command(subparsers, "export", run,
                    help="write a session (and optionally a stepper run) as one self-contained HTML file")
    p.add_argument("session", metavar="SESSION", nargs="?", help="a .jsonl session file")
    p.add_argument("--leaf", metavar="ID", help="current leaf of the tree (default: the file's leaf)")
    p.add_argument("--flavor", default="auto", choices=FLAVOR_CHOICES,
                   help="which agent's /tree to mimic (default: auto, told from the file, as `tree` does)")
    p.add_argument("--stream", metavar="FILE", help="a recorded stream (or a session, re-chunked) to step through the rules")
    add_rule_set_flags(p, rules="optional", rules_note="; with --stream")
    p.add_argument("--step", type=int, default=0, metavar="N", help="the step the page opens at (default: 0)")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the export")
    p.add_argument("--format", default="html", choices=FORMATS,
                   help="html: the page (default); md: the conversation at the leaf, tool calls folded; "
                   "json: the entries on the path to the leaf")
    p.add_argument("--redact", action="store_true",
                   help="replace API keys and tokens, e-mail addresses and home-folder paths in the export")
    p.add_argument("--redact-pattern", action="append", default=[], metavar="RE",
                   help="also redact what this regular expression matches (repeatable; implies --redact)")
    p.add_argument("--dry-run", action="store_true", help="with --redact: list what would be redacted, write nothing")
    add_json_flag(p)


def run(args: argparse.Namespace) -> int:
    """Export a session's /tree and entries, and with --stream and --rules every step of a stepper run, into one
    HTML file that works offline and escapes everything from the session."""
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
        stream, _, rules, config = stream_with_rules(args, args.stream)
        stepper = Stepper(stream, rules, config)
        if len(stepper) and not 0 <= args.step < len(stepper):
            raise UsageError(f"--step {args.step}: the stream has {len(stepper)} events (0..{len(stepper) - 1})")
    redact = args.redact or bool(args.redact_pattern)
    if args.dry_run and not redact:
        raise UsageError("--dry-run previews a redaction: add --redact")
    if args.format != "html":
        if session is None or stepper is not None:
            raise UsageError(f"--format {args.format} exports a SESSION (a stepper run is exported as html)")
        return _text_export(args, session, Redactor(tuple(args.redact_pattern)) if redact else None)
    report: list[Redaction] = []
    out = export_html(args.out, session=session, stepper=stepper, step=args.step, leaf=args.leaf,
                      flavor=choose_flavor(args.flavor, session).flavor, inputs=tuple(p for p in (args.stream,) if p),
                      redactor=Redactor(tuple(args.redact_pattern)) if redact else None, report=report,
                      dry_run=args.dry_run)
    found = report[0] if report else None
    if args.dry_run and found is not None:
        _print_preview(args, found)
        return 0
    if args.json:
        print_json({"out": str(out), "bytes": out.stat().st_size, "session": bool(session),
                    "steps": len(stepper) if stepper else 0,
                    **({"redacted": found.counts, "total": found.total} if found is not None else {})})
    else:
        print(f"wrote {out} ({out.stat().st_size:,} bytes)")
        if found is not None:
            print(f"redacted {found.total} item(s): " + (", ".join(f"{k} {n}" for k, n in sorted(found.counts.items())) or "nothing"))
    return 0


def _text_export(args: argparse.Namespace, session: Any, redactor: Redactor | None) -> int:
    """``--format md|json``: one file, written whole; never over the session it reads."""
    target = Path(args.out)
    if target.resolve() == Path(session.path).resolve():
        raise UsageError(f"--out {args.out}: that is an input of the export; it is never overwritten")
    data: Any = (conversation_markdown(session, args.leaf, flavor=choose_flavor(args.flavor, session).flavor) if args.format == "md"
                 else path_json(session, args.leaf))
    found = None
    if redactor is not None:
        data, found = redactor.redact(data)
    if args.dry_run and found is not None:
        _print_preview(args, found)
        return 0
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    counts = {"redacted": found.counts, "total": found.total} if found is not None else {}
    if args.json:
        print_json({"out": str(target), "bytes": target.stat().st_size, "format": args.format, **counts})
    else:
        print(f"wrote {target} ({target.stat().st_size:,} bytes, {args.format})")
        if found is not None:
            print(f"redacted {found.total} item(s): " + (", ".join(f"{k} {n}" for k, n in found.counts.items()) or "nothing"))
    return 0


def _print_preview(args: argparse.Namespace, found: Redaction) -> None:
    if args.json:
        print_json({"out": None, "redacted": found.counts, "total": found.total,
                    "preview": list(found.preview(limit=1000))})
        return
    print(f"would redact {found.total} item(s): " + (", ".join(f"{k} {n}" for k, n in found.counts.items()) or "nothing"))
    for line in found.preview():
        print(f"  {line}")

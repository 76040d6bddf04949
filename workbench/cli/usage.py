"""``workbench usage``: tokens and cost of the conversation at a leaf, or across sessions by a grouping.

``usage SESSION [--leaf ID]`` reads one file (and the subagents' files it links to); ``usage PATH ...
--by model|day|week|cwd`` loads the files into the store (in memory unless ``--db``) and groups there.
A folder, several paths or ``--by`` choose the second form.
"""

from __future__ import annotations

import argparse
import csv
import sys
from datetime import date
from pathlib import Path
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.errors import NotFoundError, UsageError
from workbench.sessions import TOKEN_FIELDS, BranchUsage, branch_usage, load_session, session_files

_MEMORY = ":memory:"
_GROUPINGS = ("model", "day", "week", "cwd")

_EXAMPLES = """\
examples:
  workbench usage session.jsonl                        tokens and cost at the file's leaf
  workbench usage session.jsonl --leaf a1b2c3 --json   at another leaf, as JSON
  workbench usage ~/.omp/agent/sessions --by week      every session, by ISO week
  workbench usage ~/.omp/agent/sessions --by model --since 2026-11-01 --csv > usage.csv
"""


def register(subparsers: Any) -> None:
    p = add_command(
        subparsers, "usage", run, help="tokens and cost at a leaf, or across sessions by model, day, week or project",
        description="With one SESSION: the tokens and cost of the assistant messages from the root to the "
        "leaf, by model, with TTSR judge calls apart per rule and subagent sessions rolled up. With folders, "
        "several files or --by: every assistant message of every file, grouped.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="a session file, or session files and folders")
    p.add_argument("--leaf", metavar="ID", help="the leaf of the branch (default: the file's leaf)")
    p.add_argument("--no-children", action="store_true", help="leave the subagents' sessions out")
    p.add_argument("--by", choices=_GROUPINGS, help="group across sessions (default for folders: model)")
    p.add_argument("--since", metavar="DATE", help="from this day (YYYY-MM-DD, UTC, inclusive)")
    p.add_argument("--until", metavar="DATE", help="up to this day (YYYY-MM-DD, UTC, inclusive)")
    p.add_argument("--csv", action="store_true", help="the grouped rows as CSV")
    p.add_argument("--db", metavar="FILE", default=_MEMORY, help="a DuckDB store to load into and read from")
    add_json_flag(p)


def _day(text: str | None, flag: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{flag} {text}: give a day as YYYY-MM-DD") from None


def run(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not Path(path).exists():
            raise NotFoundError(f"{path}: no such file or folder")
    grouped = args.by is not None or len(args.paths) > 1 or Path(args.paths[0]).is_dir()
    if grouped:
        if args.leaf is not None:
            raise UsageError("--leaf names an entry of one session; it does not go with --by or several paths")
        return _grouped(args)
    if args.since or args.until or args.csv:
        raise UsageError("--since, --until and --csv group across sessions: add --by model|day|week|cwd")
    session = load_session(args.paths[0])
    if args.leaf is not None and args.leaf not in session.by_id:
        raise NotFoundError(f"{args.paths[0]}: entry {args.leaf!r} not found (--leaf)")
    usage = branch_usage(session, args.leaf, children=not args.no_children)
    if args.json:
        print_json(usage.to_json())
    else:
        _print_branch(usage)
    return 0


def _tokens_line(tokens: Any, cost: float) -> str:
    parts = "  ".join(f"{key} {int(tokens.get(key, 0)):,}" for key in TOKEN_FIELDS)
    return f"{parts}  cost ${cost:.4f}"


def _print_branch(usage: BranchUsage) -> None:
    print(f"usage at leaf {usage.leaf_id} ({usage.messages} assistant message(s))")
    print(f"  {_tokens_line(usage.tokens, usage.cost)}")
    for model, m in usage.by_model().items():
        print(f"  {model}: {m['messages']} message(s)  {_tokens_line(m, m['cost'])}")
    if usage.judge:
        print("TTSR judge calls (counted apart, not in the totals above):")
        for j in usage.judge:
            print(f"  {j.rule}: {j.calls} call(s)  {_tokens_line(j.tokens, j.cost)}")
    if usage.children:
        print("subagents (rolled up into the totals above):")
        for c in usage.children:
            who = f" ({c.agent})" if c.agent else ""
            print(f"  {c.path}{who}: {c.usage.messages} message(s)  {_tokens_line(c.usage.tokens, c.usage.cost)}")
    if usage.missing:
        print("subagents named by a task result whose files are not on disk (not counted):")
        for link in usage.missing:
            print(f"  {link.agent_id}" + (f" ({link.agent})" if link.agent else "") + f", entry {link.entry_id}")


def _grouped(args: argparse.Namespace) -> int:
    # DuckDB loads only for this form: one session's usage needs no store
    from workbench.store import Store, judge_by_rule, usage_by, usage_totals

    by = args.by or "model"
    since, until = _day(args.since, "--since"), _day(args.until, "--until")
    if since and until and since > until:
        raise UsageError(f"--since {since} is after --until {until}")
    files = [str(p.resolve()) for p in session_files(args.paths)]
    if not files:
        raise NotFoundError(f"no session files under {' '.join(args.paths)}")
    with Store(args.db) as store:
        store.ingest(files)
        rows = usage_by(store, by, paths=files, since=since, until=until)
        judged = judge_by_rule(store, paths=files, since=since, until=until)
    if args.csv:
        if rows:
            writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        return 0
    totals = usage_totals(rows)
    if args.json:
        print_json({"by": by, "since": args.since, "until": args.until, "files": len(files), "rows": rows,
                    "totals": totals, "judgeByRule": judged})
        return 0
    print(f"usage of {len(files)} session file(s) by {by}" + (f" since {since}" if since else "")
          + (f" until {until}" if until else ""))
    for r in rows:
        judge = f"  judge {r['judgeCalls']} call(s) ${r['judgeCost']:.4f}" if r["judgeCalls"] else ""
        print(f"  {r['group']}: {r['sessions']} session(s) {r['messages']} message(s)  "
              f"{_tokens_line(r, r['cost'])}{judge}")
    print(f"  total: {totals['messages']} message(s)  {_tokens_line(totals, totals['cost'])}")
    if judged:
        print("TTSR judge calls by rule (counted apart, not in the totals above):")
        for j in judged:
            print(f"  {j['rule']}: {j['calls']} call(s) in {j['sessions']} session(s)  {_tokens_line(j, j['cost'])}")
    return 0

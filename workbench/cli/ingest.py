"""``workbench ingest PATH ... [--db FILE] [--parquet DIR] [--json]``: load session files into DuckDB."""

from __future__ import annotations

import argparse
import sys

from workbench.cli._output import ProgressBar, add_command, add_json_flag, print_json
from workbench.errors import InputError, UsageError

_SHOWN_ERRORS = 20  # the text summary lists this many problems; --json lists them all
_MEMORY = ":memory:"

_EXAMPLES = """\
examples:
  workbench ingest ~/.pi/agent/sessions                         check an archive; nothing is saved
  workbench ingest ~/.pi/agent/sessions --db sessions.duckdb    keep the rows in sessions.duckdb
  workbench ingest ~/.pi/agent/sessions --db sessions.duckdb    run again: unchanged files are skipped
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "ingest", _run, help="load session files and folders into a DuckDB store",
                         epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="session files or folders")
    parser.add_argument("--db", metavar="FILE", default=_MEMORY,
                        help="DuckDB file to create or update, e.g. --db sessions.duckdb (default: an "
                        "in-memory store that is thrown away: summary only, nothing saved)")
    parser.add_argument("--parquet", metavar="DIR", default=None,
                        help="also write the tables as Parquet (entries partitioned by session) under DIR")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_flag(parser)


def _run(args: argparse.Namespace) -> int:
    """Load pi / oh-my-pi session files (folders: every *.jsonl, recursively) into DuckDB.
    Unchanged files are skipped; changed files are replaced. Bad lines are reported with
    file:line. Without --db the store lives in memory: you get the summary, nothing is saved."""
    # Start-up cost: duckdb (~0.1-0.2 s) loads only when the command runs, not for every command.
    from workbench.store import Store

    saved = args.db != _MEMORY
    if saved and args.db.endswith("/"):
        raise UsageError(f"--db {args.db}: give a file name, not a folder")
    show_progress = not args.quiet and not args.json and sys.stderr.isatty()

    with Store(args.db) as store, ProgressBar("files") as bar:
        summary = store.ingest(args.paths, progress=bar if show_progress else None, parquet=args.parquet)
        totals = store.stats()
    if summary.sessions == 0 and summary.skipped_files == 0:
        # nothing was a session (an empty folder, or only files that are not): bad input, said once
        first = f" (first: {summary.errors[0]})" if summary.errors else ""
        raise InputError(f"no session file among {', '.join(args.paths)}: {summary.files} file(s) read, "
                         f"none is a session{first}")
    if args.json:
        print_json({**summary.to_dict(), "db": args.db, "saved": saved, "totals": totals})
        return 0
    read = summary.files - summary.skipped_files
    print(f"files: {summary.files} ({read} read, {summary.skipped_files} unchanged, "
          f"{summary.fallback_files} via the session parser)")
    print(f"sessions: {summary.sessions}  entries: {summary.entries}  errors: {len(summary.errors)}")
    print(f"read {summary.bytes / 1e6:.1f} MB in {summary.seconds:.2f} s ({summary.mb_per_s:.1f} MB/s)")
    for err in summary.errors[:_SHOWN_ERRORS]:
        print(f"  {err}")
    if len(summary.errors) > _SHOWN_ERRORS:
        print(f"  ... {len(summary.errors) - _SHOWN_ERRORS} more (see --json or the ingest_errors table)")
    if saved:
        print(f"store: {args.db} ({totals['sessions']} sessions, {totals['entries']} entries in total)")
    else:
        print("store: in memory only, nothing was saved (add --db FILE to keep the rows, "
              "e.g. --db sessions.duckdb)")
    if summary.parquet:
        print(f"parquet: {summary.parquet}")
    return 0

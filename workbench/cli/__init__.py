"""The ``workbench`` command.

Each subcommand group lives in a module of its own that exposes ``register(subparsers)``; a
registered handler is called with the parsed namespace and returns an exit code. Errors the user can
act on (``WorkbenchError``) become one line ``error: ...`` and exit status 2. The pure layers load with
the parser; Panel loads only inside ``serve``'s handler and DuckDB only when a command uses the store.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.cli.options import cli_message
from workbench.errors import WorkbenchError

__all__ = ["build_parser", "main"]

# Modules that contribute subcommands, in help order.
_COMMAND_MODULES = (
    "workbench.cli.serve",
    "workbench.cli.ingest",
    "workbench.cli.sessions",
    "workbench.cli.rules",
    "workbench.cli.replay",
    "workbench.cli.backtest",
    "workbench.cli.export",
    "workbench.cli.usage",
    "workbench.cli.timeline",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="TTSR Workbench: inspect pi / oh-my-pi sessions and debug Time Traveling Stream Rules.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {cli_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

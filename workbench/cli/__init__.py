"""The ``workbench`` command.

Each subcommand group lives in a module of its own that exposes ``register(subparsers)``; a
registered handler is called with the parsed namespace and returns an exit code. Errors the user can
act on (``WorkbenchError``) become one line ``error: ...`` and exit status 2, and so do the parser's own
(``error: workbench SUB: ...``, naming the subcommand, with where its help is). The pure layers load with
the parser; Panel loads only inside ``serve``'s handler and DuckDB only when a command uses the store.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

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


USAGE_EXIT = 2  # argparse's own status for a command line it cannot read


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line naming the (sub)command, as the handlers' are;
    argparse's default prints the whole usage block first, which buries the message."""

    def error(self, message: str) -> NoReturn:
        _usage_error(self.prog, message)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a subcommand's defaults overwrite its parent's: the innermost name is the one left, which is
        # the command an unknown argument belongs to
        self.set_defaults(_prog=self.prog)


def _usage_error(prog: str, message: str) -> NoReturn:
    print(f"error: {prog}: {message} (see {prog} --help)", file=sys.stderr)
    sys.exit(USAGE_EXIT)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    args, extras = parser.parse_known_args(argv)
    if extras:
        _usage_error(args._prog, f"unrecognized arguments: {' '.join(extras)}")
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

"""``--edit-mode`` for the commands that replay (``replay``, ``backtest``).

A session file does not record the agent's ``edit.mode``; ``auto`` (the default) reads each edit call's
mode from its arguments (docs/edit-modes.md), a mode read every ``edit`` call in that grammar.
"""

from __future__ import annotations

import argparse

from workbench.cli.options import add_edit_mode_flag as _shared


def add_edit_mode_flag(p: argparse.ArgumentParser) -> None:
    _shared(p)  # the one definition, in cli/options.py

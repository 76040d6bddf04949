"""``--edit-mode`` for the commands that replay (``replay``, ``backtest``).

A session file does not record the agent's ``edit.mode``; ``auto`` (the default) reads each edit call's
mode from its arguments (docs/edit-modes.md), a mode read every ``edit`` call in that grammar.
"""

from __future__ import annotations

import argparse

from workbench.edits import AUTO, EDIT_MODES


def add_edit_mode_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edit-mode", choices=(AUTO, *EDIT_MODES), default=AUTO,
                   help="the agent's edit tool variant (edit.mode) the calls are read with; "
                   "default auto: from each call's arguments")

"""The agent's edit tools as its TTSR sees them: every edit grammar of oh-my-pi 18.3.4 and the write tool.

For a (possibly partial, streaming) call's arguments this package gives what the agent's TTSR reads
from the tool: the paths the call touches, one output per file with its stream key
(``toolcall:<id>#<path>``) and the digest (the text the call adds) that replaces the raw argument
buffer. Grammars: ``hashline`` (the agent's default), ``apply_patch``, ``patch``, ``replace`` and
``sloppy``; the mode is read from each call's arguments (``auto``) or set. Pure: no I/O, never raises on
odd arguments. The agent's own parser is native and unpublished; docs/edit-modes.md says what each
reader follows. ``edit_diff(tool, args)`` gives what a call did to each file as removed/added lines.
"""

from workbench.edits.choose import EDIT_TOOLS, ModeChoice, check_edit_mode, choose_mode
from workbench.edits.diff import DiffLine, EditDiff, FileDiff, edit_diff, line_diff
from workbench.edits.envelope import inspect_apply_patch
from workbench.edits.hashline import inspect_hashline
from workbench.edits.model import AUTO, EDIT_MODES, FileEntry, FileOp, Inspection
from workbench.edits.sloppy import inspect_sloppy
from workbench.edits.structured import inspect_patch, inspect_replace
from workbench.edits.view import INSPECTORS, FileOutput, ToolView, file_stream_key, inspect, stream_key, tool_view

__all__ = [
    "AUTO",
    "DiffLine",
    "EditDiff",
    "FileDiff",
    "EDIT_MODES",
    "EDIT_TOOLS",
    "INSPECTORS",
    "FileEntry",
    "FileOp",
    "FileOutput",
    "Inspection",
    "ModeChoice",
    "ToolView",
    "check_edit_mode",
    "choose_mode",
    "edit_diff",
    "file_stream_key",
    "inspect",
    "inspect_apply_patch",
    "inspect_hashline",
    "inspect_patch",
    "inspect_replace",
    "inspect_sloppy",
    "line_diff",
    "stream_key",
    "tool_view",
]

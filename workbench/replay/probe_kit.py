"""The replay's own pieces the backtest's probe builds on, behind one door.

The probe (``workbench.backtest.probe``, ``probe_plan``, ``prefilter``, ``call_skip``) decides before
a replay which turns, tool calls and rules cannot fire. Its decisions are exact only if it reads a
session, a stream, a call's arguments and a rule's reach exactly as the replay does, so it uses the
replay's functions rather than copies of them. They are reached through this module
(``from workbench.replay import probe_kit``) instead of a dozen names on ``workbench.replay``: the
package's surface stays what users and the other packages need, and what the probe depends on is
listed in one place.

- Deriving: ``derive_turns`` / ``FeedPlan`` / ``PLACEHOLDER`` (a derived stream with what a probe
  does not feed left out, same indices; a fed call's deltas as ``CallDelta``), ``entry_branch``, ``timestamp_ok`` and ``says_stream`` (the
  checks ``derive_stream`` and ``open_stream`` make).
- A call's arguments: ``args_json`` / ``compact_json`` (as streamed, and as checked at the call's
  end), ``parse_partial`` (the session's partial JSON parse).
- What a rule can see, as the manager gates it: ``rule_sources``, ``rule_tool_gate``,
  ``tool_name_key``; and ``tool_surface``, what the manager is asked about a call at one delta
  (matcher paths, digest, per-file entries); ``tool_context`` / ``path_candidates``, the context a
  check of a call (``file_paths``) or of one of its files is made in, for the manager's gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.replay.derive import (
    PLACEHOLDER,
    CallDelta,
    FeedPlan,
    derive_turns,
    entry_branch,
    says_stream,
    timestamp_ok,
)
from workbench.replay.engine import (
    context,
    parse_partial,
    path_candidates,
    rule_sources,
    rule_tool_gate,
    tool_name_key,
    tool_surface,
)
from workbench.replay.stream import args_json, compact_json

__all__ = [
    "PLACEHOLDER",
    "CallDelta",
    "FeedPlan",
    "args_json",
    "compact_json",
    "derive_turns",
    "entry_branch",
    "parse_partial",
    "path_candidates",
    "rule_sources",
    "rule_tool_gate",
    "says_stream",
    "timestamp_ok",
    "tool_context",
    "tool_name_key",
    "tool_surface",
]


def tool_context(tool_name: str, file_paths: Sequence[str] | None) -> Any:
    """The match context of a check of a call to ``tool_name`` with these paths, as the simulated
    session makes it (``replay.triggers.ToolChecks``; the stream key takes no part in the gate)."""
    return context("tool", tool_name=tool_name, file_paths=file_paths)

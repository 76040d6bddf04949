"""The replay's own pieces the backtest's probe builds on, behind one door.

The probe (``workbench.backtest.probe``, ``probe_plan``, ``prefilter``, ``call_skip``) decides before
a replay which turns, tool calls and rules cannot fire. Its decisions are exact only if it reads a
session, a stream, a call's arguments and a rule's reach exactly as the replay does, so it uses the
replay's functions rather than copies of them. They are reached through this module
(``from workbench.replay import probe_kit``) instead of a dozen names on ``workbench.replay``: the
package's surface stays what users and the other packages need, and what the probe depends on is
listed in one place.

- Deriving: ``derive_turns`` / ``FeedPlan`` / ``PLACEHOLDER`` (a derived stream with what a probe
  does not feed left out, same indices), ``entry_branch``, ``timestamp_ok`` and ``says_stream`` (the
  checks ``derive_stream`` and ``open_stream`` make).
- A call's arguments: ``args_json`` / ``compact_json`` (as streamed, and as checked at the call's
  end), ``parse_partial`` (the session's partial JSON parse).
- What a rule can see, as the manager gates it: ``rule_sources``, ``rule_tool_gate``,
  ``tool_name_key``; and ``tool_surface``, what the manager is asked about a call at one delta
  (matcher paths, digest, per-file entries).
"""

from __future__ import annotations

from workbench.replay.derive import PLACEHOLDER, FeedPlan, derive_turns, entry_branch, says_stream, timestamp_ok
from workbench.replay.engine import parse_partial, rule_sources, rule_tool_gate, tool_name_key, tool_surface
from workbench.replay.stream import args_json, compact_json

__all__ = [
    "PLACEHOLDER",
    "FeedPlan",
    "args_json",
    "compact_json",
    "derive_turns",
    "entry_branch",
    "parse_partial",
    "rule_sources",
    "rule_tool_gate",
    "says_stream",
    "timestamp_ok",
    "tool_name_key",
    "tool_surface",
]

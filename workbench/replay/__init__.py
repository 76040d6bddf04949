"""Recorded streams, the simulated agent session and the stepper.

- ``Stream`` / ``StreamEvent`` (frozen) / ``StreamHeader``: the JSONL stream format (DESIGN "Recorded
  streams"); ``read_stream(path)``, ``write_stream(stream, path)``, ``parse_stream(lines)``.
- ``derive_stream(session, *, policy="words"|"fixed"|"tokens", size=None, all_branches=False)``: a
  stream from a recorded session (each assistant message re-chunked into deltas).
- ``SimulatedSession``: the agent session of spec §8 driven by stream events through a ``TtsrManager``
  (abort / retry / reminders / deferred prose / persistence into a copy of the session).
  ``run_session(stream, rules, settings, *, cwd, ...) -> ReplayResult`` runs a whole stream.
- ``Stepper(stream, rules, settings, *, cwd, home=None, templates=None)``: one immutable ``Snapshot``
  per stream event; ``seek(i)``, ``next_trigger(i)``, ``prev_trigger(i)``, ``len(stepper)``.
- ``ReplayEvent``: an event the simulated session emitted (``ttsr_triggered``, ``abort``, ``retry``,
  ``reminder``, ``injection``, ``time_bound``); ``ReplayResult``: a finished run (``to_json()`` is the
  CLI's JSON).
- ``Snapshot`` / ``BufferView`` / ``RuleState``: what the stepper shows for one event.
- ``SessionCopy``: the in-memory copy of a session the replay persists into (``write(path)``).
- ``guard(...)`` / ``TimeBound``: the time bound that disables a catastrophic rule (forked child).
- ``templates`` arguments accept ``None`` (defaults), an ``(interrupt, reminder)`` pair or a mapping
  with ``interrupt`` / ``reminder`` keys (texts, or ``Path`` objects read with the engine's loader).

Names are resolved lazily so that this package stays importable while modules are added.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "Stream": "stream",
    "StreamEvent": "stream",
    "StreamHeader": "stream",
    "read_stream": "stream",
    "write_stream": "stream",
    "parse_stream": "stream",
    "parse_event": "stream",
    "make_stream": "stream",
    "event": "stream",
    "derive_stream": "derive",
    "chunk_text": "derive",
    "CHUNK_POLICIES": "derive",
    "SimulatedSession": "session",
    "run_session": "session",
    "ReplayResult": "session",
    "ReplayEvent": "session",
    "StepStatus": "session",
    "NO_CONTINUATION": "session",
    "SessionCopy": "persistence",
    "guard": "timebound",
    "Message": "conversation",
    "Conversation": "conversation",
    "Stepper": "stepper",
    "Snapshot": "stepper",
    "RuleState": "stepper",
    "BufferView": "stepper",
    "TimeBound": "timebound",
    "find_slow_rules": "timebound",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench.replay' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"workbench.replay.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

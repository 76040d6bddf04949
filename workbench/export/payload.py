"""The data an exported page carries: a session's tree and entries, and a stepper run, as plain JSON.

Sizes matter here: a stepper run of 15,000 events whose buffers grow by a delta at every step would be
quadratic if every step carried its buffer text. Buffers are prefixes of a few growing texts (one per
turn and stream key, see ``replay.conversation.Rope``), so the payload keeps each growing text once in
a string table and a step names it and a length. Conversations are persistent lists whose last message
is rebuilt at every step while a message streams; the page carries them only at *key steps* (triggers,
message and turn boundaries, the step the page opens at) and as chains of shared nodes; any other step
points to the key step before it, which the viewer says.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.edits import edit_diff
from workbench.replay import Snapshot, Stepper
from workbench.replay.stream import thaw
from workbench.sessions import Entry, Session, answered_call, entry_links, image_part
from workbench.tree import FILTER_MODES, TreeList

# Events after which the conversation is worth carrying (message and turn boundaries).
_KEY_EVENT_TYPES = frozenset({"message_end", "turn_end", "tool_result", "user_message", "turn_start"})


class _Strings:
    """An interning table: each distinct string is stored once and named by its index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.items)
            self.items.append(text)
        return found


def entry_extras(entry: Entry, session: Session | None = None) -> dict[str, Any] | None:
    """What the viewer draws beside an entry's record: the diff of each edit or write call
    (``edits.edit_diff``), whether each image part may be shown (``sessions.image_part``; the viewer
    takes the data from the record itself, checked again, so an image is not carried twice) and the
    subagents a task result names, with their files relative to the session's folder."""
    msg = entry.message
    content = msg.get("content") if msg is not None else None
    if not isinstance(content, (list, tuple)):
        return None
    diffs: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    answered = answered_call(session.by_id, entry) if session is not None else None
    if answered is not None:  # omp 18 shows a call and its result as one row: the result shows the call's diff
        call_entry, call = answered
        name = call.get("name")
        diff = edit_diff(name if isinstance(name, str) else None, thaw(call.get("arguments")))
        if diff is not None:
            diffs.append({"block": None, "callEntry": call_entry.id, **diff.to_json()})
    for index, block in enumerate(content):
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "toolCall":
            name = block.get("name")
            diff = edit_diff(name if isinstance(name, str) else None, thaw(block.get("arguments")))
            if diff is not None:
                diffs.append({"block": index, **diff.to_json()})
        elif block.get("type") == "image":
            shown = image_part(block)
            images.append({"block": index, "mime": shown.mime, "size": shown.size, "shown": shown.shown,
                           "note": shown.note})
    subagents = []
    if session is not None and msg is not None and msg.get("role") == "toolResult":
        folder = Path(session.path).parent
        for link in entry_links(session, entry):
            file = None
            if link.path is not None:
                file = str(link.path.relative_to(folder)) if link.path.is_relative_to(folder) else link.path.name
            subagents.append({"id": link.agent_id, "agent": link.agent, "description": link.description, "file": file})
    out = {"diffs": diffs, "images": images, **({"subagents": subagents} if subagents else {})}
    return out if diffs or images or subagents else None


def session_payload(session: Session, *, leaf: str | None = None, flavor: str = "omp") -> dict[str, Any]:
    """The session's `/tree` rows under every filter mode, and every entry's record as written."""
    base = TreeList(session, flavor=flavor, **({"leaf": leaf} if leaf is not None else {}))  # type: ignore[arg-type]
    views: dict[str, list[dict[str, Any]]] = {}
    for mode in FILTER_MODES:
        state = base.set_filter(mode)
        views[mode] = [
            {"id": r.id, "type": r.type, "line": r.line, "label": r.label, "active": r.active, "fileLine": r.file_line}
            for r in state.rows()
        ]
    return {
        "path": session.path,
        "id": session.id,
        "flavor": flavor,
        "leaf": base.leaf_id,
        "filters": list(FILTER_MODES),
        "rows": views,
        # The record as it stands in the file (not the migrated view): an export is evidence.
        "entries": {e.id: {"line": e.line, "type": e.type, "raw": thaw(dict(e.raw))} for e in session.entries},
        "extras": {e.id: x for e in session.entries if (x := entry_extras(e, session)) is not None},
        "diagnostics": [str(d) for d in session.diagnostics],
    }


def _key_steps(snapshots: Sequence[Snapshot], opening: int) -> set[int]:
    keys = {0, len(snapshots) - 1, opening}
    for s in snapshots:
        if s.is_trigger or s.event.type in _KEY_EVENT_TYPES:
            keys.add(s.index)
    return {k for k in keys if 0 <= k < len(snapshots)}


class _Chains:
    """Conversations as shared chains: node ``i`` is ``[previous node or -1, message string index]``.

    Successive conversations share all but their last messages, so a chain stores each once."""

    def __init__(self, strings: _Strings) -> None:
        self.nodes: list[list[int]] = []
        self._index: dict[tuple[int, int], int] = {}
        self._strings = strings

    def add(self, conversation: Any) -> int:
        node = -1
        for message in conversation.messages():
            key = (node, self._strings.add(json.dumps(thaw(message), ensure_ascii=False, sort_keys=True)))
            found = self._index.get(key)
            if found is None:
                found = self._index[key] = len(self.nodes)
                self.nodes.append(list(key))
            node = found
        return node


def stepper_payload(stepper: Stepper, *, step: int = 0,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Every step of ``stepper`` in the compact form the viewer reads (see the module docstring).

    ``progress(done, total)`` is called every 50 steps and at the end (the app's export shows it and
    may stop by raising from it)."""
    snapshots = stepper.snapshots()
    if not snapshots:
        return {"steps": [], "strings": [], "chains": [], "open": 0, "rules": [r.name for r in stepper.rules]}
    opening = min(max(step, 0), len(snapshots) - 1)
    strings = _Strings()
    chains = _Chains(strings)
    ropes: dict[int, int] = {}  # id(rope) -> string index of its final text
    keys = _key_steps(snapshots, opening)
    last_key = 0
    steps: list[dict[str, Any]] = []
    for snap in snapshots:
        buffers = []
        for view in snap.buffers:
            rope = view.text.rope
            text_id = ropes.get(id(rope))
            if text_id is None:
                # Every snapshot is alive while we export, so id() names one rope for the whole run.
                text_id = ropes[id(rope)] = strings.add(rope.text())
            buffers.append([view.key, text_id, len(view.text), [list(s) for s in view.spans]])
        item: dict[str, Any] = {
            "event": snap.event.to_json(),
            "status": snap.status,
            "session": snap.session_status,
            "count": snap.message_count,
            "buffers": buffers,
            # Rule states rarely change between steps: each distinct row is stored once.
            "rules": [strings.add(json.dumps(r.to_json(), sort_keys=True)) for r in snap.rules],
            "matched": list(snap.matched),
            "pending": list(snap.pending),
            "events": [e.to_json() for e in snap.events],
            "rendered": [[kind, strings.add(text)] for kind, text in snap.rendered],
            "injected": list(snap.injected),
            "trigger": snap.is_trigger,
        }
        if snap.index in keys:
            last_key = snap.index
            item["conversation"] = {
                "now": chains.add(snap.conversation),
                "keep": chains.add(snap.retry_keep),
                "discard": chains.add(snap.retry_discard),
            }
        else:
            item["conversationAt"] = last_key
        steps.append(item)
        if progress is not None and (len(steps) % 50 == 0 or len(steps) == len(snapshots)):
            progress(len(steps), len(snapshots))
    return {
        "steps": steps,
        "strings": strings.items,
        "chains": chains.nodes,
        "open": opening,
        "rules": [r.name for r in stepper.rules],
        "stream": {"cwd": stepper.cwd, "events": len(snapshots)},
    }


def triggers(payload: dict[str, Any]) -> Iterable[int]:
    """Indexes of the steps the viewer's "next trigger" stops at."""
    return (i for i, s in enumerate(payload.get("steps", ())) if s.get("trigger"))

"""The branch tree of a session: leaf, paths, labels, children order and `/tree` navigation (docs/flavours.md, "The branch tree and labels", "Navigation").

``SessionTree`` works on loaded entries in memory. Its append/branch methods mirror the agent's
SessionManager so conformance scripts and the UI can reason about "what would happen"; nothing here
writes a file (``labels.append_label`` is the one writer, and it only appends).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from workbench.errors import NotFoundError
from workbench.sessions.entries import Entry, Session, paused_gc
from workbench.sessions.flavors import Flavor, SessionFlavour, session_flavour
from workbench.sessions.forest import Positions, TreeNode, build_forest, build_positions  # TreeNode re-exported

_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """What selecting ``target_id`` in `/tree` does (docs/flavours.md, "Navigation"); ``summary_entry`` is not yet appended."""

    target_id: str
    old_leaf_id: str | None
    no_op: bool
    common_ancestor_id: str | None = None
    entries_to_summarize: tuple[str, ...] = ()
    new_leaf_id: str | None = None
    editor_text: str | None = None
    summary_entry: Mapping[str, Any] | None = None
    cancelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The fields of the agent's ``navigateTree`` result: ``{cancelled: false}`` alone for a no-op."""
        out: dict[str, Any] = {"cancelled": self.cancelled}
        if self.no_op:
            return out
        if self.editor_text is not None:
            out["editorText"] = self.editor_text
        if self.summary_entry is not None:
            out["summaryEntry"] = dict(self.summary_entry)
        return out

    @property
    def leaf_after(self) -> str | None:
        """The leaf once the result is applied (the summary entry when one is written)."""
        if self.no_op:
            return self.old_leaf_id
        if self.summary_entry is not None:
            return str(self.summary_entry["id"])
        return self.new_leaf_id


def entry_from_dict(obj: Mapping[str, Any], *, line: int = 0, index: int = 0) -> Entry:
    eid = obj.get("id")
    pid = obj.get("parentId")
    etype = obj.get("type")
    return Entry(
        id=eid if isinstance(eid, str) else str(eid),
        parent_id=pid if isinstance(pid, str) else None,
        type=etype if isinstance(etype, str) else "",
        timestamp=obj.get("timestamp"),
        record=obj,
        line=line,
        index=index,
    )


def as_entries(source: Session | Iterable[Entry | Mapping[str, Any]]) -> list[Entry]:
    """Entries of a session, or a list of entries / raw entry dicts (header records are dropped)."""
    if isinstance(source, Session):
        return list(source.entries)
    out: list[Entry] = []
    for item in source:
        if isinstance(item, Entry):
            out.append(item)
        elif isinstance(item, Mapping) and item.get("type") != "session":
            out.append(entry_from_dict(item, index=len(out)))
    return out


def branch_path(by_id: Mapping[str, Entry], from_id: str | None) -> list[Entry]:
    """Root→``from_id`` path through ``parentId``; stops at a missing id or a repeated one."""
    path: list[Entry] = []
    seen: set[str] = set()
    cur = by_id.get(from_id) if from_id is not None else None
    while cur is not None and cur.id not in seen:
        seen.add(cur.id)
        path.append(cur)
        cur = by_id.get(cur.parent_id) if cur.parent_id is not None else None
    path.reverse()
    return path


def resolve_labels(entries: Iterable[Entry]) -> dict[str, str]:
    """Global label map: replay label entries in file order; absent/null/"" deletes."""
    labels: dict[str, str] = {}
    for entry in [e for e in entries if e.type == "label"]:
        obj = entry.data if entry.data is not None else entry.raw  # Entry.obj without the property call
        target = obj.get("targetId")
        if type(target) is not str and not isinstance(target, str):
            continue
        value = obj.get("label")
        if value:
            labels[target] = value if type(value) is str or isinstance(value, str) else str(value)
        else:
            labels.pop(target, None)
    return labels


def text_of_content(content: Any) -> str:
    """Editor text of a user/custom message: a string, or its text blocks joined with ""."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text", "")) for b in content if isinstance(b, Mapping) and b.get("type") == "text"
        )
    return ""


class SessionTree:
    """Entries of one session with the agent's tree semantics and an in-memory leaf pointer."""

    def __init__(
        self,
        source: Session | Iterable[Entry | Mapping[str, Any]],
        *,
        leaf: str | None = _UNSET,
        flavor: Flavor = "omp",
    ) -> None:
        self.session = source if isinstance(source, Session) else None
        self.flavor: Flavor = flavor
        self.entries: list[Entry] = as_entries(source)
        by_id = source.by_id if isinstance(source, Session) else None
        if by_id and type(by_id) is dict:
            self.by_id: dict[str, Entry] = dict(by_id)  # the loader's index, same rule: a copy in C
        else:
            self.by_id = {}
            for entry in self.entries:
                self.by_id[entry.id] = entry  # a later duplicate overwrites
        self.leaf_id: str | None = (self.entries[-1].id if self.entries else None) if leaf is _UNSET else leaf
        self._tree: list[TreeNode] | None = None
        self._positions: Positions | None = None
        # The loader's links hold for these entries until one is appended.
        self._links = source.links if isinstance(source, Session) else None
        self._labels: dict[str, str] | None = None
        self._children: dict[str | None, list[Entry]] | None = None
        self._counter = 0

    # ----- reading -------------------------------------------------------------------------
    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:
            self._labels = resolve_labels(self.entries)
        return self._labels

    def get_label(self, entry_id: str) -> str | None:
        return self.labels.get(entry_id)

    def get_entry(self, entry_id: str) -> Entry | None:
        return self.by_id.get(entry_id)

    def get_leaf_entry(self) -> Entry | None:
        return self.by_id.get(self.leaf_id) if self.leaf_id is not None else None

    def get_branch(self, from_id: str | None = _UNSET) -> list[Entry]:
        """Root→entry path of ``from_id``; not given or None → the leaf's (``fromId ?? leafId``)."""
        return branch_path(self.by_id, self.leaf_id if from_id is _UNSET or from_id is None else from_id)

    def active_path_ids(self, leaf_id: str | None = _UNSET) -> set[str]:
        # None means "no leaf" here (after rewinding past a root prompt): an empty path.
        return {e.id for e in branch_path(self.by_id, self.leaf_id if leaf_id is _UNSET else leaf_id)}

    def visible_leaf(self) -> str | None:
        """omp's "current leaf" for the selector: the leaf after skipping trailing label/custom entries."""
        cur = self.get_leaf_entry()
        seen: set[str] = set()
        while cur is not None and cur.type in ("label", "custom") and cur.id not in seen:
            seen.add(cur.id)
            if cur.parent_id is None:
                return None
            cur = self.by_id.get(cur.parent_id)
        return cur.id if cur is not None else None

    @property
    def flavour(self) -> SessionFlavour:
        """The file rules of ``flavor``: what differs between the agents here (``flavors.FLAVOURS``)."""
        return session_flavour(self.flavor)

    def leaf_for_selector(self, flavor: Flavor | None = None) -> str | None:
        """The leaf the `/tree` selector is given: pi and omp 18.3 pass the real leaf, omp17 the visible one."""
        real = session_flavour(flavor or self.flavor).selector_gets_real_leaf
        return self.leaf_id if real else self.visible_leaf()

    def get_tree(self) -> list[TreeNode]:
        """Roots in file order, children sorted by timestamp (stable); orphans and cycle breaks are roots."""
        if self._tree is None:
            with paused_gc():
                self._tree = build_forest(self.entries, self.labels, self.positions())[0]
        return self._tree

    def positions(self) -> Positions:
        """``get_tree()`` over entry positions (no node objects): what the flattened list is built from."""
        if self._positions is None:
            with paused_gc():
                self._positions = build_positions(self.entries, self._links)
        return self._positions

    def get_children(self, entry_id: str) -> list[Entry]:
        """The agent's ``getChildren``: every entry whose parentId is ``entry_id``, in file order.

        Unlike the tree's children this is not sorted by timestamp, and an entry whose id is reused
        later still appears (the index is by parent, not by id).
        """
        if self._children is None:
            kids: dict[str | None, list[Entry]] = {}
            for entry in self.entries:
                kids.setdefault(entry.parent_id, []).append(entry)
            self._children = kids
        return list(self._children.get(entry_id, ()))

    def children_in_tree_order(self, entry_id: str) -> list[Entry]:
        """Children of an entry as ``get_tree`` orders them (timestamp, stable); O(children)."""
        forest = self.positions()
        at = forest.node_at.get(entry_id)
        return [self.entries[c] for c in forest.children.get(at, ())] if at is not None else []

    # ----- in-memory appends (SessionManager semantics, never written) ---------------------------
    def _invalidate(self) -> None:
        self._tree = None
        self._positions = None
        self._links = None
        self._children = None
        self._labels = None

    def mint_id(self) -> str:
        while True:
            candidate = uuid.uuid4().hex[:8]
            if candidate not in self.by_id:
                return candidate

    def append(self, obj: Mapping[str, Any]) -> Entry:
        """Append a record as a child of the leaf; it becomes the leaf. Returns the new entry."""
        data = dict(obj)
        data.setdefault("id", self.mint_id())
        data["parentId"] = self.leaf_id
        data.setdefault("timestamp", datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"))
        ordered = {"type": data.pop("type"), "id": data.pop("id"), "parentId": data.pop("parentId"),
                   "timestamp": data.pop("timestamp"), **data}
        entry = entry_from_dict(ordered, index=len(self.entries))
        self.entries.append(entry)
        self.by_id[entry.id] = entry
        self.leaf_id = entry.id
        self._invalidate()
        return entry

    def branch(self, entry_id: str) -> None:
        if entry_id not in self.by_id:
            raise NotFoundError(f"Entry {entry_id} not found")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        self.leaf_id = None

    def append_label_change(self, target_id: str, label: str | None) -> Entry:
        if target_id not in self.by_id:
            raise NotFoundError(f"Entry {target_id} not found")
        obj: dict[str, Any] = {"type": "label", "targetId": target_id}
        if label is not None:
            obj["label"] = label
        return self.append(obj)

    def branch_with_summary(
        self, target_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> Entry:
        if target_id is not None and target_id not in self.by_id:
            raise NotFoundError(f"Entry {target_id} not found")
        self.leaf_id = target_id
        return self.append(self.summary_record(target_id, summary, details, from_hook))

    def summary_record(
        self, target_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> dict[str, Any]:
        # Quirk kept: fromId is the new parent (or "root"), not the abandoned leaf (docs/flavours.md).
        obj: dict[str, Any] = {"type": "branch_summary", "fromId": target_id if target_id is not None else "root",
                               "summary": summary}
        if details is not None:
            obj["details"] = details
        if from_hook is not None:
            obj[self.flavour.summary_origin_field] = from_hook
        return obj

    def create_branched(self, leaf_id: str) -> SessionTree:
        """In-memory fork: the root→leaf path without label entries, then fresh labels for that path.

        Raises ``NotFoundError("Entry <id> not found")`` for an id with no branch, as the agent does.
        """
        branch = self.get_branch(leaf_id)
        if not branch:
            raise NotFoundError(f"Entry {leaf_id} not found")
        path = [e for e in branch if e.type != "label"]
        on_path = {e.id for e in path}
        fork = SessionTree([], leaf=None, flavor=self.flavor)
        for entry in path:
            fork.entries.append(entry)
            fork.by_id[entry.id] = entry
        fork.leaf_id = path[-1].id if path else None
        for target, label in self.labels.items():
            if target in on_path:
                fork.append({"type": "label", "targetId": target, "label": label})
        fork._invalidate()
        return fork

    # ----- navigation ---------------------------------------------------------------------
    def navigate(
        self, target_id: str, *, summary: str | None = None, details: Any = None, interactive: bool = False
    ) -> NavigationResult:
        """What `/tree` selection of ``target_id`` does; pure (apply it with ``apply_navigation``).

        ``interactive=True`` adds the selector's own no-op check: omp treats selecting the visible leaf
        (the leaf minus trailing label/custom entries) as "already here", pi only the real leaf.
        """
        old = self.leaf_id
        kind = self.flavour
        if kind.here_before_lookup and target_id == old:
            # pi checks "already here" before looking the target up; omp 18 looks it up first.
            return NavigationResult(target_id=target_id, old_leaf_id=old, no_op=True, new_leaf_id=old)
        target = self.by_id.get(target_id)
        if target is None:
            raise NotFoundError(f"Entry {target_id} not found")
        is_user = kind.user_request(target.obj)
        # omp 18: navigateTree never treats a user prompt as "already here", it rewinds past it; its
        # `/tree` selector, though, stops at the real leaf first ("Already at this point"), unless
        # the leaf is an `ask` result (which reopens the question).
        rewinds = kind.rewinds_past_user and is_user
        if interactive and kind.selector_here == "leaf":
            ask = target.type == "message" and target.role == "toolResult" and (target.message or {}).get("toolName") == "ask"
            if target_id == old and not ask:
                return NavigationResult(target_id=target_id, old_leaf_id=old, no_op=True, new_leaf_id=old)
        elif interactive and kind.selector_here == "visible" and target_id == self.visible_leaf() and not rewinds:
            return NavigationResult(target_id=target_id, old_leaf_id=old, no_op=True, new_leaf_id=old)
        if target_id == old and not rewinds:
            return NavigationResult(target_id=target_id, old_leaf_id=old, no_op=True, new_leaf_id=old)
        common: str | None = None
        to_summarize: list[str] = []
        if old is not None:
            old_path = self.active_path_ids(old)
            for entry in self.get_branch(target_id):
                if entry.id in old_path:
                    common = entry.id
            cur = self.by_id.get(old)
            seen: set[str] = set()
            while cur is not None and cur.id != common and cur.id not in seen:
                seen.add(cur.id)
                to_summarize.append(cur.id)
                cur = self.by_id.get(cur.parent_id) if cur.parent_id is not None else None
            to_summarize.reverse()
        editor: str | None = None
        new_leaf: str | None
        skill = kind.skill_prompt_selected and target.type == "custom_message" and target.get("customType") == "skill-prompt"
        if is_user or (target.type == "custom_message" and not skill):
            new_leaf = target.parent_id
            content = (target.message or {}).get("content") if target.type == "message" else target.get("content")
            editor = text_of_content(content)
        else:
            new_leaf = target_id
        summary_entry = None
        if summary is not None and to_summarize:
            record = self.summary_record(new_leaf, summary, details)
            summary_entry = {"type": "branch_summary", "id": self.mint_id(), "parentId": new_leaf, **record}
        return NavigationResult(
            target_id=target_id, old_leaf_id=old, no_op=False, common_ancestor_id=common,
            entries_to_summarize=tuple(to_summarize), new_leaf_id=new_leaf, editor_text=editor,
            summary_entry=summary_entry,
        )

    def apply_navigation(self, result: NavigationResult) -> None:
        """Move the in-memory leaf as the agent would (and append the summary entry, in memory only)."""
        if result.no_op:
            return
        self.leaf_id = result.new_leaf_id
        if result.summary_entry is not None:
            self.append(result.summary_entry)

"""The Tree tab's detail pane: the selected entry, the conversation at that leaf, its raw JSON and the
open file's problems, as four tabs beside the branch graph.

The Entry tab also links subagents (``sessions.subagents``): a task tool's result lists buttons that open
the subagents' session files, and a subagent's session shows a button back to the session that started
it. The buttons are widgets (not links in the HTML) so that they set the app's session in place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import panel as pn
from panel.viewable import Viewer

from workbench.errors import WorkbenchError
from workbench.sessions import SubagentLink, answered_call, branch_usage, entry_links, parent_file
from workbench.ui.background import Background
from workbench.ui.entry_html import conversation_html, entry_html, esc, raw_json_html, tool_call_html
from workbench.ui.late_models import acknowledge_joins
from workbench.ui.notify import notify, reporting
from workbench.ui.session_doc import SessionDoc
from workbench.ui.theme import theme_sheets
from workbench.ui.tree_problems import ProblemsPanel

CONVERSATION_TAIL = 200  # messages drawn in "Conversation at this leaf" (the rest are counted)
_PROBLEMS = 3  # the Problems tab's position


def conversation_tail_html(doc: SessionDoc, leaf: str) -> str:
    """What the model would see with ``leaf`` as the leaf: a count, then the last messages."""
    messages = doc.context(leaf).messages
    head = (f'<div class="wb-kv">{len(messages):,} message(s) the model would see with <b>{esc(leaf)}</b> '
            "as the leaf</div>")
    if len(messages) > CONVERSATION_TAIL:
        head += (f'<div class="wb-muted">… {len(messages) - CONVERSATION_TAIL:,} earlier message(s) not drawn; '
                 f"the last {CONVERSATION_TAIL} follow</div>")
        messages = messages[-CONVERSATION_TAIL:]
    return head + conversation_html(messages)


def nan_note(doc: SessionDoc, entry: Any) -> str:
    """Why a compaction row reads ``NaNk tokens``: the row keeps the agent's own text."""
    if entry.type != "compaction" or "NaNk tokens" not in doc.display_text(entry.id):
        return ""
    return ('<div class="wb-muted wb-nan-note">The row reads "NaNk tokens" as the agent shows it: this '
            "compaction has no number in <code>tokensBefore</code>, so its size is not known.</div>")


def answered_call_html(doc: SessionDoc, entry: Any) -> str:
    """For a tool result: the call it answers (omp 18 shows the two as one row), with an edit's diff."""
    found = answered_call(doc.session.by_id, entry)
    if found is None:
        return ""
    call_entry, block = found
    return (f'<div class="wb-card wb-answered-call"><div class="wb-kv">the call this result answers (entry '
            f"<b>{esc(call_entry.id)}</b>, line <b>{call_entry.line}</b>)</div>{tool_call_html(block)}</div>")


def _tokens_html(messages: int, tokens: Mapping[str, float], cost: float) -> str:
    return (f"{messages} assistant message(s) · input {int(tokens['input']):,} · output {int(tokens['output']):,}"
            f" · cache read {int(tokens['cacheRead']):,} · cache write {int(tokens['cacheWrite']):,}"
            f" · total {int(tokens['totalTokens']):,} · cost ${cost:.4f}")


def branch_usage_html(doc: SessionDoc, leaf: str) -> str:
    """Tokens and cost of the assistant messages from the root to ``leaf`` (this branch only, not the
    file: the timeline's totals sum every branch), with the subagents started on the branch rolled up and
    each shown apart (``sessions.usage.branch_usage``)."""
    usage = branch_usage(doc.session, leaf)
    if not usage.messages:
        return '<div class="wb-muted">Usage on this branch: no assistant message up to here.</div>'
    judged = sum(j.calls for j in usage.judge)
    judge = f" · {judged} TTSR judge call(s) ${sum(j.cost for j in usage.judge):.4f} apart" if judged else ""
    rolled = " (subagents included)" if usage.children else ""
    lines = [f"Usage on this branch{rolled}: {_tokens_html(usage.messages, usage.tokens, usage.cost)}{judge}"]
    if usage.children:
        own = usage.own
        lines.append(f"this session alone: {_tokens_html(own.messages, own.tokens, own.cost)}")
        for child in usage.children:
            who = (child.agent_id or Path(child.path).stem) + (f" ({child.agent})" if child.agent else "")
            part = child.usage
            lines.append(f"subagent {who}: {_tokens_html(part.messages, part.tokens, part.cost)}")
    if usage.missing:
        lines.append(f"{len(usage.missing)} subagent(s) named on this branch have no file on disk (not counted): "
                     + ", ".join(_who(link) for link in usage.missing))
    return ('<div class="wb-kv wb-branch-usage">'
            + "".join(f'<div class="wb-usage-line">{esc(line)}</div>' for line in lines) + "</div>")


def _who(link: SubagentLink) -> str:
    return link.agent_id + (f" ({link.agent})" if link.agent else "")


class TreeDetail(Viewer):
    """Entry, conversation, raw JSON and problems of the tree's selection; ``on_problem_picked`` hears a
    click in the problems' table (the clicked ``Diagnostic``)."""

    def __init__(self, bg: Background, on_problem_picked: Callable[[Any], None],
                 on_open: Callable[[str], None] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self.bg = bg
        self.on_open = on_open  # opens a session file in the app (a subagent's, or its parent's)
        self._parent_of: tuple[Any, Path | None] = (None, None)  # (session, its parent's file)
        self._links_shown: list[tuple[str, str, tuple[tuple[str, Path], ...]]] = []  # what ``links`` holds
        # the buttons join the page late: acknowledged on arrival, so their first click names them by id
        self.links = acknowledge_joins(pn.Column(sizing_mode="stretch_width", margin=(0, 10), css_classes=["wb-subagent-links"]))
        # The branch's usage and conversation wait while either is set (``build_branch_views`` runs
        # them): ``deferred`` for the page's first render (an inline load), ``held`` while the tree's
        # search index is built (seconds of CPU on a long branch, shared with the search typed as the
        # session opened: docs/large-sessions.md).
        self.deferred = False
        self.held = False
        self._context_for = ""
        self._card = ""  # the entry's card without its usage (drawn again once the usage is counted)
        self.entry = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width", css_classes=["wb-entry-pane"])
        self.conversation = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width")
        self.raw = pn.pane.HTML("", stylesheets=theme_sheets(), sizing_mode="stretch_width")
        self.problems = ProblemsPanel(on_pick=on_problem_picked)
        # the problems' table (a Tabulator) joins the page when its tab is first opened: hidden, it
        # was the heaviest model of the tree's first document; once shown it stays (see app.build_page).
        # Joining late, its first click would carry the whole table back to the server: the browser
        # acknowledges it on arrival instead (late_models)
        self._problems_tab = acknowledge_joins(pn.Column(sizing_mode="stretch_both", margin=0))
        self._problems_title = "Problems"
        self.tabs = pn.Tabs(("Entry", pn.Column(self.links, self.entry, scroll=True, sizing_mode="stretch_both")),
                            ("Conversation at this leaf", pn.Column(self.conversation, scroll=True, sizing_mode="stretch_both")),
                            ("Raw JSON", pn.Column(self.raw, scroll=True, sizing_mode="stretch_both")),
                            ("Problems", self._problems_tab),
                            sizing_mode="stretch_both", min_height=300)
        self.tabs.param.watch(self._on_tab, "active")

    def clear(self) -> None:
        self.entry.object = self.conversation.object = self.raw.object = ""
        self._set_no_links()

    def show_problems(self, doc: SessionDoc | None) -> None:
        """List ``doc``'s bad lines; the tab's title counts them."""
        self.problems.show(doc)
        found = len(doc.session.diagnostics) if doc is not None else 0
        title = f"Problems ({found})" if found else "Problems"
        if title != self._problems_title:
            self._problems_title = title
            self.tabs[_PROBLEMS] = (title, self._problems_tab)

    def show(self, doc: SessionDoc | None, leaf: str) -> Any:
        """Show the entry ``leaf`` of ``doc``; returns that entry, or None when there is none."""
        entry = doc.entry(leaf) if doc is not None and leaf else None
        if doc is None or entry is None:
            self.entry.object = '<div class="wb-muted">Select an entry in the list or the graph.</div>'
            self.conversation.object = self.raw.object = ""
            self._set_no_links()
            return None
        try:  # a big session's tool result is read back from its file here, which may have changed
            self.show_links(doc, entry)
            card = (entry_html(entry.obj, label=doc.label(entry.id), line=entry.line, on_active_path=entry.id in doc.active_ids())
                    + answered_call_html(doc, entry) + nan_note(doc, entry))
            self.raw.object = raw_json_html(entry.raw)
        except WorkbenchError as exc:
            notify(f"Show entry {entry.id}: {exc}", "error")
            self.entry.object = f'<div class="wb-muted">Cannot show this entry: {esc(str(exc))}</div>'
            self.conversation.object = self.raw.object = ""
            return None
        # the context of a leaf deep in a long session is tens of thousands of messages, and the usage
        # walks the whole branch and its subagents' files (0.3 s on 100,000 entries, which held the page's
        # thread while the keys typed as it opened waited): both on their own lane, the newest selection
        # wins, only the conversation's tail is drawn
        self._context_for, self._card = entry.id, card
        self.entry.object = card + '<div class="wb-muted wb-branch-usage-pending">Usage on this branch: counting…</div>'
        self.conversation.object = '<div class="wb-muted">Building the conversation at this leaf…</div>'
        if not (self.deferred or self.held):
            self.build_branch_views(doc)
        return entry

    def _parent(self, doc: SessionDoc) -> Path | None:
        session, parent = self._parent_of
        if session is not doc.session:  # header-only reads, once per loaded file
            parent = parent_file(doc.session)
            self._parent_of = (doc.session, parent)
        return parent

    def _open_button(self, label: str, path: Path, css: str) -> pn.widgets.Button:
        button = pn.widgets.Button(label=label, color="primary", css_classes=[css], margin=(2, 6, 4, 0),
                                   width=min(40 + 7 * len(label), 480))

        def click(*_: Any) -> None:
            with reporting("Open session"):
                if self.on_open is not None:
                    self.on_open(str(path))
        button.on_click(click)
        return button

    def _set_no_links(self) -> None:
        self._links_shown = []
        self.links.objects = []

    def show_links(self, doc: SessionDoc, entry: Any) -> None:
        """The subagents ``entry`` names (buttons that open them) and, in a subagent's session, the way back."""
        # each row as (its note's HTML, its buttons' class, their labels and files): widgets below
        shown: list[tuple[str, str, tuple[tuple[str, Path], ...]]] = []
        back = doc.session.header.get("parentSession")
        if isinstance(back, str) and back:
            parent = self._parent(doc)
            # the agent writes parentSession for a subagent (its file starts with session_init) and for a fork
            sub = any(e.type == "session_init" for e in doc.session.entries[:8])
            said = "A subagent's session: started by" if sub else "Forked from"
            note = (f'<div class="wb-subagents wb-parent-note">{said} <b>{esc(Path(back).name)}</b>'
                    + ("" if parent else " (that file is not found next to this one)") + "</div>")
            shown.append((note, "wb-open-parent", ((f"↑ Open parent session {parent.name}", parent),) if parent else ()))
        links = entry_links(doc.session, entry)
        if links:
            missing = [link for link in links if link.path is None]
            said = "; ".join(esc(f"{_who(link)}: {link.description}") for link in links if link.description)
            text = (f"{len(links)} subagent(s) ran in this task" + (f" ({said})" if said else "")
                    + (f"; {len(missing)} file(s) not found: " + ", ".join(esc(_who(m)) for m in missing) if missing else ""))
            shown.append((f'<div class="wb-subagents wb-child-note">{text}</div>', "wb-open-child",
                          tuple((f"↓ Open subagent {_who(link)}", link.path) for link in links if link.path is not None)))
        # the same links again (the entry drawn once more, a live session read again) keep their
        # widgets: the browser is not made to replace a button under a click already on its way
        if shown == self._links_shown:
            return
        self._links_shown = shown
        rows: list[Any] = []
        for note, css, buttons in shown:
            rows.append(pn.pane.HTML(note, stylesheets=theme_sheets(), sizing_mode="stretch_width", margin=0))
            if buttons:
                rows.append(pn.FlexBox(*[self._open_button(label, path, css) for label, path in buttons],
                                       margin=0, sizing_mode="stretch_width"))
        self.links.objects = rows

    def build_branch_views(self, doc: SessionDoc | None) -> None:
        """Count the shown entry's branch usage and build its conversation, on the context lane."""
        eid, card = self._context_for, self._card
        if doc is None or not eid:
            return
        self.bg.submit(lambda task: branch_usage_html(doc, eid), what="Usage on this branch", lane="context",
                       done=lambda html: setattr(self.entry, "object", card + html) if self._context_for == eid else None)
        self.bg.submit(lambda task: conversation_tail_html(doc, eid), what="Conversation", lane="context",
                       done=lambda html: setattr(self.conversation, "object", html) if self._context_for == eid else None)

    def release(self, doc: SessionDoc | None, *, deferred: bool = False, held: bool = False) -> None:
        """End a wait (``deferred`` and/or ``held``); the branch views follow once neither is left."""
        waiting = self.deferred or self.held
        self.deferred = self.deferred and not deferred
        self.held = self.held and not held
        if waiting and not (self.deferred or self.held):
            self.build_branch_views(doc)

    def show_entry_tab(self) -> None:
        self.tabs.active = 0

    def _on_tab(self, event: Any) -> None:
        if event.new == _PROBLEMS and not self._problems_tab.objects:
            self._problems_tab.objects = [self.problems]

    def __panel__(self) -> pn.viewable.Viewable:
        return self.tabs

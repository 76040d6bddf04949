"""The export's other formats: Markdown of the conversation at a leaf (tool calls folded, for pasting
into tickets) and JSON of the entries on the path from the root to the leaf, as they stand in the file."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

from workbench.edits import FileDiff, edit_diff
from workbench.replay.stream import thaw
from workbench.sessions import Session, branch_path, build_session_context, image_part, resolve_flavor

FORMATS = ("html", "md", "json")


def _leaf(session: Session, leaf: str | None) -> str | None:
    return leaf if leaf is not None else (session.entries[-1].id if session.entries else None)


def path_json(session: Session, leaf: str | None = None) -> dict[str, Any]:
    """``{"session", "leafId", "entries"}``: the records root→leaf as written (an export is evidence)."""
    entries = branch_path(session.by_id, _leaf(session, leaf))
    return {"session": dict(thaw(dict(session.header))), "leafId": entries[-1].id if entries else None,
            "entries": [thaw(dict(e.raw)) for e in entries]}


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)  # a fence longer than any run inside cannot be closed by the text
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") for b in content or () if isinstance(b, Mapping) and b.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str))


def _folded(summary: str, body: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>\n\n{body}\n\n</details>"


def _diff_md(f: FileDiff) -> str:
    """One file of an edit as a ``diff`` fence under its path (the note when the old lines are not known)."""
    where = f"`{f.path}`" + (f" → `{f.to}`" if f.to else "")
    head = f"**{html.escape(where)}** ({f.change}, +{f.added} −{f.removed})"
    note = f"\n\n*{html.escape(f.note)}*" if f.note else ""
    return f"{head}{note}\n\n{_fence(f.text(), 'diff')}" if f.lines else f"{head}{note}"


def _image_md(block: Mapping[str, Any]) -> str:
    shown = image_part(block)
    what = f"{shown.mime}, {shown.size:,} bytes" if shown.shown else str(shown.note)
    return f"*(image not included in Markdown: {html.escape(what)})*"


def _message_md(msg: Mapping[str, Any]) -> str:
    role = str(msg.get("role", "?"))
    if role == "toolResult":
        title = f"result of {msg.get('toolName', 'tool')}" + (" (error)" if msg.get("isError") else "")
        content = msg.get("content")
        images = [_image_md(b) for b in content if isinstance(b, Mapping) and b.get("type") == "image"] \
            if isinstance(content, list) else []
        return _folded(title, "\n\n".join([_fence(_text(content)), *images]))
    if role == "bashExecution":
        return _folded(f"bash: {msg.get('command', '')}", _fence(str(msg.get("output", ""))))
    if role in ("compactionSummary", "branchSummary"):
        # the summary stands in for everything before it: the model reads it, so the ticket shows it
        # (folded: it is long, and it is the agent's words, not the conversation's)
        what = "compaction summary" if role == "compactionSummary" else "summary of the branch left"
        return f"### {role}\n\n" + _folded(what, _fence(str(msg.get("summary") or "")))
    head = f"### {role}" + (f" ({html.escape(str(msg['model']))})" if role == "assistant" and msg.get("model") else "")
    out = [head]
    content = msg.get("content")
    for block in [content] if isinstance(content, str) else content or ():
        if isinstance(block, str):
            out.append(html.escape(block))
        elif isinstance(block, Mapping) and block.get("type") == "text":
            out.append(html.escape(str(block.get("text", ""))))
        elif isinstance(block, Mapping) and block.get("type") == "thinking":
            out.append(_folded("thinking", _fence(str(block.get("thinking", "")))))
        elif isinstance(block, Mapping) and block.get("type") == "toolCall":
            args = json.dumps(thaw(block.get("arguments")), ensure_ascii=False, indent=2)
            out.append(_folded(f"tool call: {block.get('name', '?')}", _fence(args, "json")))
            name = block.get("name")
            diff = edit_diff(name if isinstance(name, str) else None, thaw(block.get("arguments")))
            if diff is not None:
                out.extend(_diff_md(f) for f in diff.files)
        elif isinstance(block, Mapping) and block.get("type") == "image":
            out.append(_image_md(block))
    return "\n\n".join(out)


def conversation_markdown(session: Session, leaf: str | None = None, *, flavor: str = "auto") -> str:
    """The conversation the model sees at ``leaf`` as Markdown, read with the file's one flavour decision
    (``auto`` detects it, as every command does); text is HTML-escaped (trackers render it)."""
    ctx = build_session_context(session, _leaf(session, leaf), flavor=resolve_flavor(flavor, session))
    title = session.title or session.id
    lines = [f"# {html.escape(title)}", f"*session {html.escape(session.id)} · leaf {ctx.leaf_id} · "
             f"{len(ctx.messages)} message(s)*"]
    lines += [_message_md(m) for m in ctx.messages if isinstance(m, Mapping)]
    return "\n\n".join(lines) + "\n"

"""HTML for entries and conversations. Everything from a session file is escaped here.

Sessions hold whatever the agent read or wrote: HTML, ``<script>`` tags, event-handler attributes.
Every string that came from a file passes through ``esc`` (``html.escape`` with quotes) before it is
placed in markup, so it shows as text and never runs. Images are shown only as ``data:`` URLs of
an allow-listed image type built from base64 we re-encode, size-capped, never as a URL taken from the
file (``sessions.image_part``). Edit and write calls show as a diff of the file's lines (``edits.edit_diff``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.edits import EditDiff, edit_diff
from workbench.sessions import image_part

STYLESHEET = (Path(__file__).with_name("theme.css")).read_text(encoding="utf-8")

_MAX_BLOCK_CHARS = 20_000


def esc(value: Any) -> str:
    """Escape any value for HTML text or attribute context."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def money(value: float) -> str:
    """A cost as the Sessions and Usage views write it."""
    return f"${value:,.4f}" if value < 100 else f"${value:,.2f}"


#: Tabulator's formatter for a cost column, in the same precision as ``money``.
MONEY_FORMAT = {"type": "money", "symbol": "$", "precision": 4, "thousand": ","}


def clip(text: str, limit: int = _MAX_BLOCK_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def pre(text: Any, cls: str = "wb-pre") -> str:
    return f'<div class="{cls}">{esc(clip(text if isinstance(text, str) else json.dumps(text, indent=2, ensure_ascii=False)))}</div>'


def image_html(block: Mapping[str, Any]) -> str:
    """An image part drawn from its own base64 as a ``data:`` URI, or a note saying why it is not (the rule:
    ``sessions.image_part``; the URI is ours, rebuilt from the decoded bytes, and escaped all the same)."""
    shown = image_part(block)
    if shown.src is None:
        return f'<div class="wb-block wb-block-image wb-muted wb-image-note">[{esc(shown.note)}]</div>'
    return (f'<div class="wb-block wb-block-image"><img class="wb-image" alt="{esc(shown.mime)} image, '
            f'{shown.size:,} bytes" src="{esc(shown.src)}"><div class="wb-kv">{esc(shown.mime)} · '
            f"{shown.size:,} bytes</div></div>")


_CHANGE_WORDS = {"edit": "edited", "add": "new file", "delete": "deleted", "move": "moved", "write": "written whole"}
_SIGNS = {"removed": "-", "added": "+", "context": " ", "hunk": ""}
_DIFF_ROWS = 2_000  # rows drawn per file; the rest are counted


def diff_html(diff: EditDiff) -> str:
    """What an edit or write call did: per file its path, the change and the removed/added lines."""
    parts = []
    for f in diff.files:
        where = esc(f.path) + (f" → {esc(f.to)}" if f.to else "")
        head = (f'<div class="wb-diff-head"><b class="wb-diff-path">{where}</b> <span class="wb-tag">'
                f'{esc(_CHANGE_WORDS[f.change])}</span> <span class="wb-diff-count"><span class="wb-diff-plus">'
                f'+{f.added}</span> <span class="wb-diff-minus">−{f.removed}</span></span></div>')
        note = f'<div class="wb-kv wb-diff-note">{esc(f.note)}</div>' if f.note else ""
        rows = [f'<div class="wb-diff-row wb-diff-{line.kind}"><span class="wb-diff-sign">{_SIGNS[line.kind]}</span>'
                f"{esc(line.text) or '&nbsp;'}</div>" for line in f.lines[:_DIFF_ROWS]]
        if len(f.lines) > _DIFF_ROWS:
            rows.append(f'<div class="wb-muted">… {len(f.lines) - _DIFF_ROWS:,} more row(s)</div>')
        if not f.lines:
            rows.append('<div class="wb-muted">(no lines: the call changes the file as a whole)</div>'
                        if f.change in ("delete", "move") else '<div class="wb-muted">(no lines yet)</div>')
        parts.append(f'<div class="wb-diff-file">{head}{note}<div class="wb-diff-body">{"".join(rows)}</div></div>')
    mode = f" · read as {esc(diff.mode)}" if diff.mode else ""
    if not parts:
        parts.append('<div class="wb-muted">(the call names no file yet)</div>')
    return f'<div class="wb-diff"><div class="wb-kv">what the call does to the files{mode}</div>{"".join(parts)}</div>'


def tool_call_html(block: Mapping[str, Any]) -> str:
    """A tool call: its name and id, the diff of an edit or write call, then the arguments (folded under
    a diff, which says the same more readably)."""
    args = block.get("arguments")
    name = block.get("name")
    diff = edit_diff(name if isinstance(name, str) else None, args)
    head = f'<span class="wb-kv">tool call <b>{esc(name if name is not None else "?")}</b> id {esc(block.get("id", ""))}</span>'
    shown = pre(args if args is not None else {})
    if diff is not None:
        shown = f'{diff_html(diff)}<details class="wb-args"><summary class="wb-kv">arguments</summary>{shown}</details>'
    return f'<div class="wb-block wb-block-toolcall">{head}{shown}</div>'


def content_blocks_html(content: Any) -> str:
    """Every content block of a message: text, thinking, tool calls with arguments, images."""
    if content is None:
        return ""
    if isinstance(content, str):
        return f'<div class="wb-block wb-block-text">{pre(content)}</div>'
    if not isinstance(content, Sequence):
        return f'<div class="wb-block">{pre(content)}</div>'
    parts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            parts.append(f'<div class="wb-block">{pre(block)}</div>')
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(f'<div class="wb-block wb-block-text">{pre(block.get("text", ""))}</div>')
        elif kind in ("thinking", "redactedThinking"):
            body = "(redacted)" if block.get("redacted") or kind == "redactedThinking" else block.get("thinking", "")
            parts.append(f'<div class="wb-block wb-block-thinking"><span class="wb-kv">thinking</span>{pre(body)}</div>')
        elif kind == "toolCall":
            parts.append(tool_call_html(block))
        elif kind == "image":
            parts.append(image_html(block))
        else:
            parts.append(f'<div class="wb-block"><span class="wb-kv">{esc(kind)}</span>{pre(block)}</div>')
    return "".join(parts)


def usage_html(usage: Any) -> str:
    if not isinstance(usage, Mapping):
        return ""
    raw_cost = usage.get("cost")
    cost: Mapping[str, Any] = raw_cost if isinstance(raw_cost, Mapping) else {}
    fields = [("input", usage.get("input")), ("output", usage.get("output")), ("cache read", usage.get("cacheRead")),
              ("cache write", usage.get("cacheWrite")), ("total tokens", usage.get("totalTokens"))]
    bits = [f"{esc(k)} <b>{esc(v)}</b>" for k, v in fields if v is not None]
    if cost.get("total") is not None:
        bits.append(f"cost <b>${esc(cost.get('total'))}</b>")
    return f'<div class="wb-kv">usage: {" · ".join(bits)}</div>' if bits else ""


def message_html(msg: Mapping[str, Any]) -> str:
    role = msg.get("role", "?")
    head = [f'<span class="wb-role">{esc(role)}</span>']
    for key in ("provider", "model", "stopReason", "toolName", "customType"):
        if msg.get(key) is not None:
            head.append(f'<span class="wb-kv">{esc(key)} <b>{esc(msg.get(key))}</b></span>')
    if msg.get("isError"):
        head.append('<span class="wb-tag wb-tag-trigger">error</span>')
    body = content_blocks_html(msg.get("content"))
    if role == "bashExecution":
        body = pre(f"$ {msg.get('command', '')}\n{msg.get('output', '')}\n(exit {msg.get('exitCode')})")
    elif role in ("branchSummary", "compactionSummary"):
        body = pre(msg.get("summary", ""))
    if msg.get("errorMessage"):
        body += f'<div class="wb-kv">error: {esc(msg.get("errorMessage"))}</div>'
    return f'<div class="wb-msg">{" ".join(head)}{body}{usage_html(msg.get("usage"))}</div>'


def entry_html(raw: Mapping[str, Any], *, label: str | None = None, line: int | None = None,
               on_active_path: bool = False) -> str:
    """One entry in full: header facts, all content blocks, tool calls, usage."""
    kind = raw.get("type", "?")
    tags = [f'<span class="wb-tag">{esc(kind)}</span>']
    if on_active_path:
        tags.append('<span class="wb-tag wb-tag-active">active path</span>')
    if label:
        tags.append(f'<span class="wb-tag">[{esc(label)}]</span>')
    facts = [f"id <b>{esc(raw.get('id'))}</b>", f"parent <b>{esc(raw.get('parentId'))}</b>"]
    if raw.get("timestamp") is not None:
        facts.append(f"time <b>{esc(raw.get('timestamp'))}</b>")
    if line is not None:
        facts.append(f"line <b>{line}</b>")
    msg = raw.get("message")
    if kind == "message" and isinstance(msg, Mapping):
        body = message_html(msg)
    else:
        shown = {k: v for k, v in raw.items() if k not in ("type", "id", "parentId", "timestamp")}
        body = pre(shown) if shown else '<div class="wb-muted">(no fields)</div>'
    return (f'<div class="wb-card wb-entry">{" ".join(tags)}<div class="wb-kv">{" · ".join(facts)}</div>'
            f"{body}</div>")


def conversation_html(messages: Iterable[Mapping[str, Any]], *, highlight_interrupts: bool = True) -> str:
    """The messages the model would see, in order."""
    parts = []
    for msg in messages:
        if not isinstance(msg, Mapping):
            parts.append(pre(msg))
            continue
        item = message_html(msg)
        text = json.dumps(msg.get("content", ""), ensure_ascii=False)
        if highlight_interrupts and "system-interrupt" in text:
            item = item.replace('class="wb-msg"', 'class="wb-msg wb-msg-interrupt"', 1)
        parts.append(item)
    return "".join(parts) or '<div class="wb-muted">(no messages)</div>'


def raw_json_html(raw: Mapping[str, Any]) -> str:
    return pre(json.dumps(raw, indent=2, ensure_ascii=False))


def table_html(headers: Sequence[str], rows: Iterable[Sequence[Any]], row_classes: Iterable[str] | None = None,
               raw_cols: frozenset[int] = frozenset()) -> str:
    """A small HTML table; every cell escaped unless its column index is in ``raw_cols`` (our own markup)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    classes = list(row_classes) if row_classes is not None else None
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{esc(classes[i])}"' if classes and classes[i] else ""
        cells = "".join(f"<td>{cell if j in raw_cols else esc(cell)}</td>" for j, cell in enumerate(row))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f'<table class="wb-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


Span = tuple[int, int] | tuple[int, int, str]  # [start, end) and, optionally, the mark's CSS class


def highlight_spans(text: str, spans: Iterable[Span]) -> str:
    """Escape ``text`` and wrap [start, end) spans in ``<mark>``; a span may carry a CSS class third.

    Overlapping spans are merged into the earlier one (a mark cannot half-overlap another).
    """
    out: list[str] = []
    pos = 0
    norm = sorted((max(0, sp[0]), min(len(text), sp[1]), sp[2] if len(sp) == 3 else "wb-match") for sp in spans)
    for start, end, cls in norm:
        if end <= pos or start >= end:
            continue
        start = max(start, pos)
        out.append(esc(text[pos:start]))
        out.append(f'<mark class="{esc(cls)}">{esc(text[start:end])}</mark>')
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


# Button groups (tree filter, retry context): the selected button is filled in the accent colour, so
# which one is on reads at a glance (Panel's "light" buttons only shade it slightly).
ACTIVE_BUTTON = ".bk-btn.bk-active { background: #1f6feb; color: #fff; border-color: #1f6feb; font-weight: 600; }"


# the colours of ``unified_diff_html`` (the Playground's "keep as example" and the Drafts tab's save)
DIFF_CSS = """
.wb-diff { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--wb-mono); font-size: 12px; overflow: auto;
           max-height: 260px; }  /* long lines wrap: with "pre" they ran past the pane's edge, cut off */
.wb-diff .add { background: #dafbe1; } .wb-diff .del { background: #ffebe9; }
"""


def unified_diff_html(diff: str) -> str:
    """A unified diff of a file with added and removed lines coloured (escaped; ``DIFF_CSS``)."""
    rows = []
    for line in diff.splitlines():
        cls = "add" if line.startswith("+") and not line.startswith("+++") else \
            "del" if line.startswith("-") and not line.startswith("---") else ""
        rows.append(f'<div class="{cls}">{esc(line) or "&nbsp;"}</div>')
    return f'<div class="wb-diff">{"".join(rows)}</div>'

"""HTML for entries and conversations. Everything from a session file is escaped here.

Sessions hold whatever the agent read or wrote: HTML, ``<script>`` tags, event-handler attributes.
Every string that came from a file passes through ``esc`` (``html.escape`` with quotes) before it is
placed in markup, so it shows as text and never runs. Images are shown only as ``data:`` URLs of
an allow-listed image type built from base64 we re-encode, never as a URL taken from the file.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

STYLESHEET = (Path(__file__).with_name("theme.css")).read_text(encoding="utf-8")

_IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_MAX_BLOCK_CHARS = 20_000


def esc(value: Any) -> str:
    """Escape any value for HTML text or attribute context."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def clip(text: str, limit: int = _MAX_BLOCK_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def pre(text: Any, cls: str = "wb-pre") -> str:
    return f'<div class="{cls}">{esc(clip(text if isinstance(text, str) else json.dumps(text, indent=2, ensure_ascii=False)))}</div>'


def image_html(block: Mapping[str, Any]) -> str:
    mime = block.get("mimeType")
    data = block.get("data")
    if mime not in _IMAGE_TYPES or not isinstance(data, str):
        return '<div class="wb-block wb-block-image wb-muted">[image: unsupported or missing data]</div>'
    try:
        clean = base64.b64encode(base64.b64decode(data, validate=True)).decode("ascii")
    except (binascii.Error, ValueError):
        return '<div class="wb-block wb-block-image wb-muted">[image: invalid base64]</div>'
    return (f'<div class="wb-block wb-block-image"><img alt="image" style="max-width:240px;max-height:160px" '
            f'src="data:{mime};base64,{clean}"></div>')


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
            args = block.get("arguments")
            parts.append(
                f'<div class="wb-block wb-block-toolcall"><span class="wb-kv">tool call <b>{esc(block.get("name", "?"))}</b>'
                f' id {esc(block.get("id", ""))}</span>{pre(args if args is not None else {})}</div>'
            )
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

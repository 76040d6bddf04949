"""Search-all snippets: the words around the match, cut at word boundaries, the match highlighted.

The text comes from session files, so every piece is escaped; only the ``<mark>`` around the match
and the ``…`` at a cut are the app's own markup.
"""

from __future__ import annotations

from workbench.ui.entry_html import esc

WIDTH = 140  # characters of context shown around the match, at most


def snippet_html(text: str, query: str, width: int = WIDTH) -> str:
    """``text`` reduced to about ``width`` characters around the first match of ``query`` (case-insensitive)."""
    flat = " ".join(str(text).split())
    needle = " ".join(query.split())
    at = flat.lower().find(needle.lower()) if needle else -1
    if at < 0:  # the store matched words, not the whole query: show the start, cut at a word
        return esc(_cut_end(flat, width))
    end = at + len(needle)
    room = max(0, width - len(needle))
    lo, hi = max(0, at - room // 2), min(len(flat), end + room - room // 2)
    if lo > 0:  # start at the next word, never inside one
        space = flat.find(" ", lo)
        lo = space + 1 if 0 <= space < at else lo
    if hi < len(flat):
        space = flat.rfind(" ", end, hi)
        hi = space if space >= end else hi
    head = "… " if lo > 0 else ""
    tail = " …" if hi < len(flat) else ""
    return f"{head}{esc(flat[lo:at])}<mark>{esc(flat[at:end])}</mark>{esc(flat[end:hi])}{tail}"


def _cut_end(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    return text[: cut if cut > 0 else width] + " …"

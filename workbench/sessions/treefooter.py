"""What the `/tree` selector prints around its rows, per flavour: the window, footers and empty states.

pi and omp57 end with a counter ``(i/n)`` and the filter tag; omp17 prints the tag on its own line and
three empty states (no entries, no search match, everything filtered); omp18 (pi-tui 18.2.9) prints
the same without the two-space indent and with a counter on the "no entries" state too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.sessions.flattree import FILTER_TAGS

if TYPE_CHECKING:
    from workbench.sessions.treelist import TreeList

# The functions read the list's private state: they are its rendering, kept apart for size.
# ruff: noqa: SLF001


def selector_lines(tl: TreeList) -> list[str]:
    """The rendered selector: the window of rows and the footer / empty state of the flavour."""
    tag = FILTER_TAGS[tl.filter_mode]
    n = len(tl._visible)
    if tl.flavor == "omp18":
        return _lines18(tl, tag, n)
    if tl.flavor != "omp":
        if not n:
            return ["  No entries found", f"  (0/0){tag}"]
        sel = tl.selected_index or 0
        return [r.line for r in tl.window_rows()] + [f"  ({sel + 1}/{n}){tag}"]
    if not n:
        total = tl.total
        if not total:
            return ["  No entries found"]
        if tl._tokens():
            return [f'  No entries match search "{tl.search}"', "  Press Backspace to clear the search",
                    f"  (0/{total}){tag}"]
        return [f"  {total} entries hidden by the current filter {tag.strip() or '[default]'}",
                "  Press Alt+A to show all, Alt+D for default", f"  (0/{total}){tag}"]
    out = [r.line for r in tl.window_rows()]
    if tag:
        out.append("  " + tag.strip())
    return out


def _lines18(tl: TreeList, tag: str, n: int) -> list[str]:
    # pi-tui 18.2.9: the same three empty states as omp17, without the two-space indent and with a
    # counter on the "no entries" state too; the filter tag line likewise has no indent.
    if not n:
        total = tl.total
        if not total:
            return ["No entries found", f"(0/0){tag}"]
        if tl._tokens():
            return [f'No entries match search "{tl.search}"', "Press Backspace to clear the search",
                    f"(0/{total}){tag}"]
        return [f"{total} entries hidden by the current filter {tag.strip() or '[default]'}",
                "Press Alt+A to show all, Alt+D for default", f"(0/{total}){tag}"]
    out = [r.line for r in tl.window_rows()]
    if tag:
        out.append(tag.strip())
    return out

"""Layout of the `/tree` list (docs/flavours.md, "Layout"): indents, connectors, gutters and prefixes.

``layout_forest`` lays out a forest of flat node numbers; ``render_prefix`` draws one row's indent
cells (memoized per shared gutter tuple); ``pi_visible_forest`` re-lays out pi-mono's visible rows.
All iterative: 100k-entry chains are normal.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol


class Layout(NamedTuple):
    """Where one row sits: a plain tuple, because 100k of them are built per flattening."""

    indent: int
    just_branched: bool
    show_connector: bool
    is_last: bool
    gutters: tuple[tuple[int, bool], ...]  # (position, show); shared by siblings, extended per level
    virtual_root_child: bool


def _share_down_chain(kids: list[int] | None, lay: Layout, out: dict[int, Layout],
                      get_kids: Callable[[int], list[int] | None]) -> list[int] | None:
    """Give ``lay`` to every node down a chain of only children; the children where the chain ends."""
    while kids and len(kids) == 1:
        node = kids[0]
        out[node] = lay
        kids = get_kids(node)
    return kids


def layout_forest(roots: list[int], children: Mapping[int, list[int]], active: set[int]) -> dict[int, Layout]:
    """The layout of a forest of flat indices, in display order (iterative: 100k-entry chains are common).

    A node's gutters tuple is built once per parent and shared by all its children, so a long chain
    holds one tuple, and ``render_prefix`` can memoize on it.
    """
    multiple = len(roots) > 1
    out: dict[int, Layout] = {}
    new = tuple.__new__
    ordered = [r for r in roots if r in active] + [r for r in roots if r not in active]
    stack: list[tuple[int, Layout]] = []
    for i in range(len(ordered) - 1, -1, -1):
        stack.append((ordered[i], new(Layout, (1 if multiple else 0, multiple, multiple, i == len(ordered) - 1, (),
                                               multiple))))
    pop = stack.pop
    push = stack.append
    get_kids = children.get
    while stack:
        node, lay = pop()
        out[node] = lay
        kids = get_kids(node)
        if kids and len(kids) == 1 and not lay.just_branched and not lay.show_connector and lay.is_last \
                and not lay.virtual_root_child:
            # A plain chain link: its child's layout is its own (shared), and so on down the chain.
            kids = _share_down_chain(kids, lay, out, get_kids)
        if not kids:
            continue
        indent, just_branched, show_connector, is_last, gutters, vroot = lay
        if len(kids) == 1:
            # The common case (a chain): same indent unless the parent just branched.
            child_indent = indent + 1 if (just_branched and indent > 0) else indent
            if show_connector and not vroot:
                disp = max(0, indent - 1) if multiple else indent
                gutters = gutters + ((max(0, disp - 1), not is_last),)
            if child_indent == indent and not just_branched and not show_connector and is_last and not vroot:
                push((kids[0], lay))  # a chain link: the child's layout equals its parent's, share it
            else:
                push((kids[0], new(Layout, (child_indent, False, False, True, gutters, False))))
            continue
        kids_ordered = [k for k in kids if k in active] + [k for k in kids if k not in active]
        child_indent = indent + 1
        if show_connector and not vroot:
            disp = max(0, indent - 1) if multiple else indent
            gutters = gutters + ((max(0, disp - 1), not is_last),)
        last = len(kids_ordered) - 1
        for i in range(last, -1, -1):
            push((kids_ordered[i], new(Layout, (child_indent, True, True, i == last, gutters, False))))
    return out


def layout_forest18(roots: list[int], children: Mapping[int, list[int]], active: set[int]) -> dict[int, Layout]:
    """pi-tui 18.2.9's TreeView projection, as omp 18.3's `/tree` uses it (tree-view.ts ``projectTree``).

    Roots sit at depth 0; a node's children go one level deeper when there are several of them, or
    when the node is a root of a multi-root session; a chain keeps its depth (no extra step after a
    branch head, unlike omp17). A row draws a connector when it has siblings; each ancestor with
    siblings (session roots excepted) draws its gutter at its depth minus one. The branch holding the
    current leaf comes first, at the roots and at every branch point. Fields reused from ``Layout``:
    ``indent`` = depth, ``show_connector``, ``is_last`` and ``gutters`` ((depth - 1, not last) per
    ancestor with siblings, shared along a chain).
    """
    multiple = len(roots) > 1
    out: dict[int, Layout] = {}
    new = tuple.__new__
    ordered = [r for r in roots if r in active] + [r for r in roots if r not in active]
    stack: list[tuple[int, Layout, bool]] = []
    for i in range(len(ordered) - 1, -1, -1):
        stack.append((ordered[i], new(Layout, (0, False, False, i == len(ordered) - 1, (), False)), True))
    pop = stack.pop
    push = stack.append
    get_kids = children.get
    while stack:
        node, lay, is_root = pop()
        out[node] = lay
        kids = get_kids(node)
        if kids and len(kids) == 1 and not is_root and not lay.show_connector and lay.is_last:
            # A chain link: same depth, no connector, same gutters: its child shares its layout.
            kids = _share_down_chain(kids, lay, out, get_kids)
        if not kids:
            continue
        depth, _, connector, is_last, gutters, _ = lay
        # This row becomes an ancestor of its children: its gutter counts if it has siblings (a
        # connector) and is not a session root of a multi-root session (roots never draw connectors).
        if connector:
            gutters = gutters + ((depth - 1, not is_last),)
        branching = len(kids) > 1
        child_depth = depth + 1 if branching or (multiple and is_root) else depth
        if branching:
            kids = [k for k in kids if k in active] + [k for k in kids if k not in active]
        last = len(kids) - 1
        if not branching and child_depth == depth and not connector and is_last:
            push((kids[0], lay, False))  # a chain link: same depth, no connector, same gutters: share it
            continue
        for i in range(last, -1, -1):
            push((kids[i], new(Layout, (child_depth, False, branching, i == last, gutters, False)), False))
    return out


def render_prefix18(lay: Layout, *, scroll: int, memo: dict[tuple[Any, ...], tuple[str, int, bool]] | None = None,
                    ) -> tuple[str, int, bool]:
    """One row's gutter cells in pi-tui 18.2.9 (``#renderGutter``): ``scroll`` levels cut on the left."""
    key = None
    if memo is not None:
        key = (id(lay.gutters), lay.indent, lay.show_connector, lay.is_last, "omp18", scroll)
        hit = memo.get(key)
        if hit is not None:
            return hit
    offset = min(scroll, lay.indent)
    shown = lay.indent - offset
    gutters: dict[int, bool] = {}
    for pos, show in lay.gutters:
        gutters.setdefault(pos, show)  # the first (outermost) ancestor at a depth wins, like find()
    cells: list[str] = []
    for level in range(shown):
        depth = level + offset
        if depth in gutters:
            cells.append("│  " if gutters[depth] else "   ")
        elif lay.show_connector and level == shown - 1:
            cells.append("└─ " if lay.is_last else "├─ ")
        else:
            cells.append("   ")
    if offset > 0 and cells:
        cells[0] = "…" + cells[0][1:]
    out = ("".join(cells), lay.indent, lay.show_connector)
    if memo is not None and key is not None:
        memo[key] = out
    return out


def window_scroll18(layouts: list[Layout], width: int | None) -> int:
    """The horizontal offset one window of rows shares (a deep window compresses its oldest levels)."""
    if width is None or not layouts:
        return 0
    max_levels = max(1, (width - max(24, width // 2) - 4) // 3)
    return max(0, max(lay.indent for lay in layouts) - max_levels)


def render_prefix(
    lay: Layout, *, multiple_roots: bool, fold_glyph: str | None, width: int | None, anchor: bool = False,
    cap: bool = False, memo: dict[tuple[Any, ...], tuple[str, int, bool]] | None = None,
) -> tuple[str, int, bool]:
    """The indent cells of one row: gutters, its own connector, omp17's chain anchor and width cap.

    ``anchor``: a ``│`` continues under a chain's ``└─`` (omp17); ``cap``: deep indents are cut to
    ``width`` with a leading ``…`` (omp17).

    ``fold_glyph`` (pi only) replaces the connector's middle ``─``: ``⊟`` foldable, ``⊞`` folded.
    Returns (prefix, display indent, whether the row draws a connector). ``memo`` caches prefixes by
    the layout's shared gutter tuple (by identity: the memo must live no longer than the layout), so a
    deep tree costs O(depth) per distinct prefix, not per row.
    """
    key = None
    if memo is not None:
        key = (id(lay.gutters), lay.indent, lay.show_connector, lay.is_last, lay.virtual_root_child,
               multiple_roots, anchor, cap, fold_glyph, width)
        hit = memo.get(key)
        if hit is not None:
            return hit
    disp = max(0, lay.indent - 1) if multiple_roots else lay.indent
    has_conn = lay.show_connector and not lay.virtual_root_child
    gutters = {pos: show for pos, show in lay.gutters}
    anchor_at = -1
    if anchor and not has_conn and lay.gutters and not lay.gutters[-1][1]:
        anchor_at = lay.gutters[-1][0] + 1  # omp17 chain anchor: a "│" continuing under a └─
    cells: list[str] = []
    for level in range(disp):
        if level in gutters:
            cells.append("│  " if gutters[level] else "   ")
        elif has_conn and level == disp - 1:
            cells.append(("└" if lay.is_last else "├") + (fold_glyph or "─") + " ")
        elif level == anchor_at:
            cells.append("│  ")
        else:
            cells.append("   ")
    if width is not None and cap:
        levels = max(1, (width - max(24, width // 2) - 4) // 3)
        if len(cells) > levels:
            cells = cells[len(cells) - levels:]
            cells[0] = "…" + cells[0][1:]
    out = ("".join(cells), disp, has_conn)
    if memo is not None:
        memo[key] = out  # type: ignore[index]
    return out


@dataclass(frozen=True, slots=True)
class VisibleForest:
    """pi-mono's re-laid-out view: visible rows, their visible parents/children and the new layout."""

    visible: list[int]
    vparent: dict[int, int]
    vchildren: dict[int, list[int]]
    roots: list[int]
    layout: dict[int, Layout]


@dataclass(frozen=True, slots=True)
class Segments:
    """The display order cut into chains: runs where each row's parent is the row just above it.

    ``pos_of[n]``: node ``n``'s display position; ``seg_of[k]``: the run holding position ``k``;
    ``start[s]``: the first position of run ``s``; ``above[s]``: the parent of that first row (-1: a
    root). Within a run the rows above a row are its ancestors, nearest last.
    """

    pos_of: list[int]
    seg_of: list[int]
    start: list[int]
    above: list[int]


def display_segments(order: list[int], parent: list[int]) -> Segments:
    pos_of = [0] * len(parent)
    seg_of: list[int] = []
    start: list[int] = []
    above: list[int] = []
    prev = -1
    for k, n in enumerate(order):
        pos_of[n] = k
        p = parent[n]
        if p < 0 or p != prev:
            start.append(k)
            above.append(p)
        seg_of.append(len(start) - 1)
        prev = n
    return Segments(pos_of, seg_of, start, above)


class Flattened(Protocol):
    """What pi's re-layout reads of the flattened tree (``flattree.FlatTree`` is one)."""

    @property
    def unique_ids(self) -> bool: ...
    @property
    def ids(self) -> list[str]: ...
    @property
    def leaf(self) -> str | None: ...
    @property
    def index_of(self) -> Mapping[str, int]: ...
    def segments(self) -> Segments: ...


def pi_visible_forest(flat: Flattened, visible: list[int], folded: frozenset[int]) -> VisibleForest:
    """Rebuild the forest of visible rows (parent = nearest visible ancestor), drop the descendants of
    folded rows, and lay it out again (pi only); rows keep the flattened order.

    This runs at every pi keystroke, so it touches the visible rows and the chains they sit on, not
    every node: within a chain (``Segments``) a visible row's nearest visible ancestor is the visible
    row before it in the same chain; the first one's is found above the chain's head, by bisecting the
    visible positions (memoized per chain). A test holds it equal to walking up the parents.
    """
    segs = flat.segments()
    seg_of, start, above_head = segs.seg_of, segs.start, segs.above
    vpos = list(map(segs.pos_of.__getitem__, visible))  # ascending: visible is in display order
    memo: dict[int, int] = {}

    def above(s: int) -> int:
        """The nearest visible ancestor of chain ``s``'s first row (-1: none)."""
        walked: list[int] = []
        found = -1
        while s not in memo:
            walked.append(s)
            q = above_head[s]
            if q < 0:
                break
            k = segs.pos_of[q]
            s = seg_of[k]
            j = bisect_right(vpos, k) - 1
            if j >= 0 and vpos[j] >= start[s]:  # a visible row at or above q in q's chain
                found = visible[j]
                break
        else:
            found = memo[s]
        for w in walked:
            memo[w] = found
        return found

    vparent: dict[int, int] = {}
    vchildren: dict[int, list[int]] = {}
    roots: list[int] = []
    prev_seg, prev = -1, -1
    for n, s in zip(visible, map(seg_of.__getitem__, vpos)):
        if s == prev_seg:
            # The visible row just before, in the same chain: its parent, and n is its first child
            # (nothing came between them).
            vparent[n] = prev
            vchildren[prev] = [n]
        else:
            anc = above(s)
            if anc < 0:
                roots.append(n)
            else:
                vparent[n] = anc
                kids = vchildren.get(anc)
                if kids is None:
                    vchildren[anc] = [n]
                else:
                    kids.append(n)
        prev_seg, prev = s, n
    children = vchildren
    leaf_rows = _leaf_rows(flat, visible, vpos)
    if folded:
        hidden: set[int] = set()
        for n in visible:
            p = vparent.get(n)
            if p is not None and (p in folded or p in hidden):
                hidden.add(n)
        visible = [n for n in visible if n not in hidden]
        kept = set(visible)
        children = {k: [c for c in v if c in kept] for k, v in vchildren.items() if k in kept and k not in folded}
        roots = [r for r in roots if r in kept]
        leaf_rows = [n for n in leaf_rows if n in kept]
    # containsActive on the visible forest: the (visible) leaf row and its visible ancestors.
    active: set[int] = set()
    for n in leaf_rows:
        cur: int | None = n
        while cur is not None and cur not in active:
            active.add(cur)
            cur = vparent.get(cur)
    return VisibleForest(visible, vparent, vchildren, roots, layout_forest(roots, children, active))


def _leaf_rows(flat: Flattened, visible: list[int], vpos: list[int]) -> list[int]:
    """The visible rows of the leaf's id, in display order (one node per id: a lookup and a bisection
    of the visible positions ``vpos``, not a scan of the rows)."""
    if not flat.unique_ids:
        return [n for n in visible if flat.ids[n] == flat.leaf]
    n = flat.index_of.get(flat.leaf) if flat.leaf is not None else None
    if n is None:
        return []
    j = bisect_left(vpos, flat.segments().pos_of[n])
    return [n] if j < len(visible) and visible[j] == n else []

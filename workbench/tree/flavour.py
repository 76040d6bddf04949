"""What a flavour is: one followed agent version's `/tree` selector, with its file rules, as one object.

``TreeFlavour`` holds everything that differs between the agents' `/tree` selectors: row text, the
word search (normalise, query matcher), path shortening, the layout and its prefixes, which entry
types count as bookkeeping, and the selector's keys and footer. What the version does with the file
itself (names, the context at a leaf, navigation) is its ``session`` (``sessions.flavors.SessionFlavour``),
which the object carries (``flavour.session.context_rules``), so callers hold one object.
The base class is the behaviour most versions share; each followed version has its own module
(``omp17``, ``omp18``, ``pi``, ``omp57``) that overrides only what differs, and ``flavors.REGISTRY``
lists them. Callers ask the object (``flavour.layout(...)``, ``flavour.press(tl, key)``) instead of
comparing flavour names. docs/flavours.md says which quirk each version reproduces.

The selector's keys and footer are written against ``Selector``, the part of ``TreeList``'s public
interface they use, so this module needs nothing from the list that holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, Self, TypeVar

from workbench.sessions.flavors import Flavor, SessionFlavour
from workbench.tree.rowtext import RowRules, display_text, search_text, tool_call_only
from workbench.tree.treelayout import Layout, layout_forest, render_prefix
from workbench.tree.wordfilter import normalize_many, query_matcher, word_query

__all__ = ["SETTINGS_TYPES", "Selector", "TreeFlavour"]

# Entry types the default filter hides as bookkeeping (omp 18.3 knows more, see omp18.py).
SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change"})
# Entry types the older selectors give a row text of their own (others read as an empty row).
ROW_TYPES = frozenset({"message", "custom_message", "compaction", "branch_summary", "model_change",
                       "thinking_level_change", "custom", "label"})

_SIMPLE_KEYS = {"up": "up", "down": "down", "left": "page_up", "right": "page_down", "pageup": "page_up",
                "pagedown": "page_down", "home": "first", "end": "last", "escape": "escape", "backspace": "backspace"}
_FILTER_LETTERS = {"d": "default", "t": "no-tools", "u": "user-only", "l": "labeled-only", "a": "all"}


class Row(Protocol):
    @property
    def line(self) -> str: ...


class Selector(Protocol):
    """What the keys and the footer use of a `/tree` selector state (``TreeList`` is one)."""

    @property
    def search(self) -> str: ...
    @property
    def total(self) -> int: ...
    @property
    def visible_count(self) -> int: ...
    @property
    def selected_index(self) -> int | None: ...
    def search_tokens(self) -> list[str]: ...
    def window_rows(self) -> Sequence[Row]: ...
    def up(self) -> Self: ...
    def down(self) -> Self: ...
    def page_up(self) -> Self: ...
    def page_down(self) -> Self: ...
    def first(self) -> Self: ...
    def last(self) -> Self: ...
    def escape(self) -> Self: ...
    def backspace(self) -> Self: ...
    def close(self) -> Self: ...
    def turn(self, direction: int) -> Self: ...
    def cycle_filter(self, backward: bool = False) -> Self: ...
    def set_filter(self, mode: str) -> Self: ...
    def toggle_filter(self, mode: str) -> Self: ...
    def fold_left(self) -> Self: ...
    def fold_right(self) -> Self: ...
    def type_text(self, text: str) -> Self: ...


S = TypeVar("S", bound=Selector)


class TreeFlavour:
    """One followed reference version. Subclasses set the facts and override the methods that differ."""

    session: ClassVar[SessionFlavour]  # the version's names and file rules (sessions.flavors)

    # -- row facts -----------------------------------------------------------------------------
    row_rules: ClassVar[RowRules] = RowRules()  # the row-text quirks (rowtext.RowRules)
    settings_types: ClassVar[frozenset[str]] = SETTINGS_TYPES  # hidden by the default filter
    known_types: ClassVar[frozenset[str]] = ROW_TYPES  # entry types with a row text of their own

    # -- the selector ---------------------------------------------------------------------------
    word_search: ClassVar[bool] = False  # fuzzy word search (else a lowercase substring per token)
    relays_out_visible: ClassVar[bool] = False  # lay the visible rows out again (and fold them): pi
    keeps_row_index: ClassVar[bool] = False  # a filter change keeps the selected row's index: omp 5.7
    later_duplicate_row_wins: ClassVar[bool] = False  # two rows of one id: the later one is selected
    tool_calls_by_root: ClassVar[bool] = False  # a reused tool-call id: the last root's call wins
    user_rows_by_request: ClassVar[bool] = False  # the user-only filter asks the message, not its role
    ellipsis: ClassVar[bool] = False  # a cut line ends with "…"
    chain_anchor: ClassVar[bool] = False  # a "│" continues under a chain's "└─"
    caps_indent: ClassVar[bool] = False  # deep indents are cut to the width

    def __repr__(self) -> str:
        return f"<flavour {self.name}: {self.session.follows}>"

    @property
    def name(self) -> Flavor:
        """The version's name (its other names, its rules for the file itself: ``session``)."""
        return self.session.name

    # -- row text -------------------------------------------------------------------------------
    def display(self, obj: Mapping[str, Any], *, tool_calls: Mapping[str, Any], home: str | None) -> str:
        """The one-line text of an entry's row."""
        return display_text(obj, rules=self.row_rules, tool_calls=tool_calls, home=home)

    def search_text(self, obj: Mapping[str, Any], label: str | None) -> str:
        """The text a search looks in."""
        return search_text(obj, label, rules=self.row_rules)

    def shorten(self, path: Any, home: str | None) -> str:
        """A tool path with the home directory as ``~``."""
        return self.row_rules.shorten(path, home)

    def hidden_assistant(self, msg: Mapping[str, Any]) -> bool:
        """An assistant message with no row of its own (unless it is the leaf)."""
        return tool_call_only(msg, self.row_rules)

    def user_request(self, obj: Mapping[str, Any]) -> bool:
        """A user prompt: a row the user-only filter shows, an entry navigation rewinds past."""
        return self.session.user_request(obj)

    # -- word search ----------------------------------------------------------------------------
    def normalise_many(self, texts: list[str]) -> list[str]:
        """The search texts as the word search compares them."""
        return normalize_many(texts)

    def query_tokens(self, query: str) -> list[str] | None:
        """A search token's normalised words; None when nothing is left (every row matches)."""
        return word_query(query)

    def query_matcher(self, query: str) -> Callable[[str], bool]:
        """A test of one normalised text for ``query``, compiled once for many rows."""
        return query_matcher(query)

    # -- layout ---------------------------------------------------------------------------------
    def layout(self, roots: list[int], children: Mapping[int, list[int]], active: set[int]) -> dict[int, Layout]:
        return layout_forest(roots, children, active)

    def window_scroll(self, layouts: list[Layout], width: int | None) -> int:
        """The horizontal offset the rows rendered together share (0: none)."""
        return 0

    def prefix(self, lay: Layout, *, multiple_roots: bool, fold_glyph: str | None, width: int | None, scroll: int,
               memo: dict[tuple[Any, ...], tuple[str, int, bool]] | None) -> tuple[str, int, bool]:
        """One row's indent cells: (prefix, display indent, whether it draws a connector)."""
        return render_prefix(lay, multiple_roots=multiple_roots, anchor=self.chain_anchor, cap=self.caps_indent,
                             fold_glyph=fold_glyph, width=width, memo=memo)

    def max_visible(self, height: int) -> int:
        """How many rows the selector shows in a terminal of ``height`` lines."""
        return max(5, height // 2)

    # -- footer ---------------------------------------------------------------------------------
    def selector_lines(self, tl: Selector, tag: str) -> list[str]:
        """The window of rows and the footer / empty state (``tag``: the filter's tag, " [user]")."""
        n = tl.visible_count
        if not n:
            return ["  No entries found", f"  (0/0){tag}"]
        sel = tl.selected_index or 0
        return [r.line for r in tl.window_rows()] + [f"  ({sel + 1}/{n}){tag}"]

    # -- keys -----------------------------------------------------------------------------------
    def press(self, tl: S, key: str) -> S:
        """The state after pressing a named key (conformance names) or typing text; keys the
        flavour does not bind leave the state unchanged."""
        if key in _SIMPLE_KEYS:
            moved: S = getattr(tl, _SIMPLE_KEYS[key])()
            return moved
        bound = self.extra_key(tl, key)
        if bound is not None:
            return bound
        if key == "ctrl+o":
            return tl.cycle_filter()
        if key in ("shift+ctrl+o", "ctrl+shift+o"):
            return tl.cycle_filter(backward=True)
        if key.startswith(("ctrl+", "alt+")) and key[-1] in _FILTER_LETTERS and len(key) in (5, 6):
            return self.filter_key(tl, key.split("+")[0], _FILTER_LETTERS[key[-1]])
        if key in ("ctrl+left", "alt+left"):
            return tl.fold_left()
        if key in ("ctrl+right", "alt+right"):
            return tl.fold_right()
        if key == "ctrl+c":
            return self.interrupt(tl)
        if key in ("enter", "shift+enter", "tab"):
            return tl
        state = tl
        for ch in key:
            if not self.swallows(ch, state.search):
                state = state.type_text(ch)
        return state

    def extra_key(self, tl: S, key: str) -> S | None:
        """A key only this flavour binds (None: not one)."""
        return None

    def filter_key(self, tl: S, modifier: str, mode: str) -> S:
        """``modifier+letter`` of a filter mode: oh-my-pi sets the mode with Alt."""
        return tl.set_filter(mode) if modifier == "alt" else tl

    def interrupt(self, tl: S) -> S:
        """Ctrl+C: oh-my-pi closes the selector."""
        return tl.close()

    def swallows(self, ch: str, search: str) -> bool:
        """A typed character the selector takes for itself (a label editor key) instead of the query."""
        return False

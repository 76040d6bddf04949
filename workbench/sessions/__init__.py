"""pi / oh-my-pi session files: loading, the branch tree, context rebuilding and the `/tree` list.

Public API (other packages code against these names):

* ``load_session(path, *, strict=True) -> Session`` / ``parse_session_text(text, *, path, strict)`` /
  ``parse_session_bytes``: read any session file version read-only; bad lines become ``Diagnostic``s;
  a missing, empty or header-less file raises ``SessionFileError`` (``strict=True``, for the CLI and
  the app) or loads as no entries plus a diagnostic, as the agent loads it (``strict=False``).
* ``FLAVOR_BUTTONS`` / ``flavour_aliases()``: the app's flavour buttons and the other names of flavours,
  from the one registry the CLI choices come from (``REGISTRY``: one ``TreeFlavour`` object per followed
  version; ``flavour(name)`` gives the object of a name or alias).
* ``choose_flavor(name, session) -> FlavorGuess`` (the one decision per file every command and the app
  use) / ``detect_flavor(session)`` / ``resolve_flavor(name, session)`` / ``FLAVOR_CHOICES``:
  which agent's rules a file is read with (``omp`` = omp17, ``omp18``, ``pi``; ``auto`` detects).
* ``session_files(paths) -> list[Path]``: the session files named and under named folders (``*.jsonl``,
  not ``*.stream.jsonl``, hidden folders skipped) — the one rule ingest, backtest and the app follow.
* ``session_info(path) -> SessionInfo``: header-level metadata (id, cwd, title, version, timestamp).
* ``Session``, ``Entry``, ``Diagnostic``, ``NotLoaded``: frozen records of a loaded file.
* ``SessionTree``: leaf, ``get_tree()``, ``get_branch()``, labels, ``navigate()`` → ``NavigationResult``.
* ``build_session_context(session_or_entries, leaf_id=<last>, *, flavor)`` → ``SessionContext``.
* ``TreeList`` / ``TreeRow``: the `/tree` selector as pure state (filters, search, selection, rows);
  ``rows(start, stop)`` renders only a slice (the UI's window); states of one family share caches.
  ``FILTER_MODES`` / ``FILTER_TAGS``: filter mode names and their footer tags.
* ``classic_match`` / ``word_match`` / ``word_match18`` / ``fuzzy_filter``: the fuzzy scorers (classic,
  omp17's word-local one, and pi-tui 18.2.9's).
* ``word_matches(query, norm)`` / ``query_matcher(query)`` / ``normalized_text`` / ``normalize_many``:
  the word scorer's yes/no answer on pre-normalized text, fast enough for every row of a big tree.
* ``usage_totals(entries) -> UsageTotals``: tokens and cost by model, tool calls by tool, errors.
* ``branch_usage(session, leaf=None) -> BranchUsage``: the usage at a leaf, TTSR judge calls apart per rule
  (``JudgeUsage``), subagents' files (``subagent_files``) rolled up (``ChildUsage``).
* ``child_links(session) -> tuple[SubagentLink, ...]`` / ``parent_file(session)``: the subagents a session
  started (named by its task results, found in its artifacts folder) and the way back to the parent.
* ``answered_call(by_id, entry)``: the tool call a tool result answers (omp 18 shows both as one row).
* ``image_part(block) -> ShownImage`` (``MAX_IMAGE_BYTES``): whether and how an image part is drawn.
* ``append_label(path, target_id, label)``: append a label entry to a session file (locked, append-only).
* ``generate_session_text(n)`` / ``time_tree(n)``: the tree-speed figure for ``benchmarks/``.
"""

from __future__ import annotations

from workbench.errors import Diagnostic
from workbench.sessions.calls import answered_call
from workbench.sessions.context import SessionContext, build_session_context
from workbench.sessions.entries import (
    Entry,
    NotLoaded,
    Session,
    parse_timestamp_ms,
    paused_gc,
)
from workbench.sessions.files import (
    STREAM_SUFFIX,
    Progress,
    is_session_name,
    session_files,
)
from workbench.sessions.flavors import (
    FLAVOR_BUTTONS,
    FLAVOR_CHOICES,
    REGISTRY,
    FlavorGuess,
    TreeFlavour,
    choose_flavor,
    detect_flavor,
    flavour,
    flavour_aliases,
    resolve_flavor,
)
from workbench.sessions.forest import TreeNode
from workbench.sessions.fuzzy import FuzzyMatch, classic_match, fuzzy_filter, word_match
from workbench.sessions.fuzzy18 import word_match18
from workbench.sessions.images import MAX_IMAGE_BYTES, ShownImage, image_part
from workbench.sessions.labels import append_label
from workbench.sessions.loader import (
    SessionInfo,
    load_session,
    parse_session_bytes,
    parse_session_text,
    read_record,
    session_info,
)
from workbench.sessions.structure import CURRENT_VERSION, KNOWN_ENTRY_TYPES
from workbench.sessions.subagents import SubagentLink, child_links, entry_links, parent_file, subagent_files
from workbench.sessions.synthetic import (
    generate_session_records,
    generate_session_text,
    time_tree,
)
from workbench.sessions.tree import (
    NavigationResult,
    SessionTree,
    branch_path,
    resolve_labels,
)
from workbench.sessions.treelist import FILTER_MODES, FILTER_TAGS, TreeList, TreeRow
from workbench.sessions.usage import (
    TOKEN_FIELDS,
    BranchUsage,
    ChildUsage,
    JudgeUsage,
    ModelUsage,
    UsageTotals,
    branch_usage,
    usage_totals,
)
from workbench.sessions.wordfilter import (
    normalize_many,
    normalized_text,
    query_matcher,
    word_matches,
)

__all__ = [
    "CURRENT_VERSION",
    "KNOWN_ENTRY_TYPES",
    "MAX_IMAGE_BYTES",
    "FILTER_MODES",
    "FILTER_TAGS",
    "FLAVOR_BUTTONS",
    "FLAVOR_CHOICES",
    "REGISTRY",
    "STREAM_SUFFIX",
    "TOKEN_FIELDS",
    "BranchUsage",
    "ChildUsage",
    "JudgeUsage",
    "Diagnostic",
    "Entry",
    "FlavorGuess",
    "FuzzyMatch",
    "ModelUsage",
    "NavigationResult",
    "NotLoaded",
    "Progress",
    "Session",
    "SessionContext",
    "SessionInfo",
    "SessionTree",
    "ShownImage",
    "SubagentLink",
    "TreeFlavour",
    "TreeList",
    "TreeNode",
    "TreeRow",
    "UsageTotals",
    "answered_call",
    "append_label",
    "branch_path",
    "branch_usage",
    "build_session_context",
    "child_links",
    "choose_flavor",
    "classic_match",
    "detect_flavor",
    "entry_links",
    "flavour",
    "flavour_aliases",
    "fuzzy_filter",
    "generate_session_records",
    "generate_session_text",
    "image_part",
    "is_session_name",
    "load_session",
    "normalize_many",
    "normalized_text",
    "parse_session_bytes",
    "parent_file",
    "parse_session_text",
    "read_record",
    "parse_timestamp_ms",
    "paused_gc",
    "query_matcher",
    "resolve_flavor",
    "resolve_labels",
    "session_files",
    "session_info",
    "subagent_files",
    "time_tree",
    "usage_totals",
    "word_match",
    "word_match18",
    "word_matches",
]

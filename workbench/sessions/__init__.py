"""pi / oh-my-pi session files: loading, the branch tree, context rebuilding, labels and usage.

The `/tree` selector over a session (list, layout, keys, search, each version's selector) is
``workbench.tree``; this package knows the file and what each agent version does with it.

Public API (other packages code against these names):

* ``load_session(path, *, strict=True, leave_big_results=False) -> Session`` / ``parse_session_text(text, *, path, strict)`` /
  ``parse_session_bytes`` / ``parse_session_file(fh, size, *, path)`` (an open file, read a window at
  a time when it is big; ``whole_lines_end`` says where its last whole line ends; ``leave_from``, as
  ``results_left_from(size)`` gives it, leaves big tool results in the file, read back through
  ``Entry.raw``, while ``Entry.head`` holds what the tree reads of them; ``passes``, a ``PassCache``
  such as ``PassCache.default()``, keeps such a file's ``FirstPass`` for the next open;
  ``start_pass_keeper(paths)`` makes the big ones' passes ahead in a low-priority child): read any session
  file version read-only; bad lines become ``Diagnostic``s;
  a missing, empty or header-less file raises ``SessionFileError`` (``strict=True``, for the CLI and
  the app) or loads as no entries plus a diagnostic, as the agent loads it (``strict=False``).
* ``FLAVOR_BUTTONS`` / ``flavour_aliases()``: the app's flavour buttons and the other names of flavours,
  from the one list of followed versions the CLI choices come from (``FLAVOURS``: one ``SessionFlavour``
  per version, its names and file rules; ``session_flavour(name)`` gives the one of a name or alias).
* ``choose_flavor(name, session) -> FlavorGuess`` (the one decision per file every command and the app
  use) / ``detect_flavor(session)`` / ``resolve_flavor(name, session)`` / ``FLAVOR_CHOICES``:
  which agent's rules a file is read with (``omp`` = omp17, ``omp18``, ``pi``; ``auto`` detects).
* ``session_files(paths) -> list[Path]``: the session files named and under named folders (``*.jsonl``,
  not ``*.stream.jsonl``, hidden folders skipped) — the one rule ingest, backtest and the app follow.
* ``session_info(path) -> SessionInfo``: header-level metadata (id, cwd, title, version, timestamp).
* ``Session``, ``Entry``, ``Diagnostic``, ``NotLoaded``: frozen records of a loaded file; ``OnDisk``:
  an entry's record left in its file (``Entry.record``), read back through ``Entry.raw``.
  ``KNOWN_ENTRY_TYPES`` / ``KNOWN_TYPES18``: the entry types the followed agents write (omp 18.3's alone);
  ``js_number``: JS ``Number()`` of a JSON value, as the agents read numbers from a file.
* ``SessionTree``: leaf, ``get_tree()``, ``get_branch()``, labels, ``navigate()`` → ``NavigationResult``;
  ``positions()`` → ``Positions``, the same forest over entry positions (what the `/tree` list lays out).
* ``build_session_context(session_or_entries, leaf_id=<last>, *, flavor)`` → ``SessionContext``.
* ``usage_totals(entries) -> UsageTotals``: tokens and cost by model, tool calls by tool, errors.
* ``branch_usage(session, leaf=None) -> BranchUsage``: the usage at a leaf, TTSR judge calls apart per rule
  (``JudgeUsage``), subagents' files (``subagent_files``) rolled up (``ChildUsage``).
* ``child_links(session) -> tuple[SubagentLink, ...]`` / ``parent_file(session)``: the subagents a session
  started (named by its task results, found in its artifacts folder) and the way back to the parent.
* ``answered_call(by_id, entry)``: the tool call a tool result answers (omp 18 shows both as one row).
* ``image_part(block) -> ShownImage`` (``MAX_IMAGE_BYTES``): whether and how an image part is drawn.
* ``append_label(path, target_id, label)``: append a label entry to a session file (locked, append-only).
* ``generate_session_text(n)`` / ``generate_session_records(n)``: generated sessions of any size.
"""

from __future__ import annotations

from workbench.errors import Diagnostic
from workbench.sessions.calls import answered_call
from workbench.sessions.context import SessionContext, build_session_context
from workbench.sessions.entries import (
    Entry,
    NotLoaded,
    OnDisk,
    Session,
    gc_freeze_lock,
    parse_timestamp_ms,
    paused_gc,
)
from workbench.sessions.files import (
    STREAM_SUFFIX,
    Progress,
    is_session_name,
    session_files,
)
from workbench.sessions.first_pass import FirstPass, PassCache
from workbench.sessions.flavors import (
    FLAVOR_BUTTONS,
    FLAVOR_CHOICES,
    FLAVOURS,
    ContextRules,
    Flavor,
    FlavorGuess,
    SessionFlavour,
    choose_flavor,
    detect_flavor,
    flavour_aliases,
    resolve_flavor,
    session_flavour,
)
from workbench.sessions.forest import Positions, TreeNode
from workbench.sessions.giving_way import GIVE_WAY_EVERY, give_way, install_give_way
from workbench.sessions.images import MAX_IMAGE_BYTES, ShownImage, image_part
from workbench.sessions.labels import append_label
from workbench.sessions.loader import (
    SessionInfo,
    load_session,
    parse_session_bytes,
    parse_session_file,
    parse_session_text,
    read_record,
    results_left_from,
    session_info,
    whole_lines_end,
)
from workbench.sessions.pass_keeper import start as start_pass_keeper
from workbench.sessions.structure import CURRENT_VERSION, KNOWN_ENTRY_TYPES, KNOWN_TYPES18, js_number
from workbench.sessions.subagents import SubagentLink, child_links, entry_links, parent_file, subagent_files
from workbench.sessions.synthetic import (
    generate_session_records,
    generate_session_text,
)
from workbench.sessions.tree import (
    NavigationResult,
    SessionTree,
    branch_path,
    resolve_labels,
)
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

__all__ = [
    "CURRENT_VERSION",
    "KNOWN_ENTRY_TYPES",
    "KNOWN_TYPES18",
    "MAX_IMAGE_BYTES",
    "FLAVOR_BUTTONS",
    "FLAVOR_CHOICES",
    "FLAVOURS",
    "STREAM_SUFFIX",
    "TOKEN_FIELDS",
    "BranchUsage",
    "ContextRules",
    "ChildUsage",
    "JudgeUsage",
    "Diagnostic",
    "Entry",
    "Flavor",
    "FlavorGuess",
    "ModelUsage",
    "NavigationResult",
    "NotLoaded",
    "OnDisk",
    "Positions",
    "Progress",
    "Session",
    "SessionContext",
    "SessionFlavour",
    "SessionInfo",
    "SessionTree",
    "ShownImage",
    "SubagentLink",
    "TreeNode",
    "UsageTotals",
    "answered_call",
    "append_label",
    "branch_path",
    "branch_usage",
    "build_session_context",
    "child_links",
    "choose_flavor",
    "detect_flavor",
    "entry_links",
    "flavour_aliases",
    "generate_session_records",
    "generate_session_text",
    "image_part",
    "is_session_name",
    "js_number",
    "load_session",
    "parse_session_bytes",
    "parse_session_file",
    "FirstPass",
    "PassCache",
    "start_pass_keeper",
    "parent_file",
    "parse_session_text",
    "read_record",
    "results_left_from",
    "parse_timestamp_ms",
    "gc_freeze_lock",
    "paused_gc",
    "GIVE_WAY_EVERY",
    "give_way",
    "install_give_way",
    "resolve_flavor",
    "resolve_labels",
    "session_files",
    "session_flavour",
    "session_info",
    "subagent_files",
    "usage_totals",
    "whole_lines_end",
]

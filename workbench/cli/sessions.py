"""``workbench tree`` and ``workbench context``: the `/tree` list and the conversation at a leaf."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from workbench.cli._output import add_command, add_json_flag, print_json, print_json_fast
from workbench.errors import NotFoundError
from workbench.sessions import build_session_context, load_session
from workbench.sessions.entries import Session, paused_gc
from workbench.sessions.flavors import FLAVOR_CHOICES, FlavorGuess, choose_flavor, session_flavour
from workbench.tree import FILTER_MODES, TreeList


def register(subparsers: Any) -> None:
    tree = add_command(subparsers, "tree", _tree, help="print a session's branch tree as the agent's /tree shows it")
    tree.add_argument("session", metavar="SESSION", help="a .jsonl session file")
    tree.add_argument("--filter", default="default", choices=FILTER_MODES, help="filter mode (default: default)")
    tree.add_argument("--search", default="", metavar="QUERY", help="search query, as typed in /tree")
    tree.add_argument("--flavor", default="auto", choices=FLAVOR_CHOICES,
                      help="which agent's /tree to mimic (default: auto, told from the file; omp = omp17)")
    tree.add_argument("--leaf", default=None, metavar="ID", help="current leaf (default: the file's leaf)")
    add_json_flag(tree)

    ctx = add_command(subparsers, "context", _context, help="print the conversation the LLM would see at a leaf")
    ctx.add_argument("session", metavar="SESSION", help="a .jsonl session file")
    ctx.add_argument("--leaf", default=None, metavar="ID", help="leaf entry id (default: the file's leaf)")
    ctx.add_argument("--flavor", default="auto", choices=FLAVOR_CHOICES,
                     help="which agent's rules to apply (default: auto, told from the file; omp = omp17)")
    add_json_flag(ctx)


def _diagnostics(session: Session) -> list[dict[str, Any]]:
    return [{"path": d.path, "line": d.line, "kind": d.kind, "message": d.message} for d in session.diagnostics]


def _warn(session: Session) -> None:
    for d in session.diagnostics:
        print(f"warning: {d}", file=sys.stderr)


def _check_leaf(session: Session, leaf: str | None) -> None:
    if leaf is not None and leaf not in session.by_id:
        raise NotFoundError(f"{session.path}: entry {leaf!r} not found (--leaf)")


def _flavor(args: argparse.Namespace, session: Session) -> FlavorGuess:
    """The file's one flavour decision (as given, or detected under ``auto``), told on stderr in text
    mode when no mark decided it."""
    guess = choose_flavor(args.flavor, session)
    if guess.unmarked and not args.json:
        print(f"note: {guess.reason}; choose with --flavor", file=sys.stderr)
    return guess


def _tree(args: argparse.Namespace) -> int:
    # 100k entries are millions of acyclic containers: collector passes over them cost more than the
    # whole rendering, and this command exits right after.
    with paused_gc():
        return _tree_paused(args)


def _tree_paused(args: argparse.Namespace) -> int:
    # the rows need no tool result's content: a big file's stay in it (a search reads them back)
    session = load_session(args.session, leave_big_results=True)
    _check_leaf(session, args.leaf)
    guess = _flavor(args, session)
    flavor = guess.flavor
    # One search, then exit: scanning the rows once is cheaper than building the word index.
    kwargs: dict[str, Any] = {"flavor": flavor, "filter_mode": args.filter, "search": args.search,
                              "search_index": "off"}
    if args.leaf is not None:
        kwargs["leaf"] = args.leaf
    state = TreeList(session, **kwargs)
    if args.json:
        # Rows hold only str/int/bool/None: the fast writer gives print_json's exact text.
        print_json_fast({
            "rows": state.rows(make=_row_json),
            "leaf": state.leaf_id,
            # the file's leaf (or --leaf), as `context --json` names it: the selector's `leaf` above is
            # omp's visible leaf, which walks up past trailing label and custom entries
            "leafId": args.leaf if args.leaf is not None else (session.entries[-1].id if session.entries else None),
            "selected": state.selected_id,
            "total": state.total,
            "filter": state.filter_mode,
            "search": state.search,
            "flavor": state.flavor,
            "flavorReason": guess.note,
            "diagnostics": _diagnostics(session),
            "notLoaded": [{"line": n.line, "reason": n.reason} for n in session.not_loaded],
        })
        return 0
    _warn(session)
    rows = state.rows()
    if not session.entries:
        print("no entries")
    elif not rows:
        # the agent's selector shows an empty list here; say why rather than print nothing
        hint = "" if state.filter_mode == "all" else "; --filter all shows every kind"
        print(f"no rows under filter {state.filter_mode}" + (f" and search {state.search!r}" if state.search else "")
              + f" ({state.total} {'entry' if state.total == 1 else 'entries'} in the file{hint})")
    for row in rows:
        print(row.line)
    return 0


def _row_json(id: str, type: str, text: str, label: str | None, active: bool, line: str, depth: int, index: int,
              selected: bool, role: str | None, file_line: int) -> dict[str, Any]:
    """A row of ``tree --json``, made from ``TreeRow``'s fields without the ``TreeRow`` (100k rows)."""
    return {"id": id, "type": type, "text": text, "label": label, "active": active, "line": line, "depth": depth,
            "fileLine": file_line}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "toolCall":
                parts.append(f"[tool call {block.get('name')}]")
            elif block.get("type") == "thinking":
                parts.append("[thinking]")
            elif block.get("type") == "image":
                parts.append("[image]")
        return " ".join(parts)
    return ""


def _context(args: argparse.Namespace) -> int:
    session = load_session(args.session)
    _check_leaf(session, args.leaf)
    guess = _flavor(args, session)
    flavor = guess.flavor
    ctx = build_session_context(session, *([args.leaf] if args.leaf is not None else []), flavor=flavor)
    if args.json:
        out = ctx.to_dict()
        out["flavor"], out["flavorReason"] = flavor, guess.note
        out["diagnostics"] = _diagnostics(session)
        print_json(out)
        return 0
    _warn(session)
    if not session.entries:
        print("# no entries: the model would see no messages")
        return 0
    by_provider = session_flavour(flavor).context_rules.model_source == "provider"  # pi: one model, not one per role
    model = (f"{ctx.model.get('provider')}/{ctx.model.get('modelId')}" if ctx.model else None) if by_provider \
        else ctx.models.get("default")
    print(f"# leaf {ctx.leaf_id}  thinking {ctx.thinking_level}  model {model or '(not set)'}")
    for msg in ctx.messages:
        role = msg.get("role")
        if role in ("compactionSummary", "branchSummary"):
            text = str(msg.get("summary", ""))
        elif role == "bashExecution":
            text = f"$ {msg.get('command', '')}"
        else:
            text = _text_of(msg.get("content"))
        first = text.replace("\n", " ")
        print(f"{role}: {first[:200]}{'…' if len(first) > 200 else ''}")
    return 0

"""What changes if I ship this edit: two backtests of the same sessions, turn by turn.

``compare_backtests(base, draft)`` takes the result of the saved rule set and the result of the draft
(same sessions, same options) and keys every hit by (session, rule, turn): a key only the draft has
*newly fires*, one only the base has *stops firing*, one both have with a different ``interrupts``
*changes interrupt behaviour*. A hit keeps its step, so each change opens in the stepper at the
place it fires. Pure: the CLI (``--compare``), the app's Drafts tab and notebooks share it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.backtest.results import BacktestResult, Hit

CATEGORIES = ("newly_fires", "stops_firing", "interrupt_changed")

Key = tuple[str, str, int]


def _by_key(hits: Iterable[Hit]) -> dict[Key, Hit]:
    # A backtest records the first firing of a rule in a turn; should a result ever carry more than
    # one, the first (lowest step) stands for the turn, as it does in the per-rule counts.
    out: dict[Key, Hit] = {}
    for hit in hits:
        key = (hit.session, hit.rule, hit.turn)
        if key not in out or hit.step < out[key].step:
            out[key] = hit
    return out


def _row(key: Key, base: Hit | None, draft: Hit | None) -> dict[str, Any]:
    shown = draft if draft is not None else base
    assert shown is not None
    return {
        "session": key[0], "rule": key[1], "turn": key[2],
        "step": shown.step, "source": shown.source, "snippet": shown.snippet,
        "base_step": base.step if base is not None else None,
        "draft_step": draft.step if draft is not None else None,
        "base_interrupts": base.interrupts if base is not None else None,
        "draft_interrupts": draft.interrupts if draft is not None else None,
    }


def compare_backtests(base: BacktestResult, draft: BacktestResult) -> dict[str, Any]:
    """The turns whose firing differs between ``base`` and ``draft``, as plain JSON.

    ``{"newly_fires": [...], "stops_firing": [...], "interrupt_changed": [...], "by_rule": {rule: {the three
    lists of that rule}}, "counts": {...},
    "sessions": {"base": n, "draft": n, "only_base": [...], "only_draft": [...]}, "rules": {...}}``;
    each change row names session, rule, turn, the step to open (the draft's where it fires, else the
    base's), source, snippet, and both sides' step and ``interrupts`` (``None`` where a side has no hit).
    Rows are sorted by session, turn, rule. Sessions only one side read (an unreadable file, a
    different path list) are listed, since their turns cannot be compared.
    """
    left, right = _by_key(base.hits), _by_key(draft.hits)
    out: dict[str, list[dict[str, Any]]] = {c: [] for c in CATEGORIES}
    for key in sorted(set(left) | set(right), key=lambda k: (k[0], k[2], k[1])):
        b, d = left.get(key), right.get(key)
        if b is None:
            out["newly_fires"].append(_row(key, b, d))
        elif d is None:
            out["stops_firing"].append(_row(key, b, d))
        elif b.interrupts != d.interrupts:
            out["interrupt_changed"].append(_row(key, b, d))
    base_sessions = {s.session for s in base.sessions if s.error is None}
    draft_sessions = {s.session for s in draft.sessions if s.error is None}
    base_rules = {r.rule for r in base.rules}
    draft_rules = {r.rule for r in draft.rules}
    by_rule: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for category in CATEGORIES:
        for row in out[category]:
            by_rule.setdefault(row["rule"], {c: [] for c in CATEGORIES})[category].append(row)
    return {
        **out,
        "by_rule": dict(sorted(by_rule.items())),
        "counts": {c: len(out[c]) for c in CATEGORIES},
        "unchanged": sum(1 for k in set(left) & set(right) if left[k].interrupts == right[k].interrupts),
        "sessions": {"base": len(base_sessions), "draft": len(draft_sessions),
                     "only_base": sorted(base_sessions - draft_sessions),
                     "only_draft": sorted(draft_sessions - base_sessions)},
        "rules": {"only_base": sorted(base_rules - draft_rules), "only_draft": sorted(draft_rules - base_rules),
                  "changed": sorted({row["rule"] for c in CATEGORIES for row in out[c]})},
    }


def changed(comparison: dict[str, Any]) -> bool:
    """True when any turn changes (the CLI's exit status does not depend on it; scripts may)."""
    return any(comparison["counts"][c] for c in CATEGORIES)


_TITLES = {"newly_fires": "newly fires", "stops_firing": "stops firing", "interrupt_changed": "interrupt changes"}


def _interrupt(value: bool | None) -> str:
    return "-" if value is None else "interrupts" if value else "no interrupt"


def format_comparison(comparison: dict[str, Any], *, base: str = "base", draft: str = "draft") -> str:
    """The comparison as the command line prints it: counts, then one line per changed turn."""
    counts = comparison["counts"]
    lines = [(f"{base} -> {draft}: {counts['newly_fires']} turn(s) newly fire, {counts['stops_firing']} stop firing, "
              f"{counts['interrupt_changed']} change interrupt behaviour ({comparison['unchanged']} unchanged)")]
    for category in CATEGORIES:
        rows = comparison[category]
        if not rows:
            continue
        lines.append("")
        lines.append(f"{_TITLES[category]}:")
        for row in rows:
            what = (f"{_interrupt(row['base_interrupts'])} -> {_interrupt(row['draft_interrupts'])}"
                    if category == "interrupt_changed" else _interrupt(row["draft_interrupts"] if category == "newly_fires"
                                                                       else row["base_interrupts"]))
            lines.append(f"  {row['rule']:<24} {row['session']} turn {row['turn']} step {row['step']} ({what})")
            if row["snippet"]:
                lines.append(f"  {'':<24} » {row['snippet']}")
    for side, key in ((base, "only_base"), (draft, "only_draft")):
        only = comparison["sessions"][key]
        if only:
            lines.append(f"\nsessions read only with {side}: {', '.join(only)}")
    return "\n".join(lines) + "\n"

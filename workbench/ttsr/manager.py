"""``TtsrManager``: the reference's rule registry, stream buffers and repeat bookkeeping.

Behaviour follows the reference manager (at 7bf401f; docs/architecture.md), quirks included: the
text/thinking latches that drop deltas until a rule can see them, ``rule.globs`` gating every source, asymmetric name trimming, ``restoreInjected`` replacing the record set, the AST
throttle keyed by buffer only. Judged rules (18.3: ``question``, a live settings source, hot reload)
come from ``workbench.ttsr.judged``. Matching answers are the reference's; the work per delta is not
(``workbench.ttsr.window``). No input makes a method raise: bad values become warnings in
``diagnostics`` or are ignored, as in the reference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from workbench.errors import Diagnostic
from workbench.rules.jsstring import js_trim
from workbench.ttsr import judged
from workbench.ttsr.ast import UnsupportedLanguage, ast_match_each, language_for
from workbench.ttsr.ast_literals import Presence
from workbench.ttsr.conditions import CompiledCondition, compile_rule_condition
from workbench.ttsr.context import InjectionGap, InjectionRecord, MatchContext
from workbench.ttsr.judged import JudgedCandidate, SettingsSource, question_of
from workbench.ttsr.messages import MSG_AST_FAILED, MSG_INVALID_REGEX, MSG_INVALID_SCOPE_TOKEN, MSG_SCOPE_EXCLUDES_ALL
from workbench.ttsr.rule_entry import RuleEntry
from workbench.ttsr.scope import build_scope, normalized_tool_name
from workbench.ttsr.settings import TtsrSettings
from workbench.ttsr.window import StreamBuffer, condition_matches, memo_answer


def rule_str_list(value: Any) -> list[str]:
    """A rule's list field as the manager reads it: a string is one item, non-strings are dropped."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        return [v for v in value if isinstance(v, str)]
    except TypeError:
        return []


def _name_of(rule: Any) -> Any:
    if isinstance(rule, Mapping):
        return rule.get("name")
    return getattr(rule, "name", None)


def _field(rule: Any, snake: str, camel: str) -> Any:
    if isinstance(rule, Mapping):
        return rule.get(camel, rule.get(snake))
    return getattr(rule, snake, None)


def _is_valid_position(value: Any) -> bool:
    """JS ``Number.isInteger(v) && v >= 0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and float(value).is_integer() and value >= 0


def js_number(value: Any) -> float | int:
    """JavaScript ``ToNumber`` for JSON-ish values (``null`` is 0, junk strings are NaN)."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = js_trim(value)
        if not text:
            return 0
        try:
            return int(text, 0) if text.lower().startswith(("0x", "0o", "0b")) else float(text)
        except ValueError:
            return math.nan
    return math.nan


def _num(value: Any) -> int | float:
    """Keep whole floats as ints so results compare like JS numbers."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    number: int | float = value
    return number


class TtsrManager:
    """The engine. Method names follow the reference in snake_case."""

    def __init__(self, settings: TtsrSettings | Mapping[str, Any] | SettingsSource | None = None) -> None:
        if callable(settings) and not isinstance(settings, (TtsrSettings, Mapping)):
            self._settings_source = settings  # a live source, read at every check (18.3)
        elif isinstance(settings, TtsrSettings):
            self._settings = settings
        else:
            self._settings = TtsrSettings.from_mapping(settings if isinstance(settings, Mapping) else None)
        self._rules: dict[str, RuleEntry] = {}
        self._records: dict[str, InjectionRecord] = {}
        self._buffers: dict[str, StreamBuffer] = {}
        self._ast_snapshots: dict[str, str] = {}
        self._ast_presence: dict[str, Presence] = {}  # which AST literals each key's last snapshot holds
        self._message_count: int | float = 0
        self._can_match_text = False
        self._can_match_thinking = False
        self._next_condition_id = 0
        self._gate_cache: dict[tuple[Any, ...], tuple[RuleEntry, ...]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.rejections: dict[str, str] = {}

    @property
    def _settings(self) -> TtsrSettings:
        """The settings now: read from the source at every use, so a live source is never cached.
        A source may return a mapping (the reference's settings are a plain object)."""
        value = self._settings_source()
        return value if isinstance(value, TtsrSettings) else TtsrSettings.from_mapping(value)

    @_settings.setter
    def _settings(self, value: TtsrSettings) -> None:
        self._settings_source = lambda: value

    # -- registration -----------------------------------------------------------------------------
    def _warn(self, message: str, context: dict[str, Any]) -> None:
        self.diagnostics.append(Diagnostic(message, context))

    def add_rule(self, rule: Any) -> bool:
        """Register ``rule``; False when disabled, duplicate, conditionless or unreachable."""
        name = _name_of(rule)
        if not self._settings.is_enabled:
            self.rejections[str(name)] = "manager disabled"
            return False
        if name in self._rules:
            self.rejections.setdefault(str(name), "duplicate name (first registration kept)")
            return False
        compiled: list[CompiledCondition] = []
        for pattern in rule_str_list(_field(rule, "condition", "condition")):
            try:
                compiled.append(compile_rule_condition(pattern))
            except Exception as exc:  # noqa: BLE001 - every compile failure is a warning
                self._warn(MSG_INVALID_REGEX, {"ruleName": name, "pattern": pattern, "error": str(exc)})
        ast_patterns = [js_trim(p) for p in rule_str_list(_field(rule, "ast_condition", "astCondition"))]
        ast_patterns = [p for p in ast_patterns if p]
        question = question_of(rule)
        if not compiled and not ast_patterns and question is None:
            self.rejections[str(name)] = "no valid regex condition and no AST pattern"
            return False
        scope_tokens = _field(rule, "scope", "scope")
        scope = build_scope(
            None if scope_tokens is None else rule_str_list(scope_tokens),
            lambda token: self._warn(MSG_INVALID_SCOPE_TOKEN, {"ruleName": name, "token": token}),
        )
        if not scope.reaches_anything:
            self._warn(MSG_SCOPE_EXCLUDES_ALL, {"ruleName": name, "scope": list(scope_tokens or [])})
            self.rejections[str(name)] = "scope excludes all streams"
            return False
        globs = [js_trim(g) for g in rule_str_list(_field(rule, "globs", "globs"))]
        globs = [g for g in globs if g]
        if question is not None:
            self._rules[name] = RuleEntry(name, rule, (), (), (), scope, tuple(globs) or None,
                                          question, tuple(compiled), tuple(ast_patterns))
            self.rejections.pop(str(name), None)
            self._gate_cache.clear()
            return True  # no text/thinking latch: a judged rule never reads the stream (18.3)
        ids = tuple(range(self._next_condition_id, self._next_condition_id + len(compiled)))
        self._next_condition_id += len(compiled)
        self._rules[name] = RuleEntry(name, rule, tuple(compiled), ids, tuple(ast_patterns), scope, tuple(globs) or None)
        self.rejections.pop(str(name), None)
        self._gate_cache.clear()
        if scope.allow_text:
            self._can_match_text = True
        if scope.allow_thinking:
            self._can_match_thinking = True
        return True

    # -- gates ------------------------------------------------------------------------------------
    def _can_trigger(self, name: str) -> bool:
        record = self._records.get(name)
        if record is None:
            return True
        if self._settings.repeat_mode == "once":
            return False
        gap = self._message_count - record.last_injected_at
        return gap >= js_number(self._settings.repeat_gap)  # NaN compares false, as in JS

    def _gated_entries(self, ctx: MatchContext) -> tuple[RuleEntry, ...]:
        """Rules whose scope and global globs admit ``ctx`` (cached per context shape)."""
        paths = tuple(ctx.file_paths) if ctx.file_paths is not None else None
        key = (ctx.source, normalized_tool_name(ctx.tool_name), paths)
        hit = self._gate_cache.get(key)
        if hit is None:
            hit = tuple(e for e in self._rules.values() if e.scope.allows(ctx) and e.passes_globs(ctx))
            if len(self._gate_cache) > 4096:
                self._gate_cache.clear()
            self._gate_cache[key] = hit
        return hit

    @staticmethod
    def buffer_key(ctx: MatchContext) -> str:
        """``streamKey`` verbatim if non-blank, else the source, else ``tool:<name>`` / ``tool``."""
        key = ctx.stream_key
        if isinstance(key, str) and js_trim(key):
            return key
        if ctx.source in ("text", "thinking"):
            return ctx.source
        name = normalized_tool_name(ctx.tool_name)
        return f"tool:{name}" if name else "tool"

    def _match(self, key: str, ctx: MatchContext) -> list[Any]:
        if not self._settings.is_enabled:
            return []
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = StreamBuffer()
        out = []
        records = self._records
        for entry in buf.alive(self._gated_entries(ctx)):  # literal prefilter (ttsr.window)
            # Hot loop: most rules have no injection record, so test membership before the gate.
            if not entry.conditions or (entry.name in records and not self._can_trigger(entry.name)):
                continue
            for cond, cid in zip(entry.conditions, entry.condition_ids):
                if condition_matches(cond, cid, buf):
                    out.append(entry.rule)
                    break
        return out

    # -- checks -----------------------------------------------------------------------------------
    def check_delta(self, delta: str, ctx: MatchContext) -> list[Any]:
        """Append ``delta`` to the context's buffer and return the rules that now match."""
        if ctx.source == "text" and not self._can_match_text:
            return []
        if ctx.source == "thinking" and not self._can_match_thinking:
            return []
        key = self.buffer_key(ctx)
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = StreamBuffer()
        if isinstance(delta, str):
            buf.append(delta)
        return self._match(key, ctx)

    def check_snapshot(self, snapshot: str, ctx: MatchContext) -> list[Any]:
        """Replace the context's buffer with ``snapshot`` and return the rules that match."""
        return self._match(self._replace_buffer(snapshot, ctx), ctx)

    def hold_snapshot(self, snapshot: str, ctx: MatchContext) -> list[Any]:
        """``check_snapshot`` without the matching: the context's buffer becomes ``snapshot`` (what a
        firing found later reads), and no rule is asked. For a caller that has shown no rule can
        match there that has not fired already (the backtest's probe)."""
        self._replace_buffer(snapshot, ctx)
        return []

    def _replace_buffer(self, snapshot: str, ctx: MatchContext) -> str:
        """Make ``snapshot`` the context's buffer; its key."""
        key = self.buffer_key(ctx)
        snapshot = snapshot if isinstance(snapshot, str) else ""
        buf = self._buffers.get(key)
        if buf is not None and len(snapshot) >= len(buf.text) and snapshot.startswith(buf.text):
            # Same answer as replacing: the memo of the shorter prefix stays valid.
            buf.append(snapshot[len(buf.text) :])
        else:
            self._buffers[key] = StreamBuffer(snapshot)
        return key

    def check_ast_snapshot(self, snapshot: str, ctx: MatchContext) -> list[Any]:
        """Run AST patterns on a tool snapshot (synchronous form of the reference's async call)."""
        if not self._settings.is_enabled or ctx.source != "tool":
            return []
        lang = language_for(ctx.file_paths)
        if lang is None:
            return []
        # The scope and glob gate is the one the regex path caches per context shape; the repeat gate
        # is asked afterwards, in registration order as before.
        candidates = [e for e in self._gated_entries(ctx) if e.ast_conditions and self._can_trigger(e.name)]
        if not candidates:
            return []
        key = self.buffer_key(ctx)
        if self._ast_snapshots.get(key) == snapshot:
            return []
        self._ast_snapshots[key] = snapshot
        source = snapshot if isinstance(snapshot, str) else ""
        presence = self._ast_presence[key] = Presence(source, self._ast_presence.get(key))
        try:
            answers = ast_match_each([e.ast_conditions for e in candidates], source, lang, presence)
        except UnsupportedLanguage as exc:
            # The language is the same for every candidate: each one warns, as each would have.
            for entry in candidates:
                self._warn(MSG_AST_FAILED, {"patterns": list(entry.ast_conditions), "lang": lang, "error": str(exc)})
            return []
        return [entry.rule for entry, hit in zip(candidates, answers) if hit]

    # -- simple queries ---------------------------------------------------------------------------
    def has_rules(self) -> bool:
        return self._settings.is_enabled and bool(self._rules)

    def has_ast_rules(self) -> bool:
        return self._settings.is_enabled and any(e.ast_conditions for e in self._rules.values())

    def get_rules(self) -> list[Any]:
        return [e.rule for e in self._rules.values()]

    def gated_names(self, ctx: MatchContext) -> frozenset[str]:
        """The names of the rules whose scope and global globs admit ``ctx``: the gate every check
        applies before any condition (the backtest's probe asks it without checking a buffer)."""
        return frozenset(e.name for e in self._gated_entries(ctx))

    def get_settings(self) -> TtsrSettings:
        return self._settings

    def get_message_count(self) -> int | float:
        return self._message_count

    def increment_message_count(self) -> None:
        self._message_count = _num(self._message_count + 1)

    def rewind_message_count(self, count: int | float) -> None:
        """``messageCount = max(0, count)``; records ahead of it are clamped down."""
        number = js_number(count)
        self._message_count = _num(number if math.isnan(number) else max(0, number))
        for name, record in list(self._records.items()):
            if record.last_injected_at > self._message_count:
                self._records[name] = InjectionRecord(self._message_count, record.journal_coords)

    def reset_buffer(self) -> None:
        """Clear every stream buffer and the AST throttle (not records, not the counter)."""
        self._buffers.clear()
        self._ast_snapshots.clear()
        self._ast_presence.clear()

    # -- injection records ------------------------------------------------------------------------
    def mark_injected(self, rules: Iterable[Any]) -> None:
        """Record ``rules`` (Rule objects, mappings with ``name``, or names) as injected now."""
        self.mark_injected_by_names([n if isinstance(n, str) else _name_of(n) for n in rules or []])

    def mark_injected_by_names(self, names: Iterable[Any]) -> None:
        for raw in names or []:
            if not isinstance(raw, str):
                continue
            name = js_trim(raw)
            if not name:
                continue
            self._records[name] = InjectionRecord(self._message_count, True)

    def get_injected_rule_names(self) -> list[str]:
        return list(self._records)

    def restore_injected(self, names: Iterable[Any], positions: Mapping[str, Any] | None = None) -> None:
        """Replace all records with exactly ``names`` (not trimmed), as the reference does."""
        old = dict(self._records)
        self._records = {}
        for name in names or []:
            if name in self._records:
                continue
            pos = positions.get(name) if isinstance(positions, Mapping) else None
            if _is_valid_position(pos):
                self._records[name] = InjectionRecord(_num(pos), True)
            elif name in old:
                self._records[name] = old[name]
            else:
                self._records[name] = InjectionRecord(0, False)

    def get_injection_gaps(self) -> dict[str, InjectionGap]:
        return {
            name: InjectionGap(_num(max(0, self._message_count - r.last_injected_at)), r.journal_coords)
            for name, r in self._records.items()
        }

    def injection_records(self) -> dict[str, InjectionRecord]:
        """name -> (last_injected_at, journal_coords), in record order (for the stepper)."""
        return dict(self._records)

    # -- judged rules (workbench.ttsr.judged) ---------------------------------------------------------
    def has_judged_rules(self) -> bool:
        """True when the manager is enabled and some registered rule is judged."""
        return self._settings.is_enabled and judged.has_judged(self._rules)

    def get_judged_rules(self) -> list[Any]:
        """The registered judged rules, in registration order."""
        return judged.judged_rules(self._rules)

    def judged_candidates(self, content: str, ctx: MatchContext) -> list[JudgedCandidate]:
        """Judged rules to ask about one completed output, in registration order."""
        if not self.has_judged_rules():
            return []
        return judged.candidates(self._rules, content, ctx, can_trigger=self._can_trigger, warn=self._warn)

    def explain_judged(self, content: str, ctx: MatchContext) -> dict[str, str | None]:
        """Per judged rule: why it is not a candidate for this output (the first gate that fails),
        or ``None`` when it is one. Pure apart from AST warnings, like ``judged_candidates``."""
        return judged.explain(self._rules, content, ctx, enabled=self._settings.is_enabled,
                              can_trigger=self._can_trigger, warn=self._warn)

    def claim(self, rules: Iterable[Any]) -> list[Any]:
        """Rules from a yes verdict that may still be delivered, marked injected now."""
        claimed = judged.claimable(rules, self._can_trigger)
        self.mark_injected(claimed)
        return claimed

    def replace_rules(self, rules: Iterable[Any]) -> set[str]:
        """Replace the registry with ``rules`` (hot reload); returns the names registered.

        Injection records of names still registered are kept, the others dropped, except while the
        manager is disabled (nothing registers then, and the records wait for it to be enabled).
        Buffers are reset. Warnings from registering the new rules join ``diagnostics``.
        """
        replacement = type(self)(self._settings_source)
        replacement._next_condition_id = self._next_condition_id
        for rule in rules or ():
            replacement.add_rule(rule)
        registered = set(replacement._rules)
        self._rules = dict(replacement._rules)
        self._next_condition_id = replacement._next_condition_id
        self._can_match_text = replacement._can_match_text
        self._can_match_thinking = replacement._can_match_thinking
        self.rejections = dict(replacement.rejections)
        self._gate_cache.clear()
        self.diagnostics.extend(replacement.diagnostics)
        self.reset_buffer()
        if self._settings.is_enabled:
            self._records = {n: r for n, r in self._records.items() if n in registered}
        return registered

    # -- introspection for the stepper --------------------------------------------------------------
    @property
    def buffers(self) -> Mapping[str, str]:
        """Read-only view: buffer key -> accumulated text."""
        return MappingProxyType({k: b.text for k, b in self._buffers.items()})

    def get_buffer(self, key: str) -> str | None:
        buf = self._buffers.get(key)
        return None if buf is None else buf.text

    def match_spans(self, rule_name: str, key: str) -> list[tuple[int, int]]:
        """Where the rule's regex conditions match in buffer ``key`` (character spans, sorted)."""
        entry = self._rules.get(rule_name)
        buf = self._buffers.get(key)
        if entry is None or buf is None:
            return []
        spans: set[tuple[int, int]] = set()
        for cond in entry.conditions:
            spans.update(cond.spans(buf.text))
        return sorted(spans)

    def explain(self, ctx: MatchContext) -> dict[str, str | None]:
        """Per rule (registered or rejected): the first gate that fails for ``ctx`` now, or None.

        Pure: it reads the current buffer for ``ctx`` without appending anything.
        """
        out: dict[str, str | None] = {}
        key = self.buffer_key(ctx)
        text = self.get_buffer(key) or ""
        enabled = self._settings.is_enabled
        for name, entry in self._rules.items():
            out[name] = self._explain_entry(name, entry, ctx, text, enabled)
        for name, reason in self.rejections.items():
            out.setdefault(name, f"not registered: {reason}")
        return out

    def _explain_entry(self, name: str, entry: RuleEntry, ctx: MatchContext, text: str, enabled: bool) -> str | None:
        if not enabled:
            return "manager disabled"
        if entry.question is not None:
            return "judged rule: asked after the message completes, never mid-stream"
        record = self._records.get(name)
        if record is not None and not self._can_trigger(name):
            if self._settings.repeat_mode == "once":
                return f"repeat: once, injected at turn {record.last_injected_at}"
            gap = self._message_count - record.last_injected_at
            return f"repeat gap {gap} < {self._settings.repeat_gap}"
        reason = entry.scope.explain(ctx)
        if reason is not None:
            return reason
        if ctx.source == "text" and not self._can_match_text:
            return "scope: text not monitored"
        if ctx.source == "thinking" and not self._can_match_thinking:
            return "scope: thinking not monitored"
        if not entry.passes_globs(ctx):
            return f"path gate: no glob matched {list(entry.globs or [])}"
        if not entry.conditions:
            return "no regex condition (AST only)"
        buf = self._buffers.get(self.buffer_key(ctx))
        for cond, cid in zip(entry.conditions, entry.condition_ids):
            known = None if buf is None else memo_answer(cond, cid, buf)
            if known if known is not None else cond.test(text):
                return None
        return "no condition matched"

    def copy(self) -> TtsrManager:
        """An independent manager with identical state (buffers share their immutable text)."""
        other = TtsrManager.__new__(TtsrManager)
        other._settings_source = self._settings_source
        other._rules = dict(self._rules)
        other._records = dict(self._records)
        other._buffers = {k: b.copy() for k, b in self._buffers.items()}
        other._ast_snapshots = dict(self._ast_snapshots)
        other._ast_presence = dict(self._ast_presence)
        other._message_count = self._message_count
        other._can_match_text = self._can_match_text
        other._can_match_thinking = self._can_match_thinking
        other._next_condition_id = self._next_condition_id
        other._gate_cache = dict(self._gate_cache)
        other.diagnostics = list(self.diagnostics)
        other.rejections = dict(self.rejections)
        return other

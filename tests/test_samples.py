"""The bundled samples load cleanly, show what sample_sessions/README.md says, and regenerate byte for byte.

Every session file is loaded with ``load_session`` and every stream with ``read_stream``; any
diagnostic not listed in ``EXPECTED_DIAGNOSTICS`` fails. The ``project/`` rules are discovered with
``load_rules`` and registered with ``bucket_rules``; only the warnings listed here may appear.
"""

from __future__ import annotations

import filecmp
import importlib.util
import os
from pathlib import Path

import pytest

from workbench.replay import ReplayConfig, Stepper, read_stream
from workbench.rules import bucket_rules, load_rules
from workbench.sessions import SessionTree, build_session_context, load_session
from workbench.ttsr import TtsrManager

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
PROJECT = SAMPLES / "project"
SESSION_FILES = sorted(p.name for p in SAMPLES.glob("*.jsonl"))
STREAM_FILES = sorted(p.name for p in (SAMPLES / "streams").glob("*.stream.jsonl"))

# (line, kind) of every diagnostic a sample is meant to produce; anything else fails.
EXPECTED_DIAGNOSTICS: dict[str, list[tuple[int, str]]] = {
    "broken-line.jsonl": [
        (7, "malformed"),  # cut short mid-write
        (8, "missing-parent"),  # its parent was on line 7
        (11, "two-objects"),  # `}{`: two entries glued together
        (12, "missing-parent"),  # its parent was the second object on line 11
    ],
}

# Rule-discovery warnings the project is meant to produce (provider prefix, message start, file).
EXPECTED_LOAD_WARNINGS = [
    ("[Cline] ", "Failed to parse YAML frontmatter", ".clinerules/pathlib.md"),
    ("[GitHub Copilot] ", "Missing applyTo in", ".github/instructions/docs/changelog.instructions.md"),
]


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _project_rules(home: Path):
    return load_rules(cwd=str(PROJECT), home=str(home))


# -- the generator ----------------------------------------------------------------------------------


def test_generator_reproduces_every_committed_file(tmp_path):
    written = _load_generator().generate(str(tmp_path / "out"))
    differs = [p for p in written if not filecmp.cmp(tmp_path / "out" / p, SAMPLES / p, shallow=False)]
    assert differs == [], f"regenerate with `python sample_sessions/make_samples.py`: {differs}"
    committed = {
        str(p.relative_to(SAMPLES))
        for p in SAMPLES.rglob("*")
        if p.is_file() and "samplegen" not in p.parts and "__pycache__" not in p.parts
        and p.name not in ("README.md", "make_samples.py")
    }
    assert committed == set(written), "files in sample_sessions/ that the generator does not make"


# -- session files ----------------------------------------------------------------------------------


def test_readme_describes_every_sample():
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    missing = [name for name in [*SESSION_FILES, *STREAM_FILES] if f"`{name}`" not in readme]
    assert missing == []


def test_every_session_sample_is_listed():
    assert set(SESSION_FILES) == {
        "fix-auth.jsonl", "ttsr-fired.jsonl", "legacy-v1.jsonl", "broken-line.jsonl",
        "omp-title-slot.jsonl", "big-refactor.jsonl", "omp18-billing.jsonl", "omp18-subagent.jsonl",
    }


@pytest.mark.parametrize("name", SESSION_FILES)
def test_session_sample_loads_with_only_expected_diagnostics(name):
    session = load_session(SAMPLES / name)
    got = [(d.line, d.kind) for d in session.diagnostics]
    assert got == EXPECTED_DIAGNOSTICS.get(name, []), [str(d) for d in session.diagnostics]
    assert session.entries, "no entries loaded"


def _children(session):
    kids: dict[str | None, list] = {}
    for e in session.entries:
        kids.setdefault(e.parent_id, []).append(e)
    return kids


def test_fix_auth_has_branches_labels_summary_and_compaction():
    session = load_session(SAMPLES / "fix-auth.jsonl")
    assert 60 <= len(session.entries) <= 150
    widths = sorted((len(v) for v in _children(session).values()), reverse=True)
    assert widths[:2] == [3, 2]  # three branches from the analysis, and a nested one
    types = [e.type for e in session.entries]
    for kind in ("branch_summary", "compaction", "model_change", "thinking_level_change", "session_info"):
        assert kind in types
    label_entries = [e for e in session.entries if e.type == "label"]
    assert any(e.get("label") == "" for e in label_entries), "one label must be cleared"
    assert set(SessionTree(session).labels.values()) == {"root-cause", "approach-a", "approach-c", "fix"}
    tools = {b["name"] for e in session.entries if e.role == "assistant" for b in e.message["content"] if b["type"] == "toolCall"}
    assert {"read", "edit", "bash"} <= tools
    texts = [b.get("text", "") for e in session.entries if e.role == "assistant" for b in e.message["content"]]
    assert any("<script>alert(1)</script>" in t and "<b>" in t for t in texts)
    context = build_session_context(session, flavor="pi")
    assert context.messages[0]["role"] == "compactionSummary"


def test_ttsr_fired_records_an_interrupt_and_a_folded_reminder():
    session = load_session(SAMPLES / "ttsr-fired.jsonl")
    entries = list(session.entries)
    aborted = [i for i, e in enumerate(entries) if e.role == "assistant" and e.message.get("stopReason") == "aborted"]
    assert len(aborted) == 1
    injection = entries[aborted[0] + 1]
    assert injection.type == "custom_message" and injection.get("customType") == "ttsr-injection"
    assert injection.get("display") is False and injection.get("details") == {"rules": ["no-unwrap"]}
    assert injection.get("content").startswith('<system-interrupt reason="rule_violation" rule="no-unwrap"')
    assert entries[aborted[0] + 2].type == "ttsr_injection"
    folded = [e for e in entries if e.role == "toolResult" and "<system-reminder" in e.message["content"][0].get("text", "")]
    assert len(folded) == 1 and len(folded[0].message["content"]) == 2
    context = build_session_context(session, flavor="omp")
    assert list(context.injected_ttsr_rules) == ["no-unwrap", "no-console-log"]


def test_legacy_v1_is_migrated_with_its_compaction_index():
    session = load_session(SAMPLES / "legacy-v1.jsonl")
    assert session.version == 1
    compaction = next(e for e in session.entries if e.type == "compaction")
    assert "firstKeptEntryIndex" in compaction.raw
    kept = session.by_id[compaction.get("firstKeptEntryId")]
    assert kept.role == "user" and "printed nothing useful" in str(kept.message["content"])


def test_title_slot_is_256_bytes_and_overrides_the_header_title():
    first = (SAMPLES / "omp-title-slot.jsonl").read_bytes().split(b"\n", 1)[0]
    assert len(first) + 1 == 256
    session = load_session(SAMPLES / "omp-title-slot.jsonl")
    assert session.header["title"] == "login rate limit"
    assert session.title == "Rate-limit /login per IP"


def test_omp18_samples_hold_every_entry_type_omp_18_writes():
    from workbench.sessions.flavors import detect_flavor
    from workbench.sessions.structure import KNOWN_TYPES18

    billing = load_session(SAMPLES / "omp18-billing.jsonl")
    sub = load_session(SAMPLES / "omp18-subagent.jsonl")
    types = {e.type for e in billing.entries} | {e.type for e in sub.entries}
    assert types == set(KNOWN_TYPES18)
    assert sub.entries[0].type == "session_init"
    assert detect_flavor(billing).flavor == "omp18" and detect_flavor(sub).flavor == "omp18"
    assert billing.title == "Invoice rounding in billing" and billing.title_slot is not None
    # /clear: the omp18 context at the leaf starts after the reset boundary.
    context = build_session_context(billing, flavor="omp18")
    boundary = next(e for e in billing.entries if e.type == "reset_boundary")
    assert context.reset_boundary_id == boundary.id
    assert context.messages[0]["role"] == "user" and "CHANGELOG" in str(context.messages[0]["content"])


def test_big_refactor_is_about_a_thousand_entries_and_branched():
    session = load_session(SAMPLES / "big-refactor.jsonl")
    assert 900 <= len(session.entries) <= 1100
    assert sum(1 for v in _children(session).values() if len(v) > 1) >= 3


# -- streams ----------------------------------------------------------------------------------------

# stream -> (rule, event type at the rule's first trigger, replay event that must follow). The AST rule
# fires at toolcall_end: the agent checks ast-grep conditions only on the finished call (its
# coordinator, 18.3.4), although the partial new_string already holds `(req as any)` mid-stream.
STREAM_TRIGGERS = {
    "prose-unwrap.stream.jsonl": ("no-unwrap", "text_delta", "abort"),
    "tool-console-log.stream.jsonl": ("no-console-log", "toolcall_delta", "reminder"),
    "ast-as-any.stream.jsonl": ("ts-no-as-any", "toolcall_end", "abort"),
}


def test_every_stream_sample_is_listed():
    assert set(STREAM_FILES) == set(STREAM_TRIGGERS)


@pytest.mark.parametrize("name", STREAM_FILES)
def test_stream_sample_reads(name):
    stream = read_stream(SAMPLES / "streams" / name)
    assert stream.header.version == 1 and stream.header.cwd and stream.header.note
    assert stream.turn_count() >= 2


@pytest.mark.parametrize("name", STREAM_FILES)
def test_stream_sample_triggers_its_rule(name, tmp_path):
    rule, event_type, action = STREAM_TRIGGERS[name]
    stream = read_stream(SAMPLES / "streams" / name)
    stepper = Stepper(stream, _project_rules(tmp_path).rules, ReplayConfig(cwd=str(PROJECT)))
    first = stepper.next_trigger(-1)
    # another rule may act first (the bundled regex ts-no-any on the as-any edit, never interrupting)
    while first is not None and rule not in stepper.seek(first).matched:
        first = stepper.next_trigger(first)
    assert first is not None
    snap = stepper.seek(first)
    assert rule in snap.matched and snap.event.type == event_type
    acted = [e for e in stepper.result().events if e.type == action]
    assert acted and rule in acted[0].rules


def test_prose_rule_fires_in_the_middle_of_a_delta(tmp_path):
    stream = read_stream(SAMPLES / "streams" / "prose-unwrap.stream.jsonl")
    stepper = Stepper(stream, _project_rules(tmp_path).rules, ReplayConfig(cwd=str(PROJECT)))
    snap = stepper.seek(stepper.next_trigger(-1))
    assert ".unwrap()" not in snap.event.delta  # the match spans the previous delta and this one


# -- project rules ----------------------------------------------------------------------------------


def test_project_rules_discovery_warnings(tmp_path):
    result = _project_rules(tmp_path)
    warnings = [str(w) for w in result.warnings]
    assert len(warnings) == len(EXPECTED_LOAD_WARNINGS), warnings
    for (prefix, message, rel), text in zip(EXPECTED_LOAD_WARNINGS, warnings):
        assert text.startswith(prefix + message), text
        assert os.path.join(str(PROJECT), rel) in text


def test_project_rules_shadowing_and_buckets(tmp_path):
    result = _project_rules(tmp_path)
    shadowed = sorted((i.rule.name, i.provider) for i in result.items if i.shadowed_by)
    assert shadowed == [("no-unwrap", "cursor"), ("ts-no-as-any", "cursor")]
    manager = TtsrManager()
    buckets = bucket_rules(result.rules, manager)

    def names(bucket):
        return {b.rule.name if hasattr(b, "rule") else b.name for b in bucket}

    ours = {r.name for r in result.rules if not r.path.startswith("builtin-defaults:")}
    assert names(buckets.ttsr) & ours == {"no-unwrap", "no-console-log", "ts-no-as-any", "pathlib", "rust-no-panic"}
    assert names(buckets.always_apply) & ours == {"RULES@project", "python-scripts", "repo"}
    assert names(buckets.rulebook) & ours == {"commit-messages", "http-errors", "no-print-debug", "changelog", "typescript"}
    # The only registration warning: the Python-style named group in no-print-debug.
    assert [(d.message, d.context.get("ruleName")) for d in manager.diagnostics] == [
        ("TTSR condition has invalid regex pattern, skipping condition", "no-print-debug")
    ]
    recovered = next(r for r in result.rules if r.name == "pathlib")
    assert tuple(recovered.globs) == ("*.py",) and recovered.condition


def test_rule_examples_cover_each_kind_and_pass(tmp_path):
    from workbench.rulecheck import run_rule_examples

    with_examples = [r for r in _project_rules(tmp_path).rules if r.frontmatter and "examples" in r.frontmatter
                     and not r.path.startswith("builtin-defaults:")]  # the bundled rules' own: tests/rules
    assert {r.name for r in with_examples} == {"no-unwrap", "no-console-log", "ts-no-as-any"}
    kinds = {k for r in with_examples for ex in r.frontmatter["examples"] for k in ("text", "thinking", "tool") if k in ex}
    assert kinds == {"text", "thinking", "tool"}
    for rule in with_examples:
        report = run_rule_examples(rule)
        assert report.ok and len(report.results) == len(rule.frontmatter["examples"]), report.to_json()

"""Drafts, diffs, safe saves and examples appended to a rule file (``workbench.ui.drafts``, no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import NotFoundError, RuleFileError, UsageError
from workbench.rules import parse_frontmatter
from workbench.rules.examples import parse_examples
from workbench.ui.drafts import (
    DraftBook,
    append_example,
    draft_rules,
    example_item,
    save_rule_file,
    unified_diff,
)

RULE = """---
description: no unwrap # keep this comment
condition: "\\\\.unwrap\\\\("
examples:
  - text: "x.unwrap()"
    triggers: true

  # a comment inside the list
scope: text
---
Body text.
"""


def _examples(text: str):
    return parse_examples(parse_frontmatter(text).frontmatter)


def test_append_to_an_existing_list_inserts_lines_only():
    item = example_item("text", 'say "hi": ok\nnext line', triggers=False, note="quotes, colon, newline")
    new = append_example(RULE, item)
    old_lines, new_lines = RULE.splitlines(), new.splitlines()
    # the old file is the new one minus exactly the inserted item lines
    inserted = [line for line in new_lines if line not in old_lines]
    assert len(inserted) == 3 and inserted[0].startswith("  - text: ")
    assert [line for line in new_lines if line in old_lines] == old_lines
    examples = _examples(new)
    assert [e.text for e in examples] == ["x.unwrap()", 'say "hi": ok\nnext line']
    assert examples[1].triggers is False and examples[1].note == "quotes, colon, newline"
    assert new.index("  - text: \"say") < new.index("  # a comment inside the list")


def test_append_creates_the_key_or_the_frontmatter():
    no_key = "---\ncondition: foo\n---\nBody\n"
    new = append_example(no_key, example_item("thinking", "foo here", triggers=True))
    assert new == '---\ncondition: foo\nexamples:\n  - thinking: "foo here"\n    triggers: true\n---\nBody\n'
    empty = "---\ncondition: foo\nexamples: []\n---\nBody\n"
    assert [e.kind for e in _examples(append_example(empty, example_item("text", "a", triggers=True)))] == ["text"]
    bare = append_example("Just a body\n", example_item("text", "a", triggers=True))
    assert bare.endswith("---\nJust a body\n") and len(_examples(bare)) == 1


def test_tool_examples_use_the_tool_form():
    item = example_item("tool", "console.log(1)", triggers=True, tool_name="edit", path="src/a.ts")
    assert item == {"tool": "edit", "path": "src/a.ts", "new_string": "console.log(1)", "triggers": True}
    ex = _examples(append_example("---\ncondition: x\n---\n", item))[0]
    assert (ex.kind, ex.tool, ex.path) == ("tool", "edit", "src/a.ts")
    write = example_item("tool", "x", triggers=False)
    assert write == {"tool": "write", "content": "x", "triggers": False}


def test_flow_style_lists_are_refused_not_rewritten():
    with pytest.raises(RuleFileError, match="flow style"):
        append_example("---\nexamples: [{text: a, triggers: true}]\n---\n", example_item("text", "b", triggers=True),
                       path="r.md")


def test_save_shows_a_diff_and_refuses_a_file_changed_meanwhile(tmp_path: Path):
    f = tmp_path / "r.md"
    f.write_text(RULE, encoding="utf-8")
    f.chmod(0o640)
    new = RULE.replace("scope: text", "scope: text, thinking")
    diff = unified_diff(RULE, new, "r.md")
    assert "-scope: text\n+scope: text, thinking\n" in diff and diff.startswith("--- a/r.md\n+++ b/r.md\n")
    assert unified_diff(RULE, RULE, "r.md") == ""
    f.write_text(RULE + "changed elsewhere\n", encoding="utf-8")
    with pytest.raises(UsageError, match="changed on disk"):
        save_rule_file(f, new, expected=RULE)
    assert f.read_text(encoding="utf-8").endswith("changed elsewhere\n")
    f.write_text(RULE, encoding="utf-8")
    save_rule_file(f, new, expected=RULE)
    assert f.read_text(encoding="utf-8") == new
    assert f.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temp file left behind
    with pytest.raises(NotFoundError):
        save_rule_file(tmp_path / "gone.md", new, expected=RULE)


def test_draft_book_in_memory_and_on_disk(tmp_path: Path):
    book = DraftBook(tmp_path / ".workbench" / "drafts")
    book.keep("wider match", {"r": "---\ncondition: y\n---\n"}, persist=True)
    book.keep("memory only", {"r": "---\ncondition: z\n---\n"})
    assert book.names() == ["memory only", "wider match"]
    again = DraftBook(tmp_path / ".workbench" / "drafts")
    assert again.names() == ["wider match"] and again.get("wider match") == {"r": "---\ncondition: y\n---\n"}
    for bad in ("", "../escape", "x" * 80):
        with pytest.raises(UsageError):
            book.keep(bad, {"r": "t"})
    with pytest.raises(UsageError, match="nothing to keep"):
        book.keep("empty", {})
    with pytest.raises(NotFoundError):
        book.get("nope")


def test_draft_rules_rebuild_only_the_drafted_rule(tmp_path: Path):
    from workbench.rules import build_rule_from_markdown

    a = build_rule_from_markdown("a.md", "---\ncondition: foo\n---\nA\n", str(tmp_path / "a.md"), None)
    b = build_rule_from_markdown("b.md", "---\ncondition: bar\n---\nB\n", str(tmp_path / "b.md"), None)
    out = draft_rules([a, b], {"a": "---\ncondition: foo|baz\n---\nA\n"})
    assert out[1] is b and out[0].condition == ("foo|baz",) and out[0].path == a.path
    with pytest.raises(NotFoundError, match="zzz"):
        draft_rules([a], {"zzz": ""})

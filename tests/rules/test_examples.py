"""The ``examples`` frontmatter key: the example model and its validation."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.rules import parse_frontmatter
from workbench.rules.examples import (
    RuleExample,
    example_line,
    has_examples,
    parse_examples,
)


def examples_of(yaml_block: str) -> tuple[RuleExample, ...]:
    parsed = parse_frontmatter(f"---\n{yaml_block}\n---\nbody")
    return parse_examples(parsed.frontmatter, path="rules/r.md")


def error_of(yaml_block: str) -> InputError:
    with pytest.raises(InputError) as info:
        examples_of(yaml_block)
    return info.value


def test_text_thinking_and_tool_examples_parse_in_order():
    got = examples_of(
        "examples:\n"
        "  - text: 'let v = res.unwrap();'\n    triggers: true\n"
        "  - thinking: just unwrap it\n    triggers: false\n    note: thinking is not watched\n"
        "  - tool: edit\n    path: src/a.rs\n    new_string: x.unwrap()\n    triggers: true\n"
        "  - tool: apply_patch\n    args: {input: '*** Begin Patch'}\n    triggers: false\n"
    )
    assert [(e.index, e.kind, e.triggers) for e in got] == [
        (0, "text", True), (1, "thinking", False), (2, "tool", True), (3, "tool", False)]
    assert got[0].text == "let v = res.unwrap();" and got[0].path is None
    assert got[1].note == "thinking is not watched" and got[1].label == "examples[1] (thinking is not watched)"
    assert got[2].tool == "edit" and dict(got[2].args) == {"path": "src/a.rs", "new_string": "x.unwrap()"}
    assert got[2].path == "src/a.rs"
    assert dict(got[3].args) == {"input": "*** Begin Patch"} and got[3].path is None


def test_text_example_may_name_the_file_it_is_written_to():
    (ex,) = examples_of("examples:\n  - text: x\n    path: lib/a.rs\n    triggers: true")
    assert ex.path == "lib/a.rs"
    assert ex.to_json() == {"index": 0, "kind": "text", "triggers": True, "text": "x", "path": "lib/a.rs"}


def test_absent_key_means_no_examples():
    assert examples_of("description: d") == ()
    assert not has_examples({"description": "d"})
    assert has_examples({"examples": []})


@pytest.mark.parametrize(
    ("block", "field", "words"),
    [
        ("examples: just one", "examples", "must be a list"),
        ("examples:\n  - plain string", "examples[0]", "must be a mapping"),
        ("examples:\n  - text: a\n    thinking: b\n    triggers: true", "examples[0]", "exactly one of"),
        ("examples:\n  - triggers: true", "examples[0]", "found none"),
        ("examples:\n  - text: a", "examples[0].triggers", "missing"),
        # YAML 1.2: `yes` is a string, not a boolean.
        ("examples:\n  - text: a\n    triggers: yes", "examples[0].triggers", "true or false"),
        ("examples:\n  - text: 12\n    triggers: true", "examples[0].text", "must be a string"),
        ("examples:\n  - text: a\n    trigger: true\n    triggers: true", "examples[0].trigger", "unknown key"),
        ("examples:\n  - text: a\n    triggers: true\n  - tool: ''\n    content: x\n    triggers: true",
         "examples[1].tool", "tool name"),
        ("examples:\n  - tool: edit\n    triggers: true", "examples[0]", "needs args"),
        ("examples:\n  - tool: edit\n    args: {path: a}\n    path: b\n    triggers: true", "examples[0].args", "not both"),
        ("examples:\n  - tool: edit\n    args: [1]\n    triggers: true", "examples[0].args", "mapping"),
        ("examples:\n  - tool: write\n    content: [1]\n    triggers: true", "examples[0].content", "string"),
        ("examples:\n  - tool: edit\n    path: a\n    edits: x\n    triggers: true", "examples[0].edits", "list"),
        ("examples:\n  - text: a\n    note: 3\n    triggers: true", "examples[0].note", "string"),
    ],
)
def test_bad_examples_name_the_file_and_field(block, field, words):
    err = error_of(block)
    assert err.path == "rules/r.md"
    assert err.field == field
    assert words in err.message
    assert str(err).startswith(f"rules/r.md: field '{field}'")


def test_example_line_finds_items_from_yaml_node_marks(tmp_path):
    path = tmp_path / "r.md"
    path.write_text("---\ncondition: x\nexamples:\n  - text: a\n    triggers: true\n\n  - text: b\n    triggers: false\n---\nb")
    assert example_line(path) == 3
    assert [example_line(path, i) for i in (0, 1)] == [4, 7]
    # Marks, not patterns: a flow-style list, a comment holding "examples:" and a quoted key.
    flow = tmp_path / "flow.md"
    flow.write_text("---\n# examples: not here\ncondition: x\n'examples': [{text: a, triggers: true},\n  {text: b, triggers: false}]\n---\nb")
    assert example_line(flow) == 4
    assert [example_line(flow, i) for i in (0, 1, 5)] == [4, 5, 4]
    none = tmp_path / "none.md"
    none.write_text("---\ncondition: x\n---\nb")
    assert example_line(none) is None
    assert example_line(tmp_path / "missing.md") is None

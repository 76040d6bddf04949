"""build_rule_from_markdown: names, coercions, and frontmatter warnings."""

from __future__ import annotations

from workbench.rules import RuleSource, build_rule_from_markdown

SOURCE = RuleSource(provider="test", provider_name="Test", path="/x/r.md", level="project")


def build(content: str, name: str = "r.md", **kwargs):
    return build_rule_from_markdown(name, content, f"/x/{name}", SOURCE, **kwargs)


def test_name_comes_from_the_file_name_with_one_suffix_stripped():
    assert build("---\nname: other\n---\nb", name="file-name.md").name == "file-name"
    assert build("b", name="x.md.mdc").name == "x.md"
    assert build("b", name="x.txt").name == "x.txt"
    assert build("b", rule_name="forced").name == "forced"
    assert build("b", name="x.instructions.md", strip_name_pattern=r"\.instructions\.md$").name == "x"


def test_field_coercions():
    rule = build(
        "---\nglobs: ['*.ts', 3]\nalwaysApply: 'true'\ndescription: 7\ninterruptMode: Never\n---\nbody"
    )
    assert rule.globs == ("*.ts",)
    assert rule.always_apply is False
    assert rule.description is None
    assert rule.interrupt_mode is None
    assert rule.content == "body"
    assert rule.path == "/x/r.md"
    assert rule.source == SOURCE


def test_string_globs_are_not_split_and_mode_is_kept_when_valid():
    rule = build("---\nglobs: 'a, b'\ninterrupt-mode: prose-only\nalways-apply: true\n---\nbody")
    assert rule.globs == ("a, b",)
    assert rule.interrupt_mode == "prose-only"
    assert rule.always_apply is True


def test_trigger_fields_and_frontmatter_are_kept():
    rule = build("---\ncondition: '*.rs'\nexamples: [1]\n---\nbody")
    assert rule.condition == (".*",)
    assert rule.scope == ("tool:edit(*.rs)", "tool:write(*.rs)")
    assert rule.frontmatter == {"condition": "*.rs", "examples": [1]}


def test_frontmatter_warnings_name_the_file():
    warnings: list[str] = []
    rule = build("---\nbad: [\n---\nbody", warnings=warnings)
    assert rule.content == "body"
    assert len(warnings) == 1 and "/x/r.md" in warnings[0]

"""Frontmatter parsing: YAML 1.2 scalars, the repair retry, the line fallback and warnings."""

from __future__ import annotations

import pytest

from workbench.errors import RuleFileError
from workbench.rules import parse_frontmatter


def fm(text: str, **options):
    return parse_frontmatter(f"---\n{text}\n---\nbody", **options)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("yes", "yes"),
        ("on", "on"),
        ("off", "off"),
        ("True", True),
        ("FALSE", False),
        ("010", 10),
        ("0o10", 8),
        ("0x1F", 31),
        ("1_000", "1_000"),
        ("2024-01-01", "2024-01-01"),
        (".inf", None),
        ("~", None),
        ("null", None),
        ("", None),
        ("1.5", 1.5),
        ("1e3", 1000),
    ],
)
def test_scalars_follow_yaml_1_2_core_schema(value, expected):
    result = fm(f"key: {value}")
    assert result.frontmatter == {"key": expected}
    assert not result.warned


def test_body_is_trimmed_only_when_frontmatter_is_closed():
    assert parse_frontmatter("---\na: 1\n---\n\n  body \n").body == "body"
    unclosed = parse_frontmatter("---\na: 1\nbody\n")
    assert unclosed.frontmatter == {}
    assert unclosed.body == "---\na: 1\nbody\n"


def test_text_without_frontmatter_keeps_its_body_untrimmed():
    assert parse_frontmatter("\n  plain\n").body == "\n  plain\n"


def test_html_comments_are_removed_everywhere_and_a_leading_one_hides_the_frontmatter():
    result = parse_frontmatter("---\na: 1 <!-- note -->\n---\nx <!-- multi\nline --> y")
    assert result.frontmatter == {"a": 1}
    assert result.body == "x  y"
    leading = parse_frontmatter("<!-- c -->\n---\na: 1\n---\nb")
    assert leading.frontmatter == {}
    assert leading.body.startswith("\n---")


def test_crlf_and_lone_cr_are_normalised():
    assert parse_frontmatter("---\r\na: 1\ra2: 2\r\n---\r\nbody\r\n").frontmatter == {"a": 1, "a2": 2}


def test_kebab_keys_become_camel_case_recursively_but_underscores_stay():
    result = fm("always-apply: true\nttsr_trigger: x\nouter-key:\n  inner-key: 1")
    assert result.frontmatter == {"alwaysApply": True, "ttsr_trigger": "x", "outerKey": {"innerKey": 1}}
    raw = fm("always-apply: true", raw_keys=True)
    assert raw.frontmatter == {"always-apply": True}


def test_non_mapping_yaml_counts_as_empty_without_warning():
    for text in ("- a\n- b", "just a string", "~"):
        result = fm(text)
        assert result.frontmatter == {}
        assert not result.warned


def test_colon_space_values_are_repaired_by_quoting():
    result = fm("description: Use this: not that\ncondition: x")
    assert result.frontmatter == {"description": "Use this: not that", "condition": "x"}
    assert not result.warned


def test_tabs_are_replaced_before_parsing():
    assert fm("a:\n\t- x").frontmatter == {"a": ["x"]}


def test_unrecoverable_yaml_warns_naming_the_file_and_falls_back_per_line():
    result = fm('invalid: [unclosed array\ncount: 3\nlist: [a, b]\nscope: "text","thinking"', source="broken.md")
    assert result.warned
    assert "broken.md" in result.warnings[0]
    assert result.warnings[0].startswith("Failed to parse YAML frontmatter (broken.md): ")
    assert result.frontmatter == {
        "invalid": "[unclosed array",
        "count": 3,
        "list": ["a", "b"],
        "scope": '"text","thinking"',
    }


def test_alias_looking_glob_falls_back_to_the_raw_string():
    result = fm("globs: *.ts\nempty:")
    assert result.frontmatter == {"globs": "*.ts", "empty": ""}
    assert result.warned


def test_warning_source_defaults_to_truncated_inline_content():
    content = "---\nbad: [\n---\n" + "x" * 100
    warning = parse_frontmatter(content).warnings[0]
    assert "(Inline '" + content[:63] + "…')" in warning


def test_fatal_level_raises_and_off_level_is_silent():
    with pytest.raises(RuleFileError, match="r.md"):
        fm("bad: [", source="r.md", level="fatal")
    assert not fm("bad: [", level="off").warned


def test_fallback_values_are_merged_under_parsed_ones():
    result = fm("a: 1", fallback={"a": 0, "b": 2})
    assert result.frontmatter == {"a": 1, "b": 2}

"""Templates, placeholder substitution, the post-render formatter and display paths (§8.7)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from workbench.errors import InputError
from workbench.ttsr.templates import (
    DEFAULT_INTERRUPT_TEMPLATE,
    DEFAULT_TOOL_REMINDER_TEMPLATE,
    display_path,
    format_prompt,
    load_template,
    render_rules,
    render_template,
    substitute,
)

# The tag structure the reference's interrupt template has (wording here is a stand-in).
TAGGED = (
    '<system-interrupt reason="rule_violation" rule="{{name}}" path="{{path}}">\n'
    "Comply:\n\n{{content}}\n</system-interrupt>\n"
)


@dataclass(frozen=True)
class FakeRule:
    name: str
    path: str
    content: str


# --- default templates ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "tag"),
    [(DEFAULT_INTERRUPT_TEMPLATE, "system-interrupt"), (DEFAULT_TOOL_REMINDER_TEMPLATE, "system-reminder")],
)
def test_default_templates_keep_the_reference_tag_structure(template, tag):
    assert template.startswith(f'<{tag} reason="rule_violation" rule="{{{{name}}}}" path="{{{{path}}}}">\n')
    assert template.endswith(f"\n\n{{{{content}}}}\n</{tag}>\n")
    out = render_template(template, name="r", path="p.md", content="Body")
    assert out.startswith(f'<{tag} reason="rule_violation" rule="r" path="p.md">')
    assert out.endswith(f"\nBody\n</{tag}>")
    # Our own wording, not the reference's sentences.
    assert "Output interrupted" not in template and "Rule configured not to interrupt" not in template


# --- substitution --------------------------------------------------------------------------------


def test_substitution_does_not_escape_html_or_reparse_values():
    assert substitute("{{content}}", {"content": '<a> & "b" {{name}}'}) == '<a> & "b" {{name}}'


def test_substitution_variants():
    values = {"name": "n", "path": "p"}
    assert substitute("{{ name }}|{{{path}}}|{{this.name}}|{{missing}}|", values) == "n|p|n||"
    assert substitute("a   {{~name~}}   b", values) == "anb"
    assert substitute("\\{{name}}", values) == "{{name}}"
    assert substitute("x\n  {{! a comment }}\ny {{!-- c --}}z", values) == "x\ny z"


def test_if_and_unless_blocks_with_standalone_lines():
    # The shape later agent versions use for optional evidence.
    template = "<t>\n{{content}}\n{{#if evidence}}\n\n<matched>\n{{evidence}}\n</matched>\n{{/if}}\n</t>\n"
    assert substitute(template, {"content": "C"}) == "<t>\nC\n</t>\n"
    assert substitute(template, {"content": "C", "evidence": "E"}) == "<t>\nC\n\n<matched>\nE\n</matched>\n</t>\n"
    inline = "{{#unless path}}no path{{else}}at {{path}}{{/unless}}"
    assert substitute(inline, {}) == "no path"
    assert substitute(inline, {"path": "p"}) == "at p"
    nested = "{{#if a}}A{{#if b}}B{{else}}b{{/if}}{{else}}-{{/if}}"
    assert [substitute(nested, v) for v in ({}, {"a": 1}, {"a": 1, "b": 1})] == ["-", "Ab", "AB"]
    assert substitute("  {{#if a}}  \nx\n  {{/if}}\ny", {"a": "1"}) == "x\ny"


@pytest.mark.parametrize(
    "template",
    [
        "{{#each rules}}x{{/each}}",
        "{{> partial}}",
        "{{else}}",
        "{{lookup a b}}",
        "{{#if a}}x",
        "x{{/if}}",
        "{{#if a}}x{{/unless}}",
        "{{#if a}}{{else}}{{else}}{{/if}}",
    ],
)
def test_unsupported_handlebars_is_an_input_error(template):
    with pytest.raises(InputError):
        substitute(template, {})


# --- the post-render formatter ------------------------------------------------------------------


def test_format_trims_trailing_whitespace_and_final_blank_lines():
    assert format_prompt("a  \nb\t\n\n\n") == "a\nb"


def test_format_removes_blank_runs_entirely_but_keeps_a_single_blank():
    assert format_prompt("a\n\nb") == "a\n\nb"
    assert format_prompt("a\n\n\nb") == "a\nb"
    assert format_prompt("a\n \n\t\nb") == "a\nb"


def test_format_drops_leading_blanks_and_blanks_before_closing_tags():
    assert format_prompt("\n\na\n") == "a"
    assert format_prompt("\na") == "a"
    assert format_prompt("<x>\nbody\n\n</x>") == "<x>\nbody\n</x>"
    assert format_prompt("<x>\nbody\n\n  </x>") == "<x>\nbody\n  </x>"
    # Not a closing tag line: the blank stays.
    assert format_prompt("a\n\n</X>") == "a\n\n</X>"


def test_format_keeps_code_fences_verbatim_except_trailing_spaces():
    text = "```\nkeep  \n\n\nblank\n```\n~~~py\n| a |  b |\n~~~"
    assert format_prompt(text) == "```\nkeep\n\n\nblank\n```\n~~~py\n| a |  b |\n~~~"


def test_format_compacts_tables():
    text = "| Name  |  Kind |\n| :--- | ---: |\n|  :-: | --- |\n|   x   |  y  |"
    assert format_prompt(text) == "|Name|Kind|\n|:---|---:|\n|:---:|---|\n|x|y|"
    assert format_prompt("  | a | b |") == "  |a|b|"


def test_blank_run_removal_merges_a_body_leading_blank_with_the_template_blank():
    out = render_template(TAGGED, name="r", path="p", content="\n\nfirst line")
    assert out.endswith("Comply:\nfirst line\n</system-interrupt>")


# --- display path and render_rules -------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule_path", "expected"),
    [
        ("/repo/.omp/rules/a.md", ".omp/rules/a.md"),
        (".omp/rules/a.md", ".omp/rules/a.md"),
        ("/home/u/.omp/rules/b.md", "~/.omp/rules/b.md"),
        ("/etc/rules/c.md", "/etc/rules/c.md"),
        ("/repo", "/repo"),
        ("builtin-defaults:ts-no-any.md", "builtin-defaults:ts-no-any.md"),
    ],
)
def test_display_path(rule_path, expected):
    assert display_path(rule_path, "/repo", "/home/u") == expected


def test_display_path_prefers_cwd_when_cwd_is_inside_home():
    assert display_path("/home/u/proj/r.md", "/home/u/proj", "/home/u") == "r.md"
    assert display_path("/home/u/other/r.md", "/home/u/proj", "/home/u") == "~/other/r.md"
    assert display_path("/home/u/r.md", "/x", None) == "/home/u/r.md"


def test_render_rules_joins_with_one_blank_line():
    rules = [FakeRule("one", "/repo/a.md", "A"), FakeRule("two", "/home/u/b.md", "B")]
    out = render_rules(rules, TAGGED, cwd="/repo", home="/home/u")
    blocks = out.split("\n\n<system-interrupt")
    assert len(blocks) == 2
    assert 'rule="one" path="a.md"' in blocks[0] and 'rule="two" path="~/b.md"' in blocks[1]
    assert render_rules(rules, TAGGED, cwd="/repo", home="/home/u", join="\n---\n").count("\n---\n") == 1


def test_render_rules_rejects_swapped_arguments():
    rules = [FakeRule("one", "/repo/a.md", "A")]
    with pytest.raises(TypeError):
        render_rules(TAGGED, rules, cwd="/repo")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        render_rules(rules, TAGGED, "/repo")  # type: ignore[misc]


# --- user templates -----------------------------------------------------------------------------


def test_load_template_reads_a_user_file(tmp_path):
    path = tmp_path / "interrupt.md"
    path.write_text('<rule name="{{name}}">\n{{content}}\n</rule>\n', encoding="utf-8")
    assert load_template(path) == path.read_text(encoding="utf-8")


def test_load_template_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.md"
    with pytest.raises(InputError) as err:
        load_template(missing)
    assert str(missing) in str(err.value)
    bad = tmp_path / "bad.md"
    bad.write_text("<r>\n{{#with rule}}x{{/with}}\n</r>\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_template(bad)
    assert str(bad) in str(err.value) and "template" in str(err.value)
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError):
        load_template(binary)

"""System-prompt rendering of rules and the rule:// protocol."""

from __future__ import annotations

import pytest

from workbench.errors import NotFoundError, UsageError
from workbench.rules import Rule, render_system_prompt, resolve_rule_url


def rule(name: str, content: str = "body", **fields) -> Rule:
    return Rule(name=name, path=f"/r/{name}.md", content=content, **fields)


def test_default_layout_lists_generic_and_domain_rules():
    text = render_system_prompt(
        [rule("sticky", "Always be brief.")],
        [rule("py", description="Python style", globs=("*.py", "*.pyi")), rule("nog", description="no globs")],
    )
    assert "<generic-rules>\nAlways be brief.\n</generic-rules>" in text
    assert "- py (*.py, *.pyi): Python style" in text
    assert "- nog (): no globs" in text
    assert "rule://py" in text
    assert "Read relevant skills and rules first." in text


def test_always_apply_body_already_in_a_source_is_not_repeated():
    sticky = rule("sticky", "First block.\n\nSecond block.  ")
    other = rule("other", "Not present.")
    text = render_system_prompt([sticky, other], [], sources=["Intro\n\n\nFirst block.\nSecond block.", "First block.\n\nSecond block.\n\nTail"])
    assert "First block." not in text
    assert "Not present." in text
    assert render_system_prompt([sticky], [], sources=["First block."]).count("First block.") == 1


def test_custom_layout():
    text = render_system_prompt([rule("s", "Inline me.")], [rule("py", description="Python", globs=("*.py",))], custom=True)
    assert text.startswith("Inline me.")
    assert "You MUST read `rule://<name>` when working in that domain." in text
    assert '<rule name="py">\nPython\n<glob>*.py</glob>\n</rule>' in text


def test_rule_url_resolution_and_errors():
    rules = [rule("a", "héllo"), rule("b")]
    resource = resolve_rule_url("rule://a", rules)
    assert resource.content == "héllo"
    assert resource.size == 6
    assert resource.content_type == "text/markdown"
    assert resource.source_path == "/r/a.md"
    with pytest.raises(UsageError, match=r"rule:// URL requires a rule name: rule://<name>"):
        resolve_rule_url("rule://", rules)
    with pytest.raises(NotFoundError) as info:
        resolve_rule_url("rule://zzz", rules)
    assert str(info.value) == "Unknown rule: zzz\nAvailable: a, b"
    with pytest.raises(NotFoundError, match="Available: none"):
        resolve_rule_url("rule://A", [])

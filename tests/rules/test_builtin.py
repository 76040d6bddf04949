"""The project's bundled rules: each registers with the engine and fires only where it should."""

from __future__ import annotations

import pytest

from workbench.rules import load_rules

# (rule, file the edit targets, text that must trigger, text that must not)
SAMPLES = [
    ("rs-no-unwrap", "src/lib.rs", "let v = parse(s).unwrap();", "let v = parse(s)?;"),
    ("ts-no-any", "src/a.ts", "const x = y as any;", "const x: unknown = y;"),
    ("py-bare-except", "pkg/m.py", "try:\n    f()\nexcept:\n    pass\n", "try:\n    f()\nexcept ValueError:\n    pass\n"),
    ("py-mutable-default", "pkg/m.py", "def f(items=[]):\n    pass", "def f(items=None):\n    pass"),
    ("go-ignored-error", "main.go", "func main() {\n\t_ = f.Close()\n}", "func main() {\n\tif err := f.Close(); err != nil {}\n}"),
]


@pytest.fixture(scope="module")
def builtin_rules(tmp_path_factory):
    root = tmp_path_factory.mktemp("empty")
    result = load_rules(cwd=root, home=root, env={}, providers=["builtin-defaults"])
    assert not result.warnings
    return {r.name: r for r in result.rules}


def test_every_bundled_rule_has_a_sample(builtin_rules):
    assert sorted(builtin_rules) == sorted(name for name, *_ in SAMPLES)


@pytest.mark.parametrize(("name", "path", "bad", "good"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_bundled_rule_fires_on_its_target_only(builtin_rules, name, path, bad, good):
    from workbench.ttsr import MatchContext, TtsrManager

    def fires(text: str, file_path: str, source: str = "tool") -> bool:
        manager = TtsrManager(None)
        assert manager.add_rule(builtin_rules[name]), manager.diagnostics
        ctx = MatchContext(source=source, tool_name="edit", file_paths=(file_path,)) if source == "tool" else MatchContext(source=source)
        return name in [r.name for r in manager.check_snapshot(text, ctx)]

    assert fires(bad, path)
    assert not fires(good, path)
    assert not fires(bad, "notes/readme.md")
    assert not fires(bad, path, source="text")

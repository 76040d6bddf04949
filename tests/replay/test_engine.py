"""The replay's seam to the engine: edit-mode guessing, tool surfaces and templates."""

from __future__ import annotations

from pathlib import Path

from workbench.replay import engine


def test_edit_mode_is_guessed_from_the_argument_shape():
    assert engine.edit_mode_for("edit", {"path": "a", "new_string": "x"}, None) == "replace"
    assert engine.edit_mode_for("edit", {"path": "a", "edits": []}, None) == "patch"
    assert engine.edit_mode_for("edit", {"input": "[a.ts]\n+x"}, None) == "hashline"
    # 18.3.4's default mode, hashline, opens with `*** Begin Patch` too (src/edit/hashline-compact.md):
    # the envelope alone says nothing yet; its file headers do.
    assert engine.edit_mode_for("edit", {"input": "*** Begin Patch\n"}, None) == "hashline"
    assert engine.edit_mode_for("edit", {"input": "*** Begin Patch\n*** Update File: a\n"}, None) == "apply_patch"
    assert engine.edit_mode_for("apply_patch", {}, None) == "apply_patch"
    assert engine.edit_mode_for("bash", {"command": "ls"}, None) is None
    assert engine.edit_mode_for("edit", {"input": "x"}, "sloppy") == "sloppy"


def test_tool_surface_entries_and_paths():
    surface = engine.tool_surface("edit", {"input": "[src/a.ts]\n+one\n[b.md]\n+two\n"}, "/proj", None)
    assert surface.entries == (("src/a.ts", "one"), ("b.md", "two"))
    assert (surface.mode, surface.reason.split(" (")[0]) == ("hashline", "auto: hashline markers")
    assert surface.paths is not None and "/proj/src/a.ts" in surface.paths
    bash = engine.tool_surface("bash", {"command": "ls", "cwdPath": "sub"}, "/proj", None)
    assert bash.digest is None and bash.entries == () and "/proj/sub" in bash.paths


def test_templates_from_pairs_mappings_and_files(tmp_path):
    default_interrupt, default_reminder = engine.default_templates()
    assert engine.resolve_templates(None) == (default_interrupt, default_reminder)
    assert engine.resolve_templates(("I", None)) == ("I", default_reminder)
    assert engine.resolve_templates({"tool_reminder": "R"}) == (default_interrupt, "R")
    path = tmp_path / "ttsr-interrupt.md"
    path.write_text("<x rule=\"{{name}}\">{{content}}</x>\n")
    assert engine.resolve_templates({"interrupt": Path(path)})[0].startswith("<x rule=")

"""The dynamic-grammar shim: its C source, its cache, and the failure without a compiler."""

from __future__ import annotations

import pytest

from workbench.ttsr import ast_languages


def test_shim_exports_one_function_per_language() -> None:
    source = ast_languages._shim_source(["toml", "sql"])
    assert "const void *tree_sitter_toml(void) { return slots[0]; }" in source
    assert "const void *tree_sitter_sql(void) { return slots[1]; }" in source


def test_without_a_compiler_the_shim_cannot_be_built(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ast_languages, "_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(ast_languages.shutil, "which", lambda name: None)
    with pytest.raises(OSError, match="no C compiler"):
        ast_languages._compile_shim(["toml"])


def test_a_built_shim_is_reused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ast_languages, "_cache_dir", lambda: tmp_path)
    first = ast_languages._compile_shim(["toml"])
    monkeypatch.setattr(ast_languages.shutil, "which", lambda name: None)  # no compiler needed now
    assert ast_languages._compile_shim(["toml"]) == first and first.is_file()


def test_every_dynamic_language_has_a_grammar_source() -> None:
    assert len(ast_languages.DYNAMIC) == 26
    for name, (source, expando) in ast_languages.DYNAMIC.items():
        assert source and (expando is None or len(expando) == 1), name

"""Grammars for the languages the agent's native ast-grep parses and ``ast-grep-py`` does not build in.

``ast-grep-py`` can add languages at run time (``register_dynamic_language``) from a shared library
that exports ``tree_sitter_<name>``. The grammars come from PyPI wheels (``tree-sitter-language-pack``
0.x, which ships them compiled, ``tree-sitter-regex`` and ``tree-sitter-tlaplus``), but those wheels hide the symbol and
hand the language out as a ``PyCapsule`` instead. So a ten-line C shim is compiled once (``cc``) whose
exported ``tree_sitter_<name>`` functions return the capsules' pointers; ast-grep-py loads the shim.

``register_dynamic_language`` takes effect once per process, so every language is registered in one
call, on the first AST condition that needs one. Without a C compiler or the grammar wheels those
languages give no match and no warning, as before (README, known deviations). The expando characters
are the native engine's (its language table substitutes them for ``$`` where ``$`` is no identifier
character); languages the native engine parses without one get none here either.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from ast_grep_py import register_dynamic_language

# ast-grep-py language name -> (grammar source, expando character or None). A source is the
# binding name in tree-sitter-language-pack, or "module:<name>" for a grammar wheel of its own.
DYNAMIC: dict[str, tuple[str, str | None]] = {
    "astro": ("astro", None), "clojure": ("clojure", None), "cmake": ("cmake", "µ"),
    "dockerfile": ("dockerfile", "µ"), "elisp": ("elisp", None), "erlang": ("erlang", "µ"),
    "fortran": ("fortran", "\U00010000"), "graphql": ("graphql", None), "ini": ("ini", "µ"),
    "julia": ("julia", "µ"), "make": ("make", "µ"), "objc": ("objc", "\U00010000"),
    "ocaml": ("ocaml", "µ"), "odin": ("odin", "µ"), "powershell": ("powershell", "µ"),
    "proto": ("proto", "µ"), "r": ("r", "µ"), "regex": ("module:tree_sitter_regex", None), "sql": ("sql", "µ"),
    "starlark": ("starlark", "µ"), "svelte": ("svelte", None), "toml": ("toml", None),
    "verilog": ("verilog", "µ"), "vue": ("vue", None), "xml": ("xml", None),
    "tlaplus": ("module:tree_sitter_tlaplus", "µ"),
}

# Built-in languages whose native expando ast-grep-py does not apply. ast-grep-py builds zig in with
# `$` metavariables; the native engine substitutes `µ`, which zig identifiers refuse, so there a
# metavariable pattern never matches (`const $X = $E;`) while a literal one does.
BUILTIN_EXPANDO: dict[str, str] = {"zig": "µ"}

_lock = threading.Lock()
_registered: frozenset[str] | None = None
_problem: str | None = None


def _capsule(source: str) -> object:
    if source.startswith("module:"):
        return importlib.import_module(source[len("module:"):]).language()
    # Imported on first use: the grammar pack is big, and only files in its languages need it.
    from tree_sitter_language_pack import get_binding

    return get_binding(source)  # type: ignore[arg-type]


def _pointer(capsule: object) -> int:
    if isinstance(capsule, int):
        return capsule  # older grammar wheels (tree-sitter-tlaplus 1.5) hand out the address itself
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return int(get(capsule, b"tree_sitter.Language"))


def _shim_source(names: list[str]) -> str:
    lines = [f"static const void *slots[{len(names)}];",
             "void workbench_set_language(int i, const void *p) { slots[i] = p; }"]
    lines += [f"const void *tree_sitter_{n}(void) {{ return slots[{i}]; }}" for i, n in enumerate(names)]
    return "\n".join(lines) + "\n"


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "ttsr-workbench"
    try:
        path.mkdir(parents=True, exist_ok=True)
        return path
    except OSError:
        return Path(tempfile.gettempdir())


def _compile_shim(names: list[str]) -> Path:
    source = _shim_source(names)
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    target = _cache_dir() / f"ast-grammar-shim-{digest}.so"
    if target.exists():
        return target
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise OSError("no C compiler (cc) to build the grammar shim")
    with tempfile.TemporaryDirectory() as tmp:
        c_file = Path(tmp) / "shim.c"
        c_file.write_text(source, encoding="utf-8")
        built = Path(tmp) / "shim.so"
        subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(built), str(c_file)],
                       check=True, capture_output=True, timeout=60)
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(built, partial)
        os.replace(partial, target)  # atomic: concurrent workers never load a half-written file
    return target


def _register() -> frozenset[str]:
    global _problem
    pointers: dict[str, int] = {}
    for name, (source, _expando) in DYNAMIC.items():
        try:
            pointers[name] = _pointer(_capsule(source))
        except Exception:  # noqa: BLE001 - a grammar wheel that is missing or broken: skip that language
            continue
    if not pointers:
        _problem = "no grammar wheels installed (tree-sitter-language-pack 0.x)"
        return frozenset()
    names = sorted(pointers)
    try:
        shim = _compile_shim(names)
        lib = ctypes.CDLL(str(shim))
        lib.workbench_set_language.argtypes = [ctypes.c_int, ctypes.c_void_p]
        for i, name in enumerate(names):
            lib.workbench_set_language(i, pointers[name])

        config: dict[str, dict[str, object]] = {}
        for name in names:
            entry: dict[str, object] = {"library_path": str(shim), "language_symbol": f"tree_sitter_{name}",
                                        "extensions": [name]}
            expando = DYNAMIC[name][1]
            if expando is not None:
                entry["expando_char"] = expando
            config[name] = entry
        register_dynamic_language(config)  # type: ignore[arg-type]
    except BaseException as exc:  # noqa: BLE001 - compiler, loader or ast-grep-py panic
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        _problem = f"grammar shim failed: {exc}"
        return frozenset()
    _problem = None
    return frozenset(names)


def available(sg_lang: str) -> bool:
    """``sg_lang`` can be parsed: built into ast-grep-py, or a dynamic grammar that registered."""
    global _registered
    if sg_lang not in DYNAMIC:
        return True
    if _registered is None:
        with _lock:
            if _registered is None:
                _registered = _register()
    return sg_lang in _registered


def resolve(sg_lang: str) -> str | None:
    """The ast-grep-py language to parse ``sg_lang`` with, or ``None`` when there is none."""
    return sg_lang if available(sg_lang) else None


def _sigils(run: str, following: str, expando: str) -> str:
    # The native pattern preprocessing: `$$$` always, and `$`/`$$` before an upper-case letter or `_`.
    return expando * len(run) if len(run) == 3 or (following.isupper() or following == "_") else run


def expand_sigils(pattern: str, expando: str) -> str:
    """``pattern`` with its metavariable sigils (``$``) replaced by ``expando`` as the pattern
    preprocessing does: runs of three always, one or two before an upper-case letter or ``_``."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] != "$":
            out.append(pattern[i])
            i += 1
            continue
        j = i
        while j < len(pattern) and pattern[j] == "$":
            j += 1
        out.append(_sigils(pattern[i:j], pattern[j : j + 1], expando))
        i = j
    return "".join(out)


def native_pattern(pattern: str, sg_lang: str) -> str:
    """``pattern`` as the native engine hands it to the parser (its expando substitution)."""
    expando = BUILTIN_EXPANDO.get(sg_lang)
    if expando is None or "$" not in pattern:
        return pattern
    return expand_sigils(pattern, expando)


def problem() -> str | None:
    """Why the dynamic grammars are missing (after a failed ``available``), else ``None``."""
    return _problem

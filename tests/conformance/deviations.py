"""Known deviations from the reference: the only place a conformance case may be excused.

``DEVIATIONS``: keys are test ids ``<file>::<case name>``; values say why the workbench differs. The
README lists the same entries. A listed case runs as a strict xfail, so fixing the deviation turns it
into a failure until the entry is removed.

``BEHAVIOUR_DEVIATIONS``: deliberate differences that no case file expresses (they concern the command
line, the app, or what the workbench adds on top of the reference's answer). Keys are stable names the
README uses; each one is pinned by a test named in the value's ``test`` field, so a runner expecting the
reference can tell where the workbench answers differently and why.
"""

DEVIATIONS: dict[str, str] = {}

BEHAVIOUR_DEVIATIONS: dict[str, dict[str, str]] = {
    "sessions/unusable-file-is-an-error": {
        "reference": "a missing, empty, header-less or wholly malformed session file loads as no entries "
                     "(SessionManager starts an empty session; loadEntriesFromFile returns [])",
        "workbench": "the library answers the same with strict=False (no entries plus a missing-file, "
                     "empty-file or no-header diagnostic); load_session's default strict=True, used by the "
                     "CLI and the app, raises SessionFileError naming the file, line and field",
        "why": "a user who opens the wrong file must be told, not shown an empty tree",
        "test": "tests/sessions/test_reference_loading.py::test_cli_keeps_the_error_for_an_unusable_file",
    },
    "sessions/parent-cycles-are-shown": {
        "reference": "getTree() places an entry under its parent whenever the parent exists, so the entries of "
                     "a parent cycle are reachable from no root and appear nowhere in /tree",
        "workbench": "the cycle is cut where it closes (file order) and those entries are shown as roots, with "
                     "a `cycle` diagnostic",
        "why": "a corrupt file should not hide its entries from the person inspecting it",
        "test": "tests/sessions/test_tree.py::test_cycle_is_cut_and_everything_stays_reachable",
    },
    "sessions/v1-ids-are-stable": {
        "reference": "v1→v2 migration draws random 8-hex-digit ids and rewrites the file, so they are stable "
                     "only after the first load",
        "workbench": "the file is never rewritten; ids are hashed from the session id and the line, so every "
                     "load gives the same ids (still 8 hex digits)",
        "why": "read-only inspection, deep links and the store need the same ids on every load",
        "test": "tests/sessions/test_reference_loading.py::test_v1_migration_ids_are_the_same_on_every_load",
    },
    "engine::ast-json-bare-pair": {
        "reference": "a JSON astCondition that is a bare pair (`\"name\": $V`) compiles in the native ast-grep and "
                     "matches pairs (26 of the probed cases)",
        "workbench": "ast-grep-py 0.51 cannot compile it, so it never matches; the stepper's why text says so",
        "why": "no reliable emulation of the native engine's pair patterns was found",
        "test": "tests/ttsr/test_ast_native.py::test_every_case_agrees_with_the_native_engine_but_the_known_ones",
    },
    "engine::ast-make-grammar": {
        "reference": "make files parse with the native engine's make grammar",
        "workbench": "tree-sitter-language-pack's make grammar splits some rules otherwise (2 probed cases)",
        "why": "the only well-kept make grammar on PyPI is a different one",
        "test": "tests/ttsr/test_ast_native.py::test_every_case_agrees_with_the_native_engine_but_the_known_ones",
    },
    "engine::ast-diff-just": {
        "reference": "diff/patch and just/justfile sources are parsed",
        "workbench": "AST conditions on those files never match and never warn",
        "why": "no grammar package provides them",
        "test": "tests/ttsr/test_ast_native.py::test_table_covers_the_dynamic_languages_and_broken_sources",
    },
    "engine::ast-dynamic-grammars-need-cc": {
        "reference": "every language of the native alias table parses",
        "workbench": "the 26 languages ast-grep-py does not build in load through a small C shim compiled on "
                     "first use; without a C compiler (cc) or the grammar wheels they never match and never warn, "
                     "and the stepper names the cause",
        "why": "the grammar wheels hide the symbol ast-grep-py's dynamic loading needs",
        "test": "tests/ttsr/test_ast_native.py::test_the_dynamic_grammars_register",
    },
    "engine::regex-icase-backreference": {
        "reference": "under the i flag a back-reference compares with JavaScript's case folding",
        "workbench": "back-references compare with regress's folding (`ſ`, `ı`, KELVIN SIGN fold otherwise); "
                     "literals and classes follow JavaScript",
        "why": "regress gives no hook into back-reference comparison",
        "test": "tests/ttsr/test_js_case_fold.py::test_long_s_and_dotless_i_fold_only_to_themselves",
    },
}

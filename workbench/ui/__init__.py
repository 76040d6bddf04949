"""The web app (Panel). The only package that imports panel, param or bokeh.

Public API:

- ``create_app(paths, db=None)`` — a factory for ``pn.serve``: one ``AppState`` and one page per
  browser session (``workbench serve`` uses it); ``default_paths()`` — what it serves given no path.
- ``AppState`` — the shareable state of one browser session (session, leaf, filter, q, stream, step …).
- ``TreeView`` — the ``/tree`` list, branch graph and entry view; ``TreeView.from_path(file)`` in a notebook.
- ``StepperView`` — step a stream through rules; ``StepperView.from_paths(stream_or_session, rules_dir)``.
- ``RulesView`` — discovered rules, buckets, warnings and the live rule editor; ``RulesView.from_folder(dir)``.
- ``SessionsView`` — the table of ingested sessions, add-path, uploads and search.
- ``BacktestView`` — run the rule set over every served session; per-rule bars, hits, open a hit.
- ``PlaygroundView`` — one rule on a pasted text: matches, groups, AST nodes, bindings; save as an example.
- ``DraftsView`` — save Rules-tab edits after a diff, named drafts, compare a draft's backtest with the saved rules.
- ``TimelineView`` — the stream's turns as Bokeh lanes with the replay's acts; ``TimelineView.from_paths(file)``.
- ``ShareBar`` — the header's Export… dialog (stepper run, redaction with its preview, the download) and Copy link.
- ``ServedRoots`` — the folders the app may read; every user-supplied path goes through ``resolve``.

Names load lazily so ``import workbench.ui`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "create_app": "app",
    "default_paths": "app",
    "AppState": "state",
    "TreeView": "tree_view",
    "StepperView": "stepper_view",
    "RulesView": "rules_view",
    "SessionsView": "sessions_view",
    "BacktestView": "backtest_view",
    "PlaygroundView": "playground_view",
    "DraftsView": "drafts_view",
    "TimelineView": "timeline_view",
    "ShareBar": "share_view",
    "export_bytes": "share_view",
    "draft_rules": "drafts",
    "ServedRoots": "roots",
    "configure": "ruleset",
    "exposure": "access",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench.ui' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"workbench.ui.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

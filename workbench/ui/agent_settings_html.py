"""The Rules tab's read-only "Agent settings and switches" block: each ``ttsr.*`` setting and
discovery switch the project's config files give (with the file), the providers that ran and
whether their user-level folders were read, and which reminder templates are in use.

The served app reads no user-level files (its home is a private empty folder), so a value comes from
the project's ``.omp`` (or the seeds' ``.xcsh``) files or is the agent's default (docs/agent-settings.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.rules import AgentSettings, read_agent_settings, templates_from
from workbench.ui.entry_html import esc, table_html

_SOURCE_SHOWN = {"flag": "chosen here (UI)"}  # the app's choices stand where the command line's flags do


def agent_settings_html(folder: Path | None, home: Path, loaded: Any, settings: AgentSettings | None = None) -> str:
    """HTML (every value escaped) for the project ``folder``'s settings and ``loaded``'s switches;
    ``settings``: the values in effect with the app's choices (``AppState.agent_settings``), else the
    files' alone."""
    parts = ["<h4>Agent settings and switches</h4>"]
    if settings is None and folder is not None:
        settings = read_agent_settings(cwd=folder, home=home, env={})
    if settings is not None:
        rows = [[s.key, json.dumps(s.value), _SOURCE_SHOWN.get(s.source, s.source), s.file or ""]
                for s in (*settings.ttsr, *settings.switches)]
        parts.append(table_html(["setting", "value", "from", "file"], rows))
        parts += [f'<div class="wb-kv">⚠ {esc(w)}</div>' for w in settings.warnings]
    providers = getattr(loaded, "providers", ())
    if providers:
        parts.append(table_html(["provider", "priority", "ran", "user-level folder", "why"],
                                [[p.id, p.priority, "yes" if p.ran else "no", "read" if p.user_level else "not read",
                                  p.why] for p in providers]))
    parts.append(f'<div class="wb-kv wb-templates">{esc(templates_from(loaded.bundled).describe())}</div>')
    return "".join(parts)

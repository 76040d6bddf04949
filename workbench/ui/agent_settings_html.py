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

from workbench.rules import read_agent_settings, templates_from
from workbench.ui.entry_html import esc, table_html


def agent_settings_html(folder: Path | None, home: Path, loaded: Any) -> str:
    """HTML (every value escaped) for the project ``folder``'s settings and ``loaded``'s switches."""
    parts = ["<h4>Agent settings and switches</h4>"]
    if folder is not None:
        settings = read_agent_settings(cwd=folder, home=home, env={})
        rows = [[s.key, json.dumps(s.value), s.source, s.file or ""] for s in (*settings.ttsr, *settings.switches)]
        parts.append(table_html(["setting", "value", "from", "file"], rows))
        parts += [f'<div class="wb-kv">⚠ {esc(w)}</div>' for w in settings.warnings]
    providers = getattr(loaded, "providers", ())
    if providers:
        parts.append(table_html(["provider", "priority", "ran", "user-level folder", "why"],
                                [[p.id, p.priority, "yes" if p.ran else "no", "read" if p.user_level else "not read",
                                  p.why] for p in providers]))
    parts.append(f'<div class="wb-kv wb-templates">{esc(templates_from(loaded.bundled).describe())}</div>')
    return "".join(parts)

"""Where the benchmarks find real session files (written by the agents, not generated).

The repository keeps the real sessions under 2 MB in ``tests/fixtures/real/``; larger ones live in a
cache outside git (``$TTSR_REAL_SESSIONS``, default ``~/.cache/ttsr-workbench/real/``), filled once from
their public source as ``tests/fixtures/real/README.md`` says. A benchmark that needs one that is
missing stops and says how to get it.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IN_REPO = ROOT / "tests" / "fixtures" / "real"
CACHE = Path(os.environ.get("TTSR_REAL_SESSIONS") or Path.home() / ".cache" / "ttsr-workbench" / "real")


def real_session(name: str) -> Path:
    """The real session file ``name``, from the repository or the cache; a clear stop if neither has it."""
    for folder in (IN_REPO, CACHE):
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"{name}: not in {IN_REPO} or {CACHE}; fetch it as tests/fixtures/real/README.md says "
                     "(or set TTSR_REAL_SESSIONS to the folder that holds it)")


def real_sessions() -> list[Path]:
    """Every real session file the repository and the cache hold (a name in both counts once)."""
    found: dict[str, Path] = {}
    for folder in (CACHE, IN_REPO):
        found.update({p.name: p for p in sorted(folder.glob("*.jsonl"))} if folder.is_dir() else {})
    return [found[name] for name in sorted(found)]

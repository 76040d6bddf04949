"""The reference oracle: oh-my-pi's own modules run under Bun, one process per batch of cases.

``scripts/reference-oracle`` installs Bun and the pinned packages (integrity-checked) into a cache
outside the repository and writes ``oracle.json`` there; this module finds that file, runs
``harness/oracle.ts`` with the harness's shims preloaded, and returns the results. Used by the
differential tests (``tests/reference/``) and by ``benchmarks/engine.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HARNESS = Path(__file__).resolve().parent / "harness"
INSTALLER = Path(__file__).resolve().parents[2] / "scripts" / "reference-oracle"


def cache_dir() -> Path:
    """Where ``scripts/reference-oracle`` installs (same rule as the script)."""
    if os.environ.get("TTSR_REFERENCE_DIR"):
        return Path(os.environ["TTSR_REFERENCE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ttsr-workbench" / "reference"


# Resolved at import: the suite's autouse fixture points HOME at a temp folder during each test.
CACHE_DIR = cache_dir()


class OracleUnavailable(Exception):
    """The reference cannot run here; the message says why and how to install it."""


@dataclass(frozen=True, slots=True)
class Oracle:
    bun: Path
    agent: Path
    tui: Path
    agent_spec: str
    tui_spec: str
    bun_version: str
    ast_grep: Path | None = None

    @classmethod
    def find(cls, directory: Path | None = None) -> Oracle:
        manifest = (directory or CACHE_DIR) / "oracle.json"
        if not manifest.is_file():
            raise OracleUnavailable(
                f"reference oracle not installed ({manifest} missing); run scripts/reference-oracle"
            )
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            oracle = cls(
                bun=Path(data["bun"]), agent=Path(data["agent"]), tui=Path(data["tui"]),
                agent_spec=data["agentSpec"], tui_spec=data["tuiSpec"], bun_version=data["bunVersion"],
                ast_grep=Path(data["astGrep"]) if data.get("astGrep") else None,
            )
        except (OSError, ValueError, KeyError) as exc:
            raise OracleUnavailable(f"{manifest}: unreadable oracle manifest ({exc})") from exc
        for path in (oracle.bun, oracle.agent / "src" / "export" / "ttsr.ts"):
            if not path.exists():
                raise OracleUnavailable(f"{path} missing; run scripts/reference-oracle")
        return oracle

    def run(self, cases: list[dict[str, Any]], *, timeout: float = 600, script: str = "oracle.ts",
            env_extra: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """Results of ``cases`` in order; a case the reference threw on gives ``{"error": ...}``.
        ``script``: the harness to run (``harness/<script>``); ``env_extra``: more environment for it."""
        env = dict(os.environ, REFERENCE_AGENT_DIR=str(self.agent), REFERENCE_TUI_DIR=str(self.tui),
                   **(env_extra or {}))
        if self.ast_grep is not None:
            env["REFERENCE_AST_GREP_DIR"] = str(self.ast_grep)
        proc = subprocess.run(
            [str(self.bun), "--preload", str(HARNESS / "preload.ts"), str(HARNESS / script)],
            input=json.dumps({"cases": cases}), capture_output=True, text=True, env=env,
            cwd=HARNESS, timeout=timeout, check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"reference harness exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
        results = json.loads(proc.stdout)["results"]
        if len(results) != len(cases):
            raise RuntimeError(f"reference harness returned {len(results)} results for {len(cases)} cases")
        return results


def require_oracle() -> Oracle:
    """The installed oracle; without it the test skips with the reason, or fails under ``CI=true``
    (CI must not pass by skipping)."""
    import pytest

    try:
        return Oracle.find()
    except OracleUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {exc}", pytrace=False)
        pytest.skip(str(exc))

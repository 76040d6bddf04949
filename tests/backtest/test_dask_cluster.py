"""A backtest on a real Dask cluster (``dask scheduler`` and ``dask worker`` processes) whose workers
run in another folder than the client, with and without storage shared with the client.

Without shared storage is made real with a private mount namespace (``unshare -m``): the worker
sees an empty tmpfs where the client's session folder is. The test waits for the scheduler and
the workers by polling their state and tears the processes down at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.cli import main

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_sessions"
RULES = SAMPLES / "project"


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs none /mnt"], capture_output=True)
    return probe.returncode == 0


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def cluster(folder: Path, workers: int = 2, hide: Path | None = None) -> Iterator[str]:
    """A scheduler and ``workers`` workers started in ``folder`` (not the client's); with ``hide``,
    each worker sees an empty folder there. Yields the scheduler's address once every worker is in."""
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / "scheduler.json"
    procs: list[subprocess.Popen] = []
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(info)],
            cwd=folder, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        while not info.exists() or not info.read_text().strip():  # the scheduler writes it once it listens
            try:
                procs[0].wait(timeout=0.05)
                raise AssertionError("the scheduler exited before it was ready")
            except subprocess.TimeoutExpired:
                pass
        address = json.loads(info.read_text())["address"]
        worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1",
                  "--no-dashboard", "--local-directory", str(folder)]
        for _ in range(workers):
            command = worker if hide is None else [
                "unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$0" && exec "$@"', str(hide), *worker]
            procs.append(subprocess.Popen(command, cwd=folder, env=_env(), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=120)  # returns as soon as they have registered
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["backtest", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if code == 0 else {}


def _comparable(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("elapsed", "workers", "scheduler", "transport")}


def test_workers_in_another_folder_give_the_local_result(tmp_path: Path, capsys, monkeypatch) -> None:
    """The issue's command: relative paths on the client, workers elsewhere, storage shared."""
    monkeypatch.chdir(ROOT)
    code, local = _json(capsys, "--rules", "sample_sessions/project", "sample_sessions", "--workers", "1")
    assert code == 0 and local["hits"] > 0 and not any("no such file" in e["error"] for e in local["errors"])
    with cluster(tmp_path / "cluster") as address:
        code, remote = _json(capsys, "--rules", "sample_sessions/project", "sample_sessions", "--scheduler", address)
        assert code == 0
        assert _comparable(remote) == _comparable(local)
        assert remote["transport"] == "paths" and remote["workers"] == 2
        main(["backtest", "--rules", "sample_sessions/project", "sample_sessions", "--scheduler", address])
        assert "sessions sent as paths" in capsys.readouterr().out


@pytest.mark.skipif(not _can_unshare(), reason="needs unshare -m (a private mount namespace)")
def test_workers_without_shared_storage_get_the_bytes(tmp_path: Path, capsys, monkeypatch) -> None:
    client = tmp_path / "client"
    shutil.copytree(SAMPLES, client / "sessions", ignore=shutil.ignore_patterns("project", "samplegen", "streams"))
    monkeypatch.chdir(client)
    code, local = _json(capsys, "--rules", str(RULES), "sessions", "--workers", "1")
    assert code == 0 and local["hits"] > 0
    with cluster(tmp_path / "cluster", hide=client / "sessions") as address:
        code, remote = _json(capsys, "--rules", str(RULES), "sessions", "--scheduler", address)
    assert code == 0
    assert remote["transport"] == "bytes"
    assert _comparable(remote) == _comparable(local)


@pytest.mark.skipif(not _can_unshare(), reason="needs unshare -m (a private mount namespace)")
def test_a_file_a_worker_cannot_read_fails_the_run_naming_both(tmp_path: Path, capsys, monkeypatch) -> None:
    client = tmp_path / "client"
    (client / "sessions" / "hidden").mkdir(parents=True)
    shutil.copy(SAMPLES / "fix-auth.jsonl", client / "sessions" / "seen.jsonl")
    shutil.copy(SAMPLES / "ttsr-fired.jsonl", client / "sessions" / "hidden" / "unseen.jsonl")
    monkeypatch.chdir(client)
    with cluster(tmp_path / "cluster", workers=1, hide=client / "sessions" / "hidden") as address:
        code = main(["backtest", "--rules", str(RULES), "sessions", "--scheduler", address])
    err = capsys.readouterr().err
    assert code != 0
    assert f"worker {address.rsplit(':', 1)[0]}" in err and str(client / "sessions" / "hidden" / "unseen.jsonl") in err

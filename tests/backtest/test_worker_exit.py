"""A backtest's local workers leave with the process that started them, even one killed by a signal
(its pool is then never shut down, and a worker would otherwise wait for work for good)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent("""
    import multiprocessing, os, time
    from concurrent.futures import ProcessPoolExecutor
    from workbench.backtest.run import BacktestOptions, _init_worker

    if __name__ == "__main__":
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context(method),
                                   initializer=_init_worker, initargs=([], BacktestOptions(), os.getpid()))
        pool.submit(os.getpid).result()  # the workers have started
        print(*pool._processes, flush=True)
        time.sleep(600)
""")


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_leave_when_their_parent_is_killed(tmp_path):
    (tmp_path / "parent.py").write_text(SCRIPT, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")], stdout=subprocess.PIPE, text=True,
                            cwd=tmp_path)
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert workers and all(_running(p) for p in workers)
    finally:
        proc.kill()  # SIGKILL: no shutdown, no atexit
        proc.wait()
    deadline = time.monotonic() + 60
    alive = workers
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if _running(p)]
        if alive:
            time.sleep(0.05)  # polling for the event (the workers' exit), bounded by the deadline
    assert not alive, f"workers {alive} outlived the killed parent"

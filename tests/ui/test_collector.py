"""The closed pages' garbage collection waits until no page's background work runs (``ui.collector``)."""

from __future__ import annotations

import threading
import time
import weakref

import pytest

from workbench.ui import background, collector


@pytest.fixture()
def fast_collector(monkeypatch):
    """The collector's thread, installed, with short waits and a counter of its looks at the quiet."""
    monkeypatch.setattr(collector, "QUIET", 0.05)
    monkeypatch.setattr(collector, "_POLL", 0.01)
    looks = {"busy": 0}
    busy_seen = threading.Event()
    real = background.quiet_for

    def counting(seconds: float) -> bool:
        quiet = real(seconds)
        if not quiet:
            looks["busy"] += 1
            if looks["busy"] >= 3:
                busy_seen.set()
        return quiet

    monkeypatch.setattr(collector, "quiet_for", counting)
    assert collector.install()
    return busy_seen


class _Node:
    self: object = None


def _wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_panel_schedules_the_owed_collection_instead_of_its_own():
    from panel.io import document

    assert collector.install()
    assert document._garbage_collect is collector.owe_collection


def test_an_owed_collection_waits_for_running_work_then_runs(fast_collector):
    background._work_began()  # a page's background work is running
    try:
        before = collector.collections
        collector.owe_collection()
        assert fast_collector.wait(20)  # the collector looked three times and found work running
        assert collector.collections == before
    finally:
        background._work_ended()
    _wait_for(lambda: collector.collections > before)


def test_quiet_for_counts_running_work_and_its_last_change():
    background._work_began()
    assert not background.quiet_for(0.0)
    background._work_ended()
    assert not background.quiet_for(3600.0)  # it just ended
    assert background.quiet_for(0.0)


def test_a_load_is_frozen_out_of_automatic_passes_until_the_owed_pass_takes_it_back(fast_collector):
    import gc

    before = collector.collections
    background._work_began()
    try:
        loaded = [[n] for n in range(1000)]  # a loaded session's containers
        collector.after_load(collector.FREEZE_FROM)
        assert gc.get_freeze_count() >= len(loaded)  # out of the automatic passes
        assert fast_collector.wait(20)  # owed, and waiting while work runs
    finally:
        background._work_ended()
    _wait_for(lambda: collector.collections > before)
    # the owed pass brought them back, collected, and froze what is left (them among it)
    assert gc.get_freeze_count() >= len(loaded)
    # a page's cycle, alive when a session loads and dropped later: the automatic passes no longer
    # see it, the owed pass does
    cycle = _Node()
    cycle.self = cycle
    gone = weakref.ref(cycle)
    background._work_began()
    try:
        collector.after_load(collector.FREEZE_FROM)
        del cycle
        gc.collect()
        assert gone() is not None  # frozen: out of sight of a plain collection
    finally:
        background._work_ended()
    collector.owe_collection()  # the page that held it closed
    _wait_for(lambda: gone() is None)


def test_after_load_outside_a_served_app_or_of_a_small_session_changes_nothing(monkeypatch):
    import gc

    assert collector.install()
    here = threading.get_ident()
    freezes: list[int] = []
    real = gc.freeze

    def counting() -> None:  # the freezes asked for by this thread (the collector's own pass may run)
        if threading.get_ident() == here:
            freezes.append(1)
        real()

    monkeypatch.setattr(gc, "freeze", counting)
    collector.after_load(collector.FREEZE_FROM - 1)  # a small session: its passes cost little
    assert freezes == []
    collector.after_load(collector.FREEZE_FROM)
    assert freezes == [1]
    monkeypatch.setattr(collector, "_thread", None)  # a notebook: no collector thread
    collector.after_load(collector.FREEZE_FROM)
    assert freezes == [1]

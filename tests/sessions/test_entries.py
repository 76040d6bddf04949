from __future__ import annotations

from workbench.sessions.entries import Entry, js_ms, parse_timestamp_ms


def test_timestamps_parse_like_date_parse():
    assert parse_timestamp_ms("2025-01-01T00:00:04Z") == 1735689604000.0
    assert parse_timestamp_ms("2025-01-01T00:00:04.250Z") == 1735689604250.0
    assert parse_timestamp_ms("2025-01-01") == 1735689600000.0
    assert parse_timestamp_ms("t1") is None and parse_timestamp_ms(None) is None and parse_timestamp_ms(5) is None
    assert js_ms("2025-01-01T00:00:04Z") == 1735689604000 and isinstance(js_ms("2025-01-01T00:00:04Z"), int)


def test_entry_convenience_views():
    raw = {"type": "message", "id": "a", "parentId": None, "message": {"role": "hookMessage"}}
    migrated = {**raw, "message": {"role": "custom"}}
    entry = Entry(id="a", parent_id=None, type="message", timestamp=None, record=raw, line=3, data=migrated)
    assert entry.role == "custom" and entry.raw["message"]["role"] == "hookMessage"
    label = Entry(id="l", parent_id="a", type="label", timestamp=None,
                  record={"type": "label", "targetId": "a", "label": "x"}, line=4)
    assert (label.label, label.target_id, label.role, label.message) == ("x", "a", None, None)


def test_paused_gc_stays_paused_until_the_last_overlapping_pause_ends():
    # Threads share the collector's switch: a search index built beside a keystroke's search turned it
    # back on under the search when the build ended first.
    import gc
    import threading

    from workbench.sessions.entries import paused_gc

    was = gc.isenabled()
    gc.enable()
    try:
        first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
        seen: dict[str, bool] = {}

        def first() -> None:
            with paused_gc():
                first_in.set()
                assert second_in.wait(10)
            first_out.set()

        def second() -> None:
            assert first_in.wait(10)
            with paused_gc():
                second_in.set()
                assert first_out.wait(10)
                seen["inside after the first ended"] = gc.isenabled()
            seen["after both"] = gc.isenabled()

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert seen == {"inside after the first ended": False, "after both": True}
        gc.disable()
        with paused_gc():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        (gc.enable if was else gc.disable)()

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
    entry = Entry(id="a", parent_id=None, type="message", timestamp=None, raw=raw, line=3, data=migrated)
    assert entry.role == "custom" and entry.raw["message"]["role"] == "hookMessage"
    label = Entry(id="l", parent_id="a", type="label", timestamp=None,
                  raw={"type": "label", "targetId": "a", "label": "x"}, line=4)
    assert (label.label, label.target_id, label.role, label.message) == ("x", "a", None, None)

"""A long parse calls ``give_way`` between lines, so that a served page can go first."""

from __future__ import annotations

from workbench.sessions import giving_way, parse_session_bytes


def test_a_session_parse_gives_way_between_lines(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(giving_way, "_hook", lambda: calls.append(1))
    lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}']
    lines += [f'{{"type":"message","id":"m{i}","parentId":{"null" if i == 0 else f"{chr(34)}m{i - 1}{chr(34)}"},'
              f'"timestamp":"2026-01-01T00:00:01Z","message":{{"role":"user","content":"hi"}}}}' for i in range(5000)]
    session = parse_session_bytes(("\n".join(lines) + "\n").encode())
    # every 2,048 lines or so: a page waits ~10 ms at most, and a line costs no call
    assert len(session.entries) == 5000 and 1 <= len(calls) <= 5001 // (giving_way.GIVE_WAY_EVERY + 1) + 1

"""Redaction before sharing: what the patterns catch, the count, the preview, the file left as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.errors import UsageError
from workbench.export import Redactor

SECRETS = {
    "api-key": "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0",
    "github-token": "ghp_" + "A" * 36,
    "aws-key": "AKIA" + "ABCDEFGHIJKLMNOP",
    "slack-token": "xoxb-" + "1234567890-abcdef",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU",
    "email": "jane.doe@example.com",
}


def test_each_kind_is_redacted_and_counted() -> None:
    text = " ".join(SECRETS.values()) + " Authorization: Bearer abcdefgh12345678 in /home/jane/src and C:\\Users\\Jane\\x"
    out, found = Redactor().redact({"t": text, "n": [text, 3]})
    for secret in SECRETS.values():
        assert secret not in json.dumps(out)
    assert "/home/jane" not in out["t"] and "Jane" not in out["t"] and "abcdefgh12345678" not in out["t"]
    assert found.counts["email"] == 1 and found.counts["home-path"] == 2 and found.counts["bearer"] == 1
    assert found.occurrences == 2 * found.total
    assert out["n"][1] == 3 and "[redacted:api-key]" in out["t"]


def test_user_patterns_and_a_bad_one() -> None:
    out, found = Redactor(("ACME-[0-9]+",)).redact("ticket ACME-42 and ACME-7")  # distinct: 2
    assert out == "ticket [redacted:pattern] and [redacted:pattern]" and found.total == 2
    assert list(found.preview()) == ["pattern: ACME-42", "pattern: ACME-7"]
    with pytest.raises(UsageError):
        Redactor(("(",))


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    records = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-11-30T10:00:00Z", "cwd": "/home/jane/p"},
               {"type": "message", "id": "u", "parentId": None, "timestamp": "2026-11-30T10:00:00Z",
                "message": {"role": "user", "content": f"key {SECRETS['api-key']} mail {SECRETS['email']}"}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_export_redacts_the_page_and_never_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = _session(tmp_path)
    before = hashlib.sha256(session.read_bytes()).hexdigest()
    out = tmp_path / "out.html"
    assert main(["export", str(session), "--redact", "--dry-run", "--out", str(out), "--json"]) == 0
    preview = json.loads(capsys.readouterr().out)
    assert not out.exists() and preview["redacted"] == {"api-key": 1, "email": 1}
    assert main(["export", str(session), "--redact", "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    page = out.read_text(encoding="utf-8")
    assert report["total"] == 2 and SECRETS["api-key"] not in page and "jane" not in page
    assert hashlib.sha256(session.read_bytes()).hexdigest() == before


def _unguarded(redactor: Redactor, text: str) -> str:
    """Every pattern applied in order, as written (the reference the guarded redaction must equal)."""
    for kind, rx in redactor._compiled:
        text = rx.sub(f"[redacted:{kind}]", text)
    return text


SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
# texts each guard must let through: every kind, bearer in any case, both spellings of a Windows home
TRICKY = [*SECRETS.values(), "BEARER abcdefgh12345678", "bEaReR abcdefgh12345678", "C:\\Users\\Jane\\x",
          '"C:\\\\Users\\\\Jane\\\\x"', "github_pat_" + "a1" * 12, "gho_" + "b" * 24, "ASIA" + "Q" * 16,
          "AIza" + "x" * 35, "/Users/jane/.pi", "mail me: a@b.io", "no secret here", ""]


def test_the_guards_skip_only_texts_a_pattern_cannot_match() -> None:
    # the substring guards make the redaction fast; the replaced text and the counts must be those of
    # every pattern applied to every text
    redactor = Redactor(("ACME-[0-9]+",))
    lines = [line for p in sorted(SAMPLES.glob("*.jsonl")) for line in p.read_text(encoding="utf-8").splitlines()]
    texts = TRICKY + [f"{a} {b}" for a in TRICKY for b in TRICKY[:4]] + lines
    out, found = redactor.redact(texts)
    assert out == [_unguarded(redactor, t) for t in texts]
    assert found.occurrences == sum(_unguarded(redactor, t).count("[redacted:") - t.count("[redacted:") for t in texts)


def test_a_repeated_text_is_counted_at_every_repeat() -> None:
    out, found = Redactor().redact(["mail a@b.io", "mail a@b.io", {"k": "mail a@b.io"}])
    assert out == ["mail [redacted:email]"] * 2 + [{"k": "mail [redacted:email]"}]
    assert found.occurrences == 3 and found.counts == {"email": 1}
    assert list(found.preview()) == ["email: a@b.io (x3)"]

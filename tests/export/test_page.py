"""The exported page: inert data, a CSP that admits only its own script, atomic writes, no overwrite."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import stat
from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.export import embed_json, export_html, render_page
from workbench.sessions import load_session

HOSTILE = "</script><script>alert(1)</script><!-- \u2028 & <img src=x onerror=alert(2)>"
FIXTURES = Path(__file__).resolve().parents[1] / "ui" / "fixtures"


def test_embedded_json_cannot_close_its_script_block() -> None:
    text = embed_json({"s": HOSTILE})
    assert "<" not in text and ">" not in text and "\u2028" not in text
    assert json.loads(text) == {"s": HOSTILE}


def _data_and_script(page: str) -> tuple[dict, str]:
    data = re.search(r'<script type="application/json" id="workbench-data">(.*?)</script>', page, re.S)
    script = re.search(r"\n<script>(.*?)</script>\n</body>", page, re.S)
    assert data and script
    return json.loads(data.group(1)), script.group(1)


def test_page_policy_names_the_hash_of_its_own_script_and_no_source() -> None:
    page = render_page({"meta": {"title": HOSTILE}, "session": None}, title=HOSTILE)
    data, script = _data_and_script(page)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert f"script-src 'sha256-{digest}'" in policy and "default-src 'none'" in policy
    assert "connect-src" not in policy  # default-src 'none' covers connections: nothing may leave
    assert data["meta"]["title"] == HOSTILE
    assert "<title>&lt;/script&gt;" in page


def test_export_writes_atomically_and_never_over_an_input(tmp_path: Path) -> None:
    session = load_session(FIXTURES / "script_content.jsonl")
    out = export_html(tmp_path / "out" / "s.html", session=session)
    assert out.is_file() and stat.S_IMODE(out.stat().st_mode) & 0o044  # readable by others: meant to share
    assert not list(out.parent.glob(".export-*"))
    data, _ = _data_and_script(out.read_text())
    assert "<script>window.__pwned = 1</script>" in json.dumps(data, ensure_ascii=False)
    with pytest.raises(UsageError, match="ending in .html"):
        export_html(tmp_path / "s.jsonl", session=session)
    copy = tmp_path / "copy.html"
    copy.write_text("keep me")
    with pytest.raises(UsageError, match="never overwritten"):
        export_html(copy, session=session, inputs=(str(copy),))
    assert copy.read_text() == "keep me"
    with pytest.raises(UsageError, match="nothing to export"):
        export_html(tmp_path / "empty.html")

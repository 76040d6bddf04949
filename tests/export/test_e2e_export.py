"""The exported page in Chromium, opened from disk with the network off: views work, nothing runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from workbench.export import export_html
from workbench.replay import ReplayConfig, Stepper, read_stream
from workbench.rules import load_rules
from workbench.sessions import load_session

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_sessions"
HOSTILE = ROOT / "tests" / "ui" / "fixtures" / "script_content.jsonl"


@pytest.fixture
def offline_page(page):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.context.set_offline(True)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.requests = requests  # type: ignore[attr-defined]
    return page


def test_session_export_shows_text_and_runs_nothing(tmp_path, offline_page) -> None:
    out = export_html(tmp_path / "hostile.html", session=load_session(HOSTILE))
    page = offline_page
    page.goto(out.as_uri())
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    rows = page.locator("ol.rows li")
    expect(rows.first).to_be_visible()
    expect(page.locator("ol.rows")).to_contain_text("<script>window.__pwned = 1</script>")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("ol.rows img, .entry img, main script").count() == 0
    rows.first.click()
    expect(page.locator(".entry")).to_contain_text("onerror")
    page.get_by_role("searchbox").fill("BOLD?")  # search ignores case
    total = page.evaluate(
        "JSON.parse(document.getElementById('workbench-data').textContent).session.rows['default'].length")
    expect(page.locator(".counter")).to_have_text(f"1/{total} shown")
    page.get_by_role("searchbox").press("Escape")
    expect(page.get_by_role("searchbox")).to_have_value("")
    assert page.requests == [out.as_uri()]  # type: ignore[attr-defined]


def test_stepper_export_opens_at_its_step_and_steps(tmp_path, offline_page) -> None:
    stream = read_stream(SAMPLES / "streams" / "prose-unwrap.stream.jsonl")
    rules = load_rules(cwd=str(SAMPLES / "project")).rules
    stepper = Stepper(stream, rules, ReplayConfig(cwd=stream.cwd or str(SAMPLES / "project")))
    first_trigger = stepper.next_trigger(-1)
    assert first_trigger is not None and first_trigger > 1
    out = export_html(tmp_path / "run.html", stepper=stepper, step=1)
    page = offline_page
    page.goto(out.as_uri())
    position = page.locator(".position")
    expect(position).to_contain_text("step 1 /")
    page.get_by_role("button", name="trigger ▶").click()
    expect(position).to_contain_text(f"step {first_trigger} /")
    expect(page.locator("table.rules tr.status-triggered").first).to_be_visible()
    expect(page.locator(".buffer mark").first).to_be_visible()
    expect(page.locator(".conversations")).to_contain_text("keep")
    page.keyboard.press("ArrowRight")
    expect(position).to_contain_text(f"step {first_trigger + 1} /")
    assert f"step={first_trigger + 1}" in page.url
    page.screenshot(path=str(tmp_path / "export-stepper.png"))
    page.goto(out.as_uri().split("#")[0] + "#tab=stepper&step=0")
    page.reload()
    expect(position).to_contain_text("step 0 /")
    assert all(u.startswith("file://") for u in page.requests)  # type: ignore[attr-defined]

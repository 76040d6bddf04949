"""The app's tabs as a user moves between them: a tab the user left shapes nothing on the one shown."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

pytestmark = pytest.mark.e2e

SAMPLES = FIXTURES.parents[2] / "sample_sessions"
STREAM = "streams/prose-unwrap.stream.jsonl"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    """The samples as a new user serves them: ttsr-fired.jsonl's Stepper is taller than the window."""
    folder = tmp_path_factory.mktemp("tabs") / "served"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns("samplegen", "*.py", "__pycache__"))
    with serving([folder]) as served:
        yield served

# What is left below the shown tab once the window is scrolled to its end: the page's bottom margin,
# not a blank band (issue 27: after the Stepper, the Rules tab left the lower third of the screen empty).
_BELOW_SHOWN = """(name) => {
  window.scrollTo(0, document.scrollingElement.scrollHeight);
  const shown = document.querySelector('html').scrollHeight;
  const find = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.classList && el.classList.contains(name)) return el;
      if (el.shadowRoot) { const hit = find(el.shadowRoot); if (hit) return hit; }
    }
    return null;
  };
  const tab = find(document);
  const bottom = tab.getBoundingClientRect().bottom + window.scrollY;
  return {page: shown, tab_bottom: Math.round(bottom), blank: Math.round(shown - bottom), scrolled: window.scrollY};
}"""


@pytest.mark.parametrize("width", [1280, 1400])
@pytest.mark.parametrize("stream", ["", STREAM], ids=["derived", "stream-file"])
def test_rules_after_the_stepper_has_no_blank_band_when_scrolled(clean_page, url, width, stream, shot):
    page = clean_page
    page.set_viewport_size({"width": width, "height": 900})
    chosen = f"&stream={stream}" if stream else ""
    page.goto(f"{url}?session=ttsr-fired.jsonl&tab=stepper{chosen}")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 0 /", timeout=60_000)  # the first build checks time bounds
    page.get_by_role("button", name="Next trigger ▶|").click()
    expect(position).to_contain_text("TRIGGER")
    stepper = page.evaluate(_BELOW_SHOWN, "wb-tab-stepper")
    # the premise: the Stepper is taller than the window (else nothing could be left behind)
    assert stepper["page"] > 900, stepper
    page.locator(".bk-tab", has_text="Rules").first.click()
    expect(page.locator(".wb-bundled")).to_be_visible()
    expect(page.locator(".wb-rule-fires")).to_contain_text(re.compile(r"fires at|does not fire"))
    page.mouse.move(width / 2, 600)
    page.mouse.wheel(0, 3000)  # as a user scrolls: the window may not move past the Rules view
    rules = page.evaluate(_BELOW_SHOWN, "wb-tab-rules")
    shot(page, f"rules_after_stepper_{width}")
    assert rules["blank"] < 30, rules
    # and the Stepper comes back whole, as tall as it was
    page.locator(".bk-tab", has_text="Stepper").first.click()
    expect(position).to_contain_text("TRIGGER")
    page.wait_for_function("(h) => document.querySelector('html').scrollHeight >= h", arg=stepper["page"])


def test_rules_tables_fit_a_notebooks_width(clean_page, url, shot):
    # ~970 px, a notebook with its file browser open: the Rules tab's left column is ~470 px wide. A path
    # with nothing to break at (.github/instructions/repo.instructions.md) made its table wider than the
    # column, which scrolled sideways and hid the "why here" column (issue 27).
    page = clean_page
    page.set_viewport_size({"width": 970, "height": 900})
    page.goto(f"{url}?session=ttsr-fired.jsonl&tab=rules")
    expect(page.locator(".wb-bundled")).to_be_visible()
    path = page.locator(".wb-rules td", has_text="repo.instructions.md").first
    expect(path).to_be_visible()
    tables = page.locator(".wb-rules table.wb-table")
    assert tables.count() >= 4
    column = page.locator(".wb-rules").first.evaluate("el => el.getBoundingClientRect().right")
    widths = tables.evaluate_all("ts => ts.map(t => [t.querySelector('th').textContent, "
                                 "Math.round(t.getBoundingClientRect().right)])")
    assert all(right <= column + 1 for _, right in widths), (column, widths)
    why = path.evaluate("td => td.closest('tr').lastElementChild.getBoundingClientRect().right")
    assert why <= column + 1, (why, column)
    path.scroll_into_view_if_needed()
    shot(page, "rules_970")


@pytest.mark.parametrize("width", [1280, 1400])
def test_another_chunking_keeps_the_point_of_the_stream_and_says_so(clean_page, url, width):
    # Another chunking cuts the open session into other steps: the Stepper goes to the same event of
    # the same turn (the first step that has streamed as much), not back to step 0, and says so (issue 27).
    from workbench.replay import derive_stream, step_at_point, stream_point

    page = clean_page
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{url}?session=ttsr-fired.jsonl&tab=stepper")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 0 /", timeout=60_000)  # the first build checks time bounds
    page.get_by_role("button", name="Next trigger ▶|").click()
    expect(position).to_contain_text("TRIGGER")
    old = int(re.search(r"step=(\d+)", page.url).group(1))
    session = SAMPLES / "ttsr-fired.jsonl"  # the served copy is byte-identical
    words = derive_stream(session, policy="words").events
    fixed = derive_stream(session, policy="fixed").events
    want = step_at_point(fixed, stream_point(words, old))
    assert want is not None and want != old and want > 0
    page.locator("select").filter(has=page.locator("option", has_text="tokens")).first.select_option("fixed")
    expect(position).to_contain_text(f"step {want} / {len(fixed) - 1}")
    expect(page).to_have_url(re.compile(rf"step={want}\b"))
    expect(page.locator(".notyf__message").first).to_contain_text(f"step {old:,} of the words chunking is step {want:,} here")


def test_the_events_pane_shows_a_long_delta_whole_in_a_notebooks_width(clean_page, url):
    # at the first trigger the delta is one long word of code (env::var("PWHASH_M_COST").unwrap()...):
    # at ~970 px it ran past the Events card, which scrolled it sideways out of sight (issue 27)
    page = clean_page
    page.set_viewport_size({"width": 970, "height": 900})
    page.goto(f"{url}?session=ttsr-fired.jsonl&tab=stepper")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text("step 0 /", timeout=60_000)  # the first build checks time bounds
    page.get_by_role("button", name="Next trigger ▶|").click()
    expect(position).to_contain_text("TRIGGER")
    current = page.locator(".wb-events .wb-ev-current")
    expect(current).to_contain_text("unwrap")
    pane = page.locator(".wb-events").first
    sizes = pane.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert sizes[0] <= sizes[1] + 1, sizes
    right = pane.evaluate("e => e.getBoundingClientRect().right")
    assert current.evaluate("e => e.getBoundingClientRect().right") <= right + 1

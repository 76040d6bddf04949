"""Words that read as broken in issue 27, as a user meets them in the browser: buffers that are not
there yet, the slider's marks while the replay runs, a tool call without a file path, an engine
warning that named no rule, legend items without a marker, toasts in a serif font."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

# every test here also fails on a console error in the browser or a Bokeh warning on the server
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("clean_page")]

SAMPLES = FIXTURES.parents[2] / "sample_sessions"
RULES = "project/.omp/rules"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("words") / "served"
    shutil.copytree(FIXTURES, folder)
    for name in ("omp18-billing.jsonl", "ttsr-fired.jsonl", "broken-line.jsonl"):
        shutil.copy(SAMPLES / name, folder / name)
    # a rule whose only condition is not a valid regex: the engine skips it with the reference's
    # words, which name neither the rule nor its file
    (folder / RULES / "bad-regex.md").write_text("---\ndescription: no debug prints\ncondition: 'print(('\n---\n"
                                                 "Use the logger.\n", encoding="utf-8")
    # a rule for edits of TypeScript files: a tool call without a path is outside its scope
    (folder / RULES / "ts-edits.md").write_text("---\ndescription: no console.log in edits\n"
                                                "condition: 'console\\.log'\nscope: tool:edit(src/**/*.ts)\n---\n"
                                                "Use the logger.\n", encoding="utf-8")
    with serving([folder]) as served:
        yield served


def _stepper(page, url, session, extra=""):
    page.goto(f"{url}?session={session}&tab=stepper&rules=project{extra}")
    position = page.locator(".wb-step-position")
    expect(position).to_contain_text(re.compile(r"step \d+ /"), timeout=60_000)  # the first build checks time bounds
    return position


def test_buffers_say_why_there_is_none(page, url):
    position = _stepper(page, url, "ttsr-fired.jsonl")
    buffers = page.locator(".wb-buffers")
    expect(position).to_contain_text("step 0 /")
    expect(buffers).to_contain_text("No buffer yet: no model text has streamed at this step.")
    # the first deltas are thinking, which no rule of the folder reads
    page.get_by_role("button", name="Step ▶").click()
    expect(position).to_contain_text("step 1 /")
    expect(buffers).to_contain_text("no rule watches the text streamed so far")
    expect(buffers).not_to_contain_text("(no buffer yet)")
    # the marks under the slider are counted in words while the replay runs, then in full
    marks = page.locator(".wb-slider-marks")
    expect(marks).to_contain_text(re.compile(r"\d+ trigger\(s\) · \d+ abort\(s\)"))
    expect(marks).not_to_contain_text(re.compile(r"first \d+ steps"))


def test_a_tool_call_without_a_file_path_says_so(page, url):
    # omp18-billing's glob call has no path: the scope gate says so in words, not "with paths []"
    from workbench.replay import derive_stream

    events = derive_stream(SAMPLES / "omp18-billing.jsonl", policy="words").events  # the served copy is the same
    start = next(i for i, e in enumerate(events) if e.type == "toolcall_start" and e.name == "glob")
    step = start + 1  # the call's first arguments delta
    assert events[step].type == "toolcall_delta"
    position = _stepper(page, url, "omp18-billing.jsonl", f"&step={step}")
    expect(position).to_contain_text(f"step {step} /")
    row = page.locator(".wb-rules-table tr", has_text="ts-edits")
    expect(row).to_contain_text("scope: tool glob (no file path) not in [tool:edit(src/**/*.ts)]")
    expect(page.locator(".wb-rules-table")).not_to_contain_text("paths []")


def test_an_invalid_regex_names_its_rule_and_file_and_stays_in_the_stepper(page, url):
    page.goto(f"{url}?tab=rules&rules=project")
    warning = page.locator(".wb-rules .wb-kv", has_text="invalid regex")
    expect(warning).to_contain_text(re.compile(r"bad-regex \(.*bad-regex\.md\): TTSR condition has invalid regex pattern"))
    expect(warning).to_contain_text("pattern 'print(('")
    # the Stepper lists it as not registered instead of leaving it out of its table
    _stepper(page, url, "ttsr-fired.jsonl")
    expect(page.locator(".wb-rules-table tr", has_text="bad-regex")).to_contain_text("not registered")


# Every legend item of the page's figures (title, and whether one of its renderers has a point to draw
# the marker from): Bokeh draws an item's marker from its renderers' data.
_LEGENDS = """() => [...Bokeh.index.query(v => v.model.type == "Legend")].flatMap(v => v.model.items.map(item => ({
  label: item.label?.value ?? String(item.label?.field ?? ""),
  marked: item.renderers.some(r => {
    const data = r.data_source?.data ?? {};
    const column = Object.values(data)[0];
    return column !== undefined && column.length > 0;
  }),
})))"""


def test_every_legend_item_has_a_marker(page, url, shot):
    page.goto(f"{url}?session=ttsr-fired.jsonl&tab=timeline&rules=project")
    page.wait_for_function(f"() => ({_LEGENDS})().some(i => i.label == 'time bound')", timeout=60_000)
    items = page.evaluate(_LEGENDS)
    labels = {i["label"] for i in items}
    assert {"abort", "retry", "injection", "time bound"} <= labels, labels
    assert all(i["marked"] for i in items), items
    shot(page, "timeline_legend")
    page.goto(f"{url}?session=branched.jsonl&tab=tree")
    page.wait_for_function(f"() => ({_LEGENDS})().some(i => i.label == 'selected')")
    items = page.evaluate(_LEGENDS)
    assert all(i["marked"] for i in items), items


def test_toasts_are_in_the_pages_sans_serif(page, url):
    page.goto(f"{url}?session=broken-line.jsonl&tab=tree")
    expect(page.locator(".wb-tree-row").first).to_be_visible()
    page.locator(".bk-tab", has_text="Problems").first.click()
    page.locator(".wb-problems .tabulator-row", has_text="broken-line.jsonl:12").first.click()
    toast = page.locator(".notyf__message", has_text="line 12").first
    expect(toast).to_be_visible()
    family = toast.evaluate("e => getComputedStyle(e).fontFamily")
    assert re.match(r'\s*"?(Liberation Sans|DejaVu Sans|Arial|Helvetica|sans-serif)', family), family

"""A tree row matched by text it does not show (a ``[bash: …]`` row by its output) says which words
matched, in both flavours (issue 27: such rows looked like wrong hits); a search says why it selects a later match."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import FIXTURES, serving

SAMPLES = FIXTURES.parents[2] / "sample_sessions"
ROW = ".wb-tree-row"

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("clean_page")]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("match") / "served"
    folder.mkdir()
    for name in ("legacy-v1.jsonl", "big-refactor.jsonl"):
        shutil.copy(SAMPLES / name, folder / name)
    with serving([folder]) as served:
        yield served


@pytest.mark.parametrize("flavour", ["omp", "omp18"])
def test_a_bash_row_matched_by_its_output_shows_the_matching_words(page, url, shot, flavour):
    page.goto(f"{url}?session=legacy-v1.jsonl&tab=tree&flavor={flavour}&q=Bob")
    hit = page.locator(ROW, has_text="[bash: head -c 300 fixtures/users.json]")
    expect(hit).to_have_count(1)
    # the command line does not say "Bob"; the row says where it is
    expect(hit.locator(".wb-why")).to_contain_text("matched:")
    expect(hit.locator(".wb-why")).to_contain_text("Bob@Example.com")
    shot(page, f"tree-hidden-match-{flavour}")
    # a search the row's own text shows needs no note
    page.goto(f"{url}?session=legacy-v1.jsonl&tab=tree&flavor={flavour}&q=seed_users")
    shown = page.locator(ROW, has_text="[write: scripts/seed_users.py]")
    expect(shown).to_have_count(1)
    expect(shown.locator(".wb-why")).to_have_count(0)


@pytest.mark.parametrize("width", [1280, 1400])
def test_a_search_keeps_the_agents_selection_in_view_and_says_why(page, url, shot, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{url}?session=big-refactor.jsonl&tab=tree&flavor=omp")
    expect(page.locator(ROW).first).to_be_visible()
    box = page.get_by_placeholder("Search")
    box.fill("migrate")
    box.press("Enter")
    expect(page.locator(".wb-count")).to_contain_text("17/968 shown")
    # the agent selects the match nearest the previous selection (the leaf, near the end), not the first
    note = page.locator(".wb-search-note")
    expect(note).to_contain_text("match 15 of 17 selected")
    expect(note).to_contain_text("as the agent's /tree does")
    expect(page.locator(f"{ROW}.wb-selected")).to_be_in_viewport()
    shot(page, f"tree-search-selection-{width}")
    page.locator(ROW).first.click()
    expect(note).to_have_count(0)

"""A tree row matched by text it does not show (a ``[bash: …]`` row by its output) says which words
matched, in both flavours (issue 27: such rows looked like wrong hits)."""

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
    shutil.copy(SAMPLES / "legacy-v1.jsonl", folder / "legacy-v1.jsonl")
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

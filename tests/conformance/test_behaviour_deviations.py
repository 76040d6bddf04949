"""Every behaviour deviation is written down in the README and names what it affects."""

from pathlib import Path

from tests.conformance.deviations import BEHAVIOUR_DEVIATIONS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_each_behaviour_deviation_is_in_the_readme() -> None:
    missing = [key for key in BEHAVIOUR_DEVIATIONS if key not in README]
    assert missing == []


def test_each_behaviour_deviation_says_what_differs_and_why() -> None:
    for name, entry in BEHAVIOUR_DEVIATIONS.items():
        assert all(len(entry[k]) > 20 for k in ("reference", "workbench", "why")), name

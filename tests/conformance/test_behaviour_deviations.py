"""Every behaviour deviation is written down in the README and names what it affects."""

from pathlib import Path

from tests.conformance.deviations import BEHAVIOUR_DEVIATIONS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_each_behaviour_deviation_is_in_the_readme() -> None:
    missing = [key for key in BEHAVIOUR_DEVIATIONS if key not in README]
    assert missing == []


def test_each_behaviour_deviation_says_why() -> None:
    assert all(len(reason) > 60 for reason in BEHAVIOUR_DEVIATIONS.values())

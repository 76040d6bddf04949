"""Keep the README honest: its commands exist, its deviations match the registry, its pictures exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.conformance.deviations import DEVIATIONS
from workbench.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _workbench_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    lines = []
    for block in blocks:
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("workbench "):
                lines.append(line)
    return lines


def test_readme_has_the_two_commands():
    assert "bash scripts/serve" in README
    assert "bash scripts/test" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci


@pytest.mark.parametrize("line", _workbench_lines())
def test_readme_commands_name_real_subcommands(line):
    words = [w for w in shlex.split(line) if not w.startswith(("[", "-"))][1:]
    parser = build_parser()
    # Walk down the subcommand tree as far as the README's words name subcommands.
    action = parser._subparsers._group_actions[0]  # noqa: SLF001 - argparse has no public accessor
    assert words[0] in action.choices, f"README names unknown command {words[0]!r}"
    sub = action.choices[words[0]]
    if sub._subparsers is not None and len(words) > 1:  # noqa: SLF001
        nested = sub._subparsers._group_actions[0]  # noqa: SLF001
        assert words[1] in nested.choices, f"README names unknown subcommand {line!r}"


def test_readme_lists_every_registered_deviation():
    for test_id in DEVIATIONS:
        assert test_id in README, f"deviation {test_id} is missing from the README"


def test_readme_screenshots_exist():
    for image in re.findall(r"\]\((docs/screenshots/[^)]+)\)", README):
        assert (ROOT / image).is_file(), image

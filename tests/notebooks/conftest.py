"""The notebook tests' report: a diagnosis recorded by a test is printed in the run's summary, where a
CI log (which keeps only the end of the output) still shows it."""

from __future__ import annotations

import pytest

_DIAGNOSES = pytest.StashKey[list[str]]()


@pytest.fixture
def report_view_failure(request):
    """``report_view_failure(text)``: print ``text`` in the terminal summary of this run."""
    return request.config.stash.setdefault(_DIAGNOSES, []).append


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for text in config.stash.get(_DIAGNOSES, []):
        terminalreporter.section("JupyterLab: a notebook view did not answer")
        for line in text.splitlines()[:120]:
            terminalreporter.write_line(line[:400])

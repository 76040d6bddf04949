"""The reference oracle fixture and the agreement summary printed after the run.

Without the oracle (``scripts/reference-oracle`` not run, no registry) the differential tests
skip with the reason; with ``CI=true`` they fail instead, so CI cannot pass by skipping them.
"""

from __future__ import annotations

import pytest

from tests.reference.oracle import Oracle, require_oracle

# Filled by the differential suites: suite name -> (cases, agreeing, excused by a deviation,
# not runnable because the workbench on this branch lacks the feature).
AGREEMENT: dict[str, tuple[int, int, int, int]] = {}


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return require_oracle()


def pytest_terminal_summary(terminalreporter) -> None:
    if not AGREEMENT:
        return
    terminalreporter.section("agreement with the reference (oh-my-pi under Bun)")
    for suite, (total, agree, excused, missing) in sorted(AGREEMENT.items()):
        if missing == total:
            terminalreporter.write_line(f"{suite}: {total} cases not run: the workbench on this branch lacks the feature")
            continue
        terminalreporter.write_line(
            f"{suite}: {agree}/{total} cases identical ({100 * agree / total:.1f}%), "
            f"{excused} differ by a listed deviation, {total - agree - excused - missing} differ unexplained"
            + (f", {missing} not run (feature missing)" if missing else "")
        )

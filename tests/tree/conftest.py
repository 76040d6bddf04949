from __future__ import annotations

from pathlib import Path

import pytest

SESSION_FIXTURES = Path(__file__).parent.parent / "sessions" / "fixtures"  # the session files both suites read


@pytest.fixture
def fixture_path():
    def get(name: str) -> Path:
        return SESSION_FIXTURES / name

    return get

"""What is worked out once per rule set rather than once per session (a backtest plays one rule set
over thousands of sessions)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from workbench.rules import Rule

T = TypeVar("T")

__all__ = ["LastRuleSet"]


class LastRuleSet(Generic[T]):
    """``make(rules)`` for the last rule set asked about, made again when another one comes.

    The rule set is recognised by the identity of its rules; the memo holds them, so their identities
    cannot be reused by other objects. Safe across threads (the app runs backtests in the background):
    the memo is one tuple, read once and replaced whole, so a race makes a value twice, never a wrong one.
    """

    def __init__(self, make: Callable[[tuple[Rule, ...]], T]) -> None:
        self._make = make
        self._last: tuple[tuple[Rule, ...], T] | None = None

    def __call__(self, rules: Sequence[Rule]) -> T:
        key = tuple(rules)
        last = self._last
        if last is not None and len(key) == len(last[0]) and all(a is b for a, b in zip(key, last[0])):
            return last[1]
        value = self._make(key)
        self._last = (key, value)
        return value

"""The one exception tree of the workbench, and ``Diagnostic``, a problem reported without stopping.

Every error a user can cause (a bad file, a bad flag, a missing session) is a ``WorkbenchError`` whose
message says what is wrong and where: the file, the line and the field when there is one. Only the CLI
and the UI's notification catch these; everything else lets them travel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AccessError",
    "Diagnostic",
    "FieldError",
    "InputError",
    "JudgeError",
    "JudgeFileError",
    "JudgePending",
    "NotFoundError",
    "RuleFileError",
    "SessionFileError",
    "StoreError",
    "StreamFileError",
    "TimeBoundError",
    "UsageError",
    "WorkbenchError",
    "WorkerFileError",
]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something wrong that does not stop the work, kept in order as it is found.

    The engine's diagnostics are the reference's ``logger.warn`` calls: ``message`` is its text and
    ``context`` its context object (``ruleName``, ``pattern``, ...). A session file's diagnostics say
    where: ``path``, the 1-based ``line`` and a ``kind`` (``malformed``, ``two-objects``, ...).
    """

    message: str
    context: Mapping[str, Any] = field(default_factory=dict, hash=False)
    path: str | None = None
    line: int | None = None
    kind: str | None = None

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"

    @property
    def is_notice(self) -> bool:
        """A session file's ``unknown-type`` / ``newer-version``: worth saying; nothing was skipped."""
        return self.kind in NOTICE_KINDS


# Diagnostic kinds that report something unusual but lose nothing (the entry is kept and shown).
NOTICE_KINDS: frozenset[str] = frozenset({"unknown-type", "newer-version", "message-not-object"})


class WorkbenchError(Exception):
    """Base of every error the workbench raises on purpose."""


@dataclass(eq=False)
class InputError(WorkbenchError):
    """Bad content in a user's file: names the file, the 1-based line and the field when known."""

    message: str
    path: str | None = None
    line: int | None = None
    field: str | None = None

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        parts = [p for p in (where, f"field '{self.field}'" if self.field else "") if p]
        prefix = ": ".join(parts)
        return f"{prefix}: {self.message}" if prefix else self.message


class SessionFileError(InputError):
    """A session file that cannot be used at all (not a session, unreadable)."""


class StreamFileError(InputError):
    """A recorded stream file with a bad line or event."""


class RuleFileError(InputError):
    """A rule file that cannot be read or parsed."""


_UNSET: Any = object()


class FieldError(WorkbenchError):
    """An error about one option (``field``, as the library's keyword names it) and its ``value``.

    The message says what is wrong without naming how the option was given; ``named(name)`` puts the
    name in front (the library's ``str`` uses the field; the command line maps it to its flag, once,
    in ``workbench.cli.options``)."""

    def __init__(self, message: str, *, field: str | None = None, value: Any = _UNSET) -> None:
        self.message = message
        self.field = field
        self.value = value
        super().__init__(self.named(field))

    def named(self, name: str | None) -> str:
        if name is None:
            return self.message
        if self.value is _UNSET:
            return f"{name} {self.message}"
        return f"{name} {self.value}: {self.message}"


class NotFoundError(FieldError):
    """A session, entry, rule or file the user named does not exist."""


class UsageError(FieldError):
    """A command-line flag or a setting with a value the workbench cannot use."""


class AccessError(WorkbenchError):
    """A path outside the roots the app serves."""


class StoreError(WorkbenchError):
    """The DuckDB store cannot do what was asked (a locked file, a bad database)."""


class TimeBoundError(WorkbenchError):
    """A rule condition ran past its time bound (catastrophic backtracking)."""


class JudgeFileError(InputError):
    """A judge answer file (``--judge answers.yaml``) with a bad entry."""


class JudgeError(WorkbenchError):
    """A judge could not answer (an HTTP endpoint that failed or answered nonsense)."""


class JudgePending(WorkbenchError):
    """A replay reached a judge that waits for a person's answer (the ``ask`` judge)."""

    def __init__(self, request: object) -> None:
        self.request = request
        step = getattr(request, "step", "?")
        super().__init__(f"the judge is waiting for an answer at step {step}")


class WorkerFileError(WorkbenchError):
    """A cluster worker cannot read a session file the client sent it by path."""

    def __init__(self, worker: str, file: str, reason: str) -> None:
        self.worker, self.file, self.reason = worker, file, reason
        super().__init__(f"worker {worker} cannot read {file} ({reason}); start the workers where this path "
                         "is readable, or where none of the session files is (their bytes are sent then)")

    def __reduce__(self) -> tuple[Any, tuple[str, str, str]]:
        # Raised on a worker and re-raised on the client: pickled with its own arguments.
        return type(self), (self.worker, self.file, self.reason)

"""Shared output helpers for subcommands: JSON printing, the ``--json`` flag and the progress bar."""

from __future__ import annotations

import argparse
import json
import sys
from types import TracebackType
from typing import Any

import orjson
from tqdm import tqdm


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


class ProgressBar:
    """The CLI's one progress display: a ``tqdm`` bar on stderr fed by a ``workbench.sessions.Progress``
    callback (``bar(done, total, path)``), e.g. ``12/40 sessions [00:03, 4.10 sessions/s]``. Use it as a context
    manager so the bar is closed (and its line ended) however the work ends."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self._bar: tqdm | None = None

    def __call__(self, done: int, total: int, path: str = "") -> None:
        if self._bar is None:
            self._bar = tqdm(total=total, file=sys.stderr, mininterval=0.1, dynamic_ncols=True, unit=f" {self.unit}",
                             bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt}{unit} [{elapsed}, {rate_fmt}]")
        self._bar.total = total
        self._bar.update(done - self._bar.n)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
# Subclasses, dataclasses and datetimes go to ``default`` (so to the fallback) instead of orjson's
# own encodings, which differ from ``default=str``.
_FAST_OPTIONS = (orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                 | orjson.OPT_PASSTHROUGH_DATETIME)


def _reject(value: Any) -> Any:
    raise TypeError("not a JSON type")  # any non-JSON value: let print_json do it (default=str)


def dumps_json_fast(data: Any) -> str:
    """``print_json``'s text (indent 2, non-ASCII kept) via orjson, for float-free payloads.

    orjson writes the same bytes for str/int/bool/None/list/dict: same escapes (``\\u001f``), same
    separators. It writes some floats differently (``1e16``, NaN as null), so callers pass payloads
    with no floats; anything it refuses (a lone surrogate, an int past 64 bits, a non-JSON type) falls
    back to the standard library. A differential test pins the equality.
    """
    try:
        return orjson.dumps(data, default=_reject, option=_FAST_OPTIONS).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def print_json_fast(data: Any) -> None:
    """``print_json`` for large float-free payloads (the 100k-row `tree --json`)."""
    sys.stdout.write(dumps_json_fast(data))
    sys.stdout.write("\n")

"""Shared helpers for subcommands: registering one, JSON printing, the ``--json`` flag and the progress bar."""

from __future__ import annotations

import argparse
import codecs
import inspect
import io
import json
import os
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

import orjson
from tqdm import tqdm


def add_command(subparsers: Any, name: str, handler: Callable[[argparse.Namespace], int], *, help: str,
                **options: Any) -> argparse.ArgumentParser:
    """Register subcommand ``name`` run by ``handler``; its ``--help`` description is the handler's
    docstring (the one place the command is described), unless ``description`` is given."""
    options.setdefault("description", inspect.getdoc(handler))
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help, **options)
    parser.set_defaults(handler=handler)
    return parser


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


def _fast_bytes(data: Any) -> bytes | None:
    """orjson's UTF-8 bytes of ``data`` as ``print_json`` would write it, or None where they could differ."""
    try:
        return orjson.dumps(data, default=_reject, option=_FAST_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def dumps_json_fast(data: Any) -> str:
    """``print_json``'s text (indent 2, non-ASCII kept) via orjson, for float-free payloads.

    orjson writes the same bytes for str/int/bool/None/list/dict: same escapes (``\\u001f``), same
    separators. It writes some floats differently (``1e16``, NaN as null), so callers pass payloads
    with no floats; anything it refuses (a lone surrogate, an int past 64 bits, a non-JSON type) falls
    back to the standard library. A differential test pins the equality.
    """
    raw = _fast_bytes(data)
    return raw.decode("utf-8") if raw is not None else json.dumps(data, ensure_ascii=False, indent=2, default=str)


def _utf8_binary(out: Any) -> Any:
    """The byte stream under a text stream that writes str as UTF-8 unchanged, or None."""
    if not isinstance(out, io.TextIOWrapper) or os.linesep != "\n":
        return None  # a Windows console or file would turn "\n" into "\r\n"
    try:
        return out.buffer if codecs.lookup(out.encoding).name == "utf-8" else None
    except LookupError:
        return None


def print_json_fast(data: Any) -> None:
    """``print_json`` for large float-free payloads (the 100k-row `tree --json`).

    To a UTF-8 text stream (a terminal, pipe or file) orjson's bytes go to its byte stream as they
    are: the same bytes the text layer would write, without decoding 30 MB to str and encoding it back.
    """
    raw = _fast_bytes(data)
    binary = _utf8_binary(sys.stdout) if raw is not None else None
    if binary is not None:
        sys.stdout.flush()  # what was written as text goes first
        binary.write(raw)
        binary.write(b"\n")
        return
    sys.stdout.write(raw.decode("utf-8") if raw is not None else json.dumps(data, ensure_ascii=False, indent=2, default=str))
    sys.stdout.write("\n")

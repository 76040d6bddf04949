"""Shared output helpers for subcommands: JSON printing and the ``--json`` flag."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


try:  # a declared dependency; without it print_json_fast is print_json
    import orjson as _orjson
except ImportError:  # pragma: no cover
    _orjson = None


# Subclasses, dataclasses and datetimes go to ``default`` (so to the fallback) instead of orjson's
# own encodings, which differ from ``default=str``.
_FAST_OPTIONS = (_orjson.OPT_INDENT_2 | _orjson.OPT_PASSTHROUGH_SUBCLASS | _orjson.OPT_PASSTHROUGH_DATACLASS
                 | _orjson.OPT_PASSTHROUGH_DATETIME) if _orjson is not None else 0


def _reject(value: Any) -> Any:
    raise TypeError("not a JSON type")  # any non-JSON value: let print_json do it (default=str)


def dumps_json_fast(data: Any) -> str:
    """``print_json``'s text (indent 2, non-ASCII kept) via orjson, for float-free payloads.

    orjson writes the same bytes for str/int/bool/None/list/dict: same escapes (``\\u001f``), same
    separators. It writes some floats differently (``1e16``, NaN as null), so callers pass payloads
    with no floats; anything it refuses (a lone surrogate, an int past 64 bits, a non-JSON type) falls
    back to the standard library. A differential test pins the equality.
    """
    if _orjson is not None:
        try:
            return _orjson.dumps(data, default=_reject, option=_FAST_OPTIONS).decode("utf-8")
        except (TypeError, _orjson.JSONEncodeError):
            pass
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def print_json_fast(data: Any) -> None:
    """``print_json`` for large float-free payloads (the 100k-row `tree --json`)."""
    sys.stdout.write(dumps_json_fast(data))
    sys.stdout.write("\n")

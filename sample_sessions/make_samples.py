#!/usr/bin/env python3
"""Regenerate every file in ``sample_sessions/`` (sessions, streams and the ``project/`` folder).

    python sample_sessions/make_samples.py            # rewrite the samples in place
    python sample_sessions/make_samples.py --out DIR  # write them somewhere else
    python sample_sessions/make_samples.py --check    # exit 1 if the committed files differ

The output is deterministic: ids are hashes of (session, counter), timestamps advance from fixed
starts, the big session uses a seeded ``random.Random``; no clock, no environment. Every file's
content comes from the modules in ``samplegen/`` (see README.md for what each file shows).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from samplegen import big_refactor, fix_auth, ttsr_fired  # noqa: E402
from samplegen.omp18 import write_omp18  # noqa: E402
from samplegen.project import write_project  # noqa: E402
from samplegen.session import write_jsonl  # noqa: E402
from samplegen.small import write_small  # noqa: E402
from samplegen.streams import write_streams  # noqa: E402


def generate(out: str) -> list[str]:
    """Write every sample under ``out``; returns the relative paths written."""
    os.makedirs(out, exist_ok=True)
    written = []
    for name, module in (("fix-auth.jsonl", fix_auth), ("ttsr-fired.jsonl", ttsr_fired), ("big-refactor.jsonl", big_refactor)):
        write_jsonl(os.path.join(out, name), module.build().records())
        written.append(name)
    written += write_small(out)
    written += write_omp18(out)
    written += write_streams(out)
    written += [os.path.join("project", p) for p in write_project(os.path.join(out, "project"))]
    return written


def check(target: str) -> list[str]:
    """Relative paths whose committed bytes differ from a fresh generation (missing files included)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = generate(tmp)
        return [p for p in paths if not os.path.exists(os.path.join(target, p))
                or not filecmp.cmp(os.path.join(tmp, p), os.path.join(target, p), shallow=False)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=HERE, help="folder to write into (default: this folder)")
    parser.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = parser.parse_args(argv)
    if args.check:
        stale = check(args.out)
        for path in stale:
            print(f"differs: {path}")
        return 1 if stale else 0
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

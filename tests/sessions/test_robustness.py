"""Mangled session files never crash loading, the tree, the context or the tree list."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from workbench.errors import SessionFileError
from workbench.sessions import SessionTree, build_session_context, parse_session_bytes
from workbench.tree import TreeList

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.jsonl"))


def _mutations(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    out = []
    for _ in range(count):
        buf = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            if not buf:
                break
            i = rng.randrange(len(buf))
            op = rng.random()
            if op < 0.4:
                buf[i] = rng.choice(b'{}[]",:\n\\0aZ\xff\x00')
            elif op < 0.7:
                del buf[i:i + rng.randint(1, 30)]
            else:
                buf[i:i] = rng.choice([b"}{", b"\n", b'"parentId":"x",', b"null", b'{"type":"session","id":"s"}\n'])
        out.append(bytes(buf))
    return out


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_mutated_files_load_or_fail_cleanly(fixture):
    rng = random.Random(fixture.name)
    for data in _mutations(fixture.read_bytes(), rng, 40):
        try:
            session = parse_session_bytes(data, path="m.jsonl")
        except SessionFileError:
            continue
        tree = SessionTree(session)
        tree.get_tree()
        build_session_context(session)
        for flavor in ("omp", "pi"):
            tl = TreeList(session, flavor=flavor, filter_mode="all").set_search("a b")
            tl.lines()
            tl.down().up().cycle_filter().lines()

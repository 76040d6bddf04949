"""Rule capability loading and ``ttsr.*`` settings, differential: generated project and home folders
through the reference's own settings loader and rule capability, and through the workbench.

The reference side is oh-my-pi 18.3.4's ``Settings.loadReadOnly`` (``config/settings.ts``: the user's
``config.yml``, the project items of the settings capability, the runtime overrides above them) and
``loadCapability("rules")`` (``capability/index.ts``) with every provider of rules and settings
registered as ``discovery/index.ts`` registers them, the registry bound to those settings as a
session binds it (``initializeWithSettings``: ``enabledProviders``, ``disabledProviders`` and
``disabledExtensions`` read from them), run by ``harness/capability_oracle.ts``. The workbench side is
``read_agent_settings`` and ``load_rules`` with the switches in effect (``workbench.cli.agent_config``).
Cases: ``generate_capability.py``. Compared per case: every ``ttsr.*`` value and switch with the layer
that gave it, the rules kept (name, provider, path, level, their fields, in order), every rule the
providers produced with the ones shadowed by a namesake, and the warnings.

Stand-ins the harness needs (``capability_preload.ts``): pi-utils' frontmatter split and directory
helpers and pi-natives' file glob are unpublished at 18.3.4, so the harness gives its own (a file
listing sorted by name, ``.gitignore`` not followed; frontmatter as the bundled agent splits it, on the
well-formed frontmatter the cases hold); README "Capability differential" says so.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.reference.deviations import CAPABILITY_DEVIATIONS, Deviation
from tests.reference.differential import Suite, _short
from tests.reference.generate_capability import EDGES, capability_case, edge_case
from tests.reference.oracle import Oracle
from tests.reference.workbench_capability import materialize, run_workbench

GENERATED = 400
CASES = GENERATED + len(EDGES)
_ROOT: list[Path] = []
_INPUTS: dict[int, dict[str, Any]] = {}  # seed -> the materialized case (absolute folders)
_PACKAGE: list[str] = []
_ANSWERS: dict[int, list[dict[str, Any]]] = {}  # id(cases) -> the reference's answers (one Bun run per session)


def _root() -> Path:
    if not _ROOT:
        root = Path(tempfile.mkdtemp(prefix="ttsr-capability-")).resolve()
        atexit.register(shutil.rmtree, root, True)
        _ROOT.append(root)
    return _ROOT[0]


def _reference(oracle: Oracle, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    _PACKAGE[:] = [str(oracle.agent)]
    if id(cases) not in _ANSWERS:
        for case in cases:
            _INPUTS[case["seed"]] = materialize(case, _root() / f"case{case['seed']}")
        _ANSWERS[id(cases)] = oracle.run([_INPUTS[c["seed"]] for c in cases], script="capability_oracle.ts",
                                         env_extra={"REFERENCE_REAL_CAPABILITY": "1"})
    return _ANSWERS[id(cases)]


def _ours(case: dict[str, Any]) -> dict[str, Any]:
    return run_workbench(_INPUTS[case["seed"]], _PACKAGE[0])


def _differ(case: dict[str, Any], ref: dict[str, Any], ours: dict[str, Any]) -> str | None:
    for sid, want in ref["settings"].items():
        if ours["settings"][sid] != want:
            return f"setting {sid}: reference {_short(want)}, workbench {_short(ours['settings'][sid])}"
    for key in ("items", "all", "warnings"):
        if ref[key] != ours[key]:
            for i, (a, b) in enumerate(zip(ref[key], ours[key])):
                if a != b:
                    return f"{key}[{i}]: reference {_short(a)}, workbench {_short(b)}"
            extra = ref[key][len(ours[key]):] or ours[key][len(ref[key]):]
            return (f"{key}: reference has {len(ref[key])}, workbench {len(ours[key])}: first extra "
                    f"{_short(extra[0])}")
    return None


def _only_the_seed_layout(case: dict[str, Any]) -> bool:
    """The ``.xcsh`` deviation excuses a case only when it is the whole difference: with the case's
    ``.xcsh`` folders moved aside, the workbench answers as the reference did."""
    root = Path(_INPUTS[case["seed"]]["cwd"]).parents[len(Path(case["cwd"]).parts) - 1]
    seeds = sorted({root / rel.split("/.xcsh/")[0] / ".xcsh" for rel in case["files"] if "/.xcsh/" in rel})
    aside = [(d, d.with_name(".xcsh-aside")) for d in seeds if d.is_dir()]
    for d, moved in aside:
        d.rename(moved)
    try:
        ours = _ours(case)
    finally:
        for d, moved in aside:
            moved.rename(d)
    ref = next(r for c, r in zip(CAPABILITY.cases, _ANSWERS[id(CAPABILITY.cases)]) if c["seed"] == case["seed"])
    return _differ(case, ref, ours) is None


_DEVIATIONS = [Deviation(d.key, d.reason, lambda c, d=d: d.applies(c) and _only_the_seed_layout(c))
               if d.key == "capability.xcsh-seed-layout" else d for d in CAPABILITY_DEVIATIONS]
CAPABILITY = Suite("capability (rule loading, ttsr settings)", [capability_case(seed) for seed in range(GENERATED)]
                   + [edge_case(i) for i in range(len(EDGES))],
                   _ours, _differ, reference=_reference, deviations=_DEVIATIONS)


@pytest.mark.parametrize("index", range(CASES))
def test_capability_case(oracle, index):
    CAPABILITY.check(oracle, index)


def test_every_capability_deviation_is_observed(oracle):
    """A listed deviation that explains no disagreement any more is stale: remove it."""
    claimed = {v.deviation.key for v in CAPABILITY.run(oracle) if v.deviation is not None}
    keys = {d.key for d in _DEVIATIONS}
    assert keys - claimed == set(), f"deviations no generated case shows any more: {keys - claimed}"


def test_generated_folders_reach_every_provider(oracle):
    """The cases are worth comparing only if the reference loads rules of every provider, shadows
    namesakes across providers, reads opted-in user folders and takes settings from every layer."""
    CAPABILITY.run(oracle)
    refs = _reference(oracle, CAPABILITY.cases)
    seen: dict[str, int] = {}

    def count(key: str) -> None:
        seen[key] = seen.get(key, 0) + 1

    for ref in refs:
        if "error" in ref:
            continue
        for item in ref["all"]:
            count(f"provider:{item['provider']}")
            if item["shadowed"]:
                count("shadowed")
            if item["level"] == "user" and item["provider"] in ("cursor", "windsurf", "claude-plugins"):
                count("opted-in user folder")
        for value in ref["settings"].values():
            count(f"layer:{value['provenance']}")
    wanted = [*(f"provider:{p}" for p in ("native", "agents", "cursor", "windsurf", "cline", "github",
                                            "claude-plugins", "builtin-defaults")),
              "shadowed", "opted-in user folder", "layer:runtime", "layer:project", "layer:global"]
    thin = {k: seen.get(k, 0) for k in wanted if seen.get(k, 0) < 5}
    assert not thin, thin

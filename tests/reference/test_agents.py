"""``agents:`` frontmatter against the reference under Bun: ``parseRuleAgents``, ``ruleAppliesToAgent``
(``Bun.Glob``) and ``bucketRules`` with ``agentName``, on generated patterns and names."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

from tests.reference.conftest import AGREEMENT
from workbench.rules import Rule, bucket_rules, parse_rule_agents, rule_applies_to_agent

HARNESS = Path(__file__).with_name("harness")

AGENTS = [None, [], "", "main", "Main", "sub", "scout", "Scout, reviewer", ["scout", "SCOUT"], "{scout,task}",
          "scout*", "s?b", "[mt]ain", "[!m]ain", "*", "re\\*", ["'main'", '"sub"'], "task-*", "a,b , c",
          ["{main,sub}", "x"], "**", "scout{1,2}", "[a-c]*"]
NAMES = ["main", "sub", "scout", "Scout", " scout ", "task", "task-1", "reviewer", "scout1", "scout3", "re*", "rex",
         "tain", "b", "c", "", None]


def _run(oracle, cases):
    env = dict(os.environ, REFERENCE_AGENT_DIR=str(oracle.agent), REFERENCE_TUI_DIR=str(oracle.tui))
    proc = subprocess.run([str(oracle.bun), "--preload", str(HARNESS / "preload.ts"), str(HARNESS / "agents_oracle.ts")],
                          input=json.dumps({"cases": cases}), capture_output=True, text=True, env=env, cwd=HARNESS,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)["results"]


class _Accepting:
    def add_rule(self, rule):
        return True


def _bucket_cases():
    rules = [{"name": f"r{i}", "path": f"/r{i}.md", "content": "b", "condition": ["x"], "agents": a,
              "_source": {"provider": "builtin-defaults" if i % 5 == 0 else "native"}}
             for i, a in enumerate(AGENTS)]
    for agent, disabled, builtin in itertools.product(["main", "sub", "scout", None], [[], ["r3", " r7 "]], [True, False]):
        yield {"agents": None, "names": [],
               "bucket": {"rules": rules, "agentName": agent, "disabledRules": disabled, "builtinRules": builtin}}


def _workbench(case):
    parsed = parse_rule_agents(case["agents"])
    out = {"parsed": list(parsed) if parsed is not None else None,
           "applies": [rule_applies_to_agent(parsed, n) for n in case["names"]]}
    if "bucket" in case:
        from workbench.rules import RuleSource

        b = case["bucket"]
        rules = [Rule(name=r["name"], path=r["path"], content=r["content"], condition=tuple(r["condition"]),
                      agents=parse_rule_agents(r["agents"]),
                      source=RuleSource(provider=r["_source"]["provider"], provider_name="", path=r["path"]))
                 for r in b["rules"]]
        buckets = bucket_rules(rules, _Accepting(), disabled_rules=b["disabledRules"], builtin_rules=b["builtinRules"],
                               agent_name=b["agentName"])
        out["kept"] = [x.rule.name for x in (*buckets.ttsr, *buckets.always_apply, *buckets.rulebook)]
    return out


def test_agents_scoping_agrees_with_the_reference(oracle):
    cases = [{"agents": a, "names": NAMES} for a in AGENTS] + list(_bucket_cases())
    reference = _run(oracle, cases)
    differences = []
    for case, want in zip(cases, reference, strict=True):
        got = _workbench(case)
        if got != {k: want.get(k) for k in got}:
            differences.append((case.get("agents"), case.get("bucket", {}).get("agentName"), got, want))
    AGREEMENT["agents (parseRuleAgents, ruleAppliesToAgent, bucketRules)"] = (
        len(cases), len(cases) - len(differences), 0, 0)
    assert not differences, differences[:5]

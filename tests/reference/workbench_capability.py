"""The workbench's answer to a capability case, in the shape ``harness/capability_oracle.ts`` gives.

As the commands that discover rules read them (``workbench.cli.agent_config``): the config layers
with the case's overrides above them (``read_agent_settings``), the provider switches in effect
passed to ``load_rules``, the bundled rules read from the same agent package as the reference's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from workbench.cli.agent_config import discovery_switches
from workbench.rules import Rule, load_rules, read_agent_settings

ROOT_MARK = "@ROOT@"
# workbench provenance -> the reference's SettingProvenance
_PROVENANCE = {"flag": "runtime", "user": "global", "project": "project", "default": "default"}
_SETTING_IDS = [f"ttsr.{k}" for k in ("enabled", "judge", "contextMode", "interruptMode", "repeatMode",
                                       "repeatGap", "builtinRules", "disabledRules")] + [
    "enabledProviders", "disabledProviders", "disabledExtensions"]


def materialize(case: dict[str, Any], root: Path) -> dict[str, Any]:
    """Write the case's files under ``root`` (emptied first); the reference's input for it."""
    if root.exists():
        shutil.rmtree(root)
    for rel, text in case["files"].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace(ROOT_MARK, str(root)), encoding="utf-8")
    (root / case["cwd"]).mkdir(parents=True, exist_ok=True)
    (root / "home").mkdir(parents=True, exist_ok=True)
    return {"cwd": str(root / case["cwd"]), "home": str(root / "home"),
            "overrides": json.loads(json.dumps(case["overrides"]).replace(ROOT_MARK, str(root)))}


def _rule(rule: Rule, provider_name: str) -> dict[str, Any]:
    source = rule.source
    out: dict[str, Any] = {"name": rule.name, "provider": source.provider if source else None,
                           "providerName": provider_name, "path": rule.path,
                           "level": source.level if source else None}
    fields = {"content": rule.content, "description": rule.description, "globs": rule.globs,
              "alwaysApply": rule.always_apply, "condition": rule.condition, "astCondition": rule.ast_condition,
              "question": rule.question, "scope": rule.scope, "agents": rule.agents,
              "interruptMode": rule.interrupt_mode}
    for key, value in fields.items():
        if value is not None:
            out[key] = list(value) if isinstance(value, tuple | list) else value
    return out


def run_workbench(inputs: dict[str, Any], omp_package: str) -> dict[str, Any]:
    flags = {k.removeprefix("ttsr."): v for k, v in inputs["overrides"].items()}
    settings = read_agent_settings(cwd=inputs["cwd"], home=inputs["home"], env={}, flags=flags)
    out: dict[str, Any] = {"settings": {}}
    for sid in _SETTING_IDS:
        value = settings.get(sid.removeprefix("ttsr."))
        out["settings"][sid] = {"value": value.value, "provenance": _PROVENANCE[value.source]}
    result = load_rules(cwd=inputs["cwd"], home=inputs["home"], env={}, omp_package=omp_package,
                        **discovery_switches(settings))
    names = {item.rule.path: item.provider_name for item in result.items}
    out["items"] = [_rule(r, names.get(r.path, "")) for r in result.rules]
    out["all"] = [{**_rule(item.rule, item.provider_name), "shadowed": item.shadowed}
                  for item in result.items if item.disabled is None]
    out["warnings"] = list(result.warnings)
    return out

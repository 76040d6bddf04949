"""The workbench's answer to a coordinator case (``generate_coordinator.py``), in the harness's shape.

The case's stream goes through ``SimulatedSession`` (``workbench.replay``) with the case's rules (built
by ``rule_from_frontmatter``), settings, agent name, edit mode and the installed agent's three reminder
templates; its events, notices and final state are turned into the JSON ``harness/coordinator_oracle.ts``
reports, so the two compare with ``==``. The reference reports rendered texts as the template and
values each rule was filled with (its renderer is not published); ``render_reference`` renders those
with the workbench's renderer, so a difference in display paths, order, joins or bodies still shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.replay import ReplayConfig, SimulatedSession
from workbench.replay.judge.judges import FixedJudge
from workbench.replay.judge.queue import completed_outputs
from workbench.replay.stream import make_stream, parse_event
from workbench.rules import RuleSource
from workbench.rules.building import rule_from_frontmatter
from workbench.ttsr.templates import render_template

_TEMPLATE_FILES = {"interrupt": "ttsr-interrupt", "reminder": "ttsr-tool-reminder", "warning": "ttsr-warning"}
_HARNESS_ONLY = {"args", "surface"}


def agent_templates(agent_dir: Path) -> dict[str, str]:
    """The installed agent's own reminder templates, which both sides render with."""
    return {k: (agent_dir / "src" / "prompts" / "system" / f"{f}.md").read_text(encoding="utf-8")
            for k, f in _TEMPLATE_FILES.items()}


def render_reference(rendered: dict[str, Any] | None, templates: dict[str, str]) -> str | None:
    """The text of a reference rendering: each part through its template, joined as the reference joined them."""
    if rendered is None:
        return None
    texts = [render_template(templates[p["template"]], name=p["name"], path=p["path"], content=p["content"],
                             subject=p.get("subject")) for p in rendered["parts"]]
    out = rendered["prefix"]
    for i, text in enumerate(texts):
        out += text + (rendered["joins"][i] if i < len(rendered["joins"]) else "")
    return out + rendered["suffix"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return ""


def _summary(message: Any) -> dict[str, Any]:
    role = message.get("role")
    if role == "assistant":
        return {"role": "assistant", "stopReason": message.get("stopReason")}
    if role == "toolResult":
        return {"role": "toolResult", "toolCallId": message.get("toolCallId"), "text": _text(message.get("content")),
                "isError": bool(message.get("isError"))}
    if role == "custom":
        return {"role": "custom", "customType": message.get("customType"), "text": message.get("content"),
                "details": dict(message.get("details") or {})}
    return {"role": role, "text": _text(message.get("content"))}


def _output(output: Any) -> dict[str, Any]:
    ctx: dict[str, Any] = {"source": output.ctx.source}
    for key, attr in (("toolName", "tool_name"), ("streamKey", "stream_key"), ("filePaths", "file_paths")):
        value = getattr(output.ctx, attr)
        if value is not None:
            ctx[key] = list(value) if isinstance(value, (list, tuple)) else value
    return {"content": output.content, "context": ctx, "subject": output.subject}


def run_workbench(case: dict[str, Any], templates: dict[str, str]) -> dict[str, Any]:
    rules = [rule_from_frontmatter(r["name"], r["frontmatter"], r["body"], r["path"],
                                   RuleSource(provider=r["provider"], provider_name=r["provider"], path=r["path"]))
             for r in case["rules"]]
    events = [parse_event({k: v for k, v in ev.items() if k not in _HARNESS_ONLY}) for ev in case["events"]]
    stream = make_stream(events, cwd=case["cwd"])
    judge = None if case.get("judge") is None else FixedJudge(case["judge"] == "yes")
    config = ReplayConfig.of(case["settings"], cwd=case["cwd"], home=case["home"], templates=templates,
                             edit_mode=case["workbenchEditMode"], agent=case["agentName"], time_bound=None,
                             judge=judge)
    sim = SimulatedSession(rules, config, stream=stream)
    outputs = []
    for i, ev in enumerate(stream.events):
        if sim.feed(i, ev) == "live" and ev.type == "message_end":
            message = sim.conversation.last()
            found = completed_outputs(message, cwd=case["cwd"], edit_mode=config.tool_edit_mode)
            outputs.append({"step": i, "outputs": [_output(o) for o in found]})
    result = sim.finish()
    out: list[dict[str, Any]] = []
    retry_at: dict[int, dict[str, Any]] = {}
    for ev in result.events:
        if ev.type == "ttsr_triggered":
            out.append({"step": ev.step, "type": "ttsr_triggered", "rules": list(ev.rules)})
        elif ev.type == "abort":
            out.append({"step": ev.step, "type": "abort", "reason": ev.reason, "toolCallId": ev.tool_call_id})
        elif ev.type == "retry":
            retry_at[ev.step] = {"step": ev.step, "type": "retry", "rules": list(ev.rules), "text": None}
            out.append(retry_at[ev.step])
        elif ev.type == "injection" and not ev.detail.get("deferred"):
            retry_at[ev.step]["text"] = ev.content
        elif ev.type == "injection" and ev.detail.get("judged"):
            out.append({"step": ev.step, "type": "aside", "rules": list(ev.rules), "text": ev.content})
        elif ev.type == "injection":
            out.append({"step": ev.step, "type": "injection", "deferred": True, "rules": list(ev.rules),
                        "text": ev.content})
        elif ev.type == "reminder":
            out.append({"step": ev.step, "type": "reminder", "toolCallId": ev.tool_call_id, "rules": list(ev.rules),
                        "text": ev.content})
    entries = []
    for entry in result.entries:
        if entry["type"] == "ttsr_injection":
            entries.append({"type": "ttsr_injection", "rules": list(entry["injectedRules"])})
        else:
            entries.append({"type": "custom_message", "customType": entry["customType"], "text": entry["content"],
                            "display": entry["display"], "details": dict(entry["details"])})
    return {
        "events": out,
        "outputs": outputs,
        "notices": [{"step": n.step, "text": n.text(), "expanded": n.text(expanded=True)} for n in result.notifications],
        "final": {
            "injected": list(sim.manager.get_injected_rule_names()),
            "messageCount": sim.manager.get_message_count(),
            "registered": [r.name for r in sim.manager.get_rules()],
            "entries": entries,
            "messages": [_summary(m) for m in result.context],
        },
        "editModes": [dict(m) for m in result.edit_modes],
    }


def comparable_reference(ref: dict[str, Any], templates: dict[str, str]) -> dict[str, Any]:
    """The reference result with rendered texts as text (``render_reference``) and queue records left out."""
    events = []
    for ev in ref["events"]:
        if ev["type"] == "follow_up_queued":
            continue  # the workbench keeps the queue without an event; its delivery is compared
        ev = dict(ev)
        if "rendered" in ev:
            ev["text"] = render_reference(ev.pop("rendered"), templates)
        events.append(ev)
    final = dict(ref["final"])
    final["entries"] = [
        {k: v for k, v in e.items() if k != "rendered"} | ({"text": render_reference(e["rendered"], templates)}
                                                           if "rendered" in e else {})
        for e in final["entries"]
    ]
    messages = []
    for m in final["messages"]:
        m = dict(m)
        if "rendered" in m:
            m["text"] = render_reference(m.pop("rendered"), templates)
        if "renderedParts" in m:
            m["text"] = "".join(render_reference(p, templates) or "" for p in m.pop("renderedParts"))
        messages.append(m)
    final["messages"] = messages
    return {"events": events, "outputs": ref["outputs"], "notices": ref["notices"], "final": final}

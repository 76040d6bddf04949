#!/usr/bin/env python3
"""Write the four notebooks of this folder from the cell sources below (no outputs are stored).

    python notebooks/build_notebooks.py

Each notebook runs top to bottom under ``pytest --nbmake notebooks`` and, served with
``panel serve notebooks/<name>.ipynb``, shows the cells that end in ``.servable()`` as a web page.
The views are the app's own (``workbench.ui``), so a notebook shows exactly what the app shows.
"""

from __future__ import annotations

import os

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = os.path.dirname(os.path.abspath(__file__))

# Shared first code cell: find the repository from the installed package (wherever Jupyter, nbmake or
# `panel serve` runs us), load the views' JavaScript inline when the CDN is out of reach,
# and give rule discovery an empty home so rules in the real ~/.omp never leak into a demo.
SETUP = '''\
import socket
import tempfile
from pathlib import Path

import panel as pn

import workbench


def find_repo() -> Path:
    # The installed package first (an editable install lives in the repository), then the folders
    # above the kernel's working directory: Jupyter may have been started anywhere.
    for start in (Path(workbench.__file__).resolve().parent, Path.cwd()):
        for folder in [start, *start.parents]:
            if (folder / "sample_sessions" / "make_samples.py").exists():
                return folder
    raise FileNotFoundError("install the workbench from its repository: pip install -e '.[notebook]'")


def cdn_reachable(host: str = "cdn.holoviz.org") -> bool:
    try:
        socket.create_connection((host, 443), timeout=1.5).close()
        return True
    except OSError:
        return False


ROOT = find_repo()
SAMPLES = ROOT / "sample_sessions"
PROJECT = SAMPLES / "project"
HOME = Path(tempfile.mkdtemp(prefix="wb-home-"))  # empty: no user-level rules

# Without internet (or behind a proxy) Panel's CDN cannot be reached and every view would be an
# empty box: then BokehJS, Panel and Tabulator are sent inline from the kernel instead.
pn.extension("tabulator", inline=not cdn_reachable())'''


def quickstart() -> list:
    return [
        new_markdown_cell(
            "# TTSR Workbench: quickstart\n\n"
            "Load the bundled sample sessions, draw a session's branch tree, and step a recorded stream through "
            "the TTSR engine. Every view here is the one the web app uses (`workbench serve`); run "
            "`panel serve notebooks/01-quickstart.ipynb` to get the cells ending in `.servable()` as a page.\n\n"
            "The samples are described in `sample_sessions/README.md`."
        ),
        new_code_cell(SETUP),
        new_markdown_cell(
            "## 1. Load the samples\n\n"
            "`load_session` reads any session file version (v1 files get ids in memory) and never writes it. "
            "Lines the agent would skip silently are reported as diagnostics with their line numbers."
        ),
        new_code_cell(
            "from workbench.sessions import load_session\n\n"
            "sessions = {p.name: load_session(p) for p in sorted(SAMPLES.glob(\"*.jsonl\"))}\n"
            "for name, s in sessions.items():\n"
            "    title = s.title or s.name or \"\"\n"
            "    print(f\"{name:22} v{s.version}  {len(s.entries):5} entries  {len(s.diagnostics)} diagnostics  {title}\")"
        ),
        new_code_cell(
            "for diagnostic in sessions[\"broken-line.jsonl\"].diagnostics:\n"
            "    print(diagnostic)"
        ),
        new_markdown_cell(
            "## 2. The tree\n\n"
            "`TreeList` is the `/tree` selector as pure state: the same rows, filters and search as the agent's "
            "own list, here in the pi-mono flavour with the *labeled* filter."
        ),
        new_code_cell(
            "from workbench.sessions import SessionTree\nfrom workbench.tree import TreeList\n\n"
            "fix_auth = sessions[\"fix-auth.jsonl\"]\n"
            "tree = SessionTree(fix_auth)\n"
            "print(\"leaf (last line of the file):\", tree.leaf_id, tree.get_leaf_entry().type)\n"
            "print(\"labels:\", tree.labels)\n"
            "print(\"active path:\", len(tree.get_branch()), \"entries\")\n\n"
            "labeled = TreeList(fix_auth, flavor=\"pi\", filter_mode=\"labeled-only\", height=40)\n"
            "print(\"\\n\".join(labeled.lines()))"
        ),
        new_markdown_cell(
            "The tree view: the list (click it, then use the keys: ↑/↓, Alt+D/T/U/L/A for the filters, type to "
            "search), the branch graph and the selected entry. The assistant message labelled `root-cause` quotes "
            "`<script>alert(1)</script>`: it is shown as text."
        ),
        new_code_cell(
            "from workbench.ui import TreeView\n\n"
            "tree_view = TreeView.from_path(SAMPLES / \"fix-auth.jsonl\", flavour=\"pi\")\n"
            "tree_view.servable()"
        ),
        new_markdown_cell(
            "## 3. Step a recorded stream\n\n"
            "`streams/prose-unwrap.stream.jsonl` is a model turn that writes `.unwrap()` in its prose. The rules of "
            "`sample_sessions/project` are discovered exactly as the agent would, and the `Stepper` produces one "
            "snapshot per stream event."
        ),
        new_code_cell(
            "from workbench.replay import ReplayConfig, Stepper, read_stream\n"
            "from workbench.rules import load_rules\n\n"
            "rules = load_rules(cwd=str(PROJECT), home=str(HOME))\n"
            "stream = read_stream(SAMPLES / \"streams\" / \"prose-unwrap.stream.jsonl\")\n"
            "stepper = Stepper(stream, rules.rules, ReplayConfig.of({\"contextMode\": \"discard\"}, cwd=str(PROJECT)))\n"
            "print(len(stepper), \"events,\", stream.turn_count(), \"turns\")\n\n"
            "step = stepper.next_trigger(-1)\n"
            "snap = stepper.seek(step)\n"
            "print(\"first trigger at step\", step, \"on\", snap.event.type, repr(snap.event.delta))\n"
            "print(\"matched:\", snap.matched)\n"
            "for event in snap.events:\n"
            "    print(\" \", event.type, event.rules, event.reason or \"\")"
        ),
        new_code_cell(
            "# The buffer the rule saw: the match spans the previous delta ('.unw') and this one ('rap()...').\n"
            "text = snap.buffer(\"text\")\n"
            "print(\"...\" + str(text.text)[-80:])\n"
            "print(\"spans:\", text.spans)\n\n"
            "# Why the other rules did not fire at this step (the first gate that failed).\n"
            "for state in snap.rules:\n"
            "    if state.registered and state.name != \"no-unwrap\":\n"
            "        print(f\"{state.name:20} {state.why}\")"
        ),
        new_markdown_cell(
            "The stepper view over the same stream and rules: step with the buttons or ←/→, jump with *Next "
            "trigger*, and compare the retry conversation under `keep` and `discard`."
        ),
        new_code_cell(
            "from workbench.ui import StepperView\n\n"
            "stepper_view = StepperView.from_paths(SAMPLES / \"streams\" / \"prose-unwrap.stream.jsonl\", PROJECT)\n"
            "stepper_view.servable()"
        ),
        new_markdown_cell(
            "## 4. The rules of the sample project\n\n"
            "Discovery over every provider location (`.xcsh`, `.omp`, `.agent`, `.cursor`, `.windsurf`, `.clinerules`, "
            "`.github/instructions`), first-wins by name, then the buckets the agent puts them in."
        ),
        new_code_cell(
            "from workbench.rules import bucket_rules\n"
            "from workbench.ttsr import TtsrManager\n\n"
            "for item in rules.items:\n"
            "    if item.shadowed_by:\n"
            "        print(f\"{item.rule.name} from {item.provider} is shadowed by {item.shadowed_by_provider}\")\n"
            "for warning in rules.warnings:\n"
            "    print(\"warning:\", warning)\n\n"
            "manager = TtsrManager()\n"
            "buckets = bucket_rules(rules.rules, manager)\n"
            "for name in (\"ttsr\", \"always_apply\", \"rulebook\", \"dropped\"):\n"
            "    print(f\"{name:13}\", [b.rule.name for b in getattr(buckets, name)])\n"
            "for diagnostic in manager.diagnostics:\n"
            "    print(\"engine:\", diagnostic.message, diagnostic.context.get(\"ruleName\"))"
        ),
        new_code_cell(
            "from workbench.ui import RulesView\n\n"
            "RulesView.from_folder(PROJECT).servable()"
        ),
    ]


RULE_V1 = '''---
description: No console.log / console.debug left in server code
condition: 'console\\.(log|debug)\\('
scope: tool:write(src/**/*.ts)
interruptMode: always
examples:
  - tool: edit
    path: src/auth.ts
    old_string: "const fresh = await issueToken(userId);"
    new_string: "console.log(\\"refreshing\\", userId);"
    triggers: true
  - text: 'logger.debug({ userId }, "refreshing");'
    triggers: false
---
Log through `logger.debug({ ... }, "message")` from `src/log.ts`; never log tokens.
'''


def debug_trigger() -> list:
    return [
        new_markdown_cell(
            "# Debugging a rule that does not fire\n\n"
            "A rule author's loop: write a rule, replay a recorded stream where it *should* fire, see that it "
            "does not, ask the stepper **why not**, fix the rule, replay again, then decide between the `keep` and "
            "`discard` context modes by looking at what the model would see on retry.\n\n"
            "We work on a copy of `sample_sessions/project`, so the samples stay untouched."
        ),
        new_code_cell(SETUP),
        new_code_cell(
            "import shutil\n\n"
            "work = Path(tempfile.mkdtemp(prefix=\"wb-rules-\")) / \"project\"\n"
            "shutil.copytree(PROJECT, work)\n"
            "rule_file = work / \".omp\" / \"rules\" / \"no-debug-logging.md\"\n"
            "rule_file.write_text(r\'\'\'" + RULE_V1 + "\'\'\', encoding=\"utf-8\")\n"
            "print(rule_file.read_text())"
        ),
        new_markdown_cell(
            "The stream `tool-console-log.stream.jsonl` is a model editing `src/auth.ts` and adding two "
            "`console.log` calls. We replay it with only the new rule, so nothing else interferes."
        ),
        new_code_cell(
            "from workbench.replay import ReplayConfig, Stepper, read_stream\n"
            "from workbench.rules import load_rules\n\n"
            "stream = read_stream(SAMPLES / \"streams\" / \"tool-console-log.stream.jsonl\")\n\n"
            "def replay(settings=None):\n"
            "    found = load_rules(cwd=str(work), home=str(HOME))\n"
            "    rule = next(r for r in found.rules if r.name == \"no-debug-logging\")\n"
            "    return rule, Stepper(stream, [rule], ReplayConfig.of(settings, cwd=str(work)))\n\n"
            "rule, stepper = replay()\n"
            "print(\"condition:\", rule.condition, \" scope:\", rule.scope, \" interrupt:\", rule.interrupt_mode)\n"
            "print(\"first trigger:\", stepper.next_trigger(-1))"
        ),
        new_markdown_cell(
            "No trigger. Find the step where `console.log(` is already in a buffer, and ask the rule's state at "
            "that step why it did not fire."
        ),
        new_code_cell(
            "def first_step_with(text):\n"
            "    for i in range(len(stepper)):\n"
            "        snap = stepper.seek(i)\n"
            "        if any(text in str(b.text) for b in snap.buffers):\n"
            "            return i, snap\n"
            "    raise LookupError(text)\n\n"
            "step, snap = first_step_with(\"console.log(\")\n"
            "print(\"step\", step, snap.event.type, repr(snap.event.delta))\n"
            "print(\"why not:\", snap.rule(\"no-debug-logging\").why)"
        ),
        new_markdown_cell(
            "The rule's own `examples` (checked by `workbench rules test` and the Rules tab) fail for the same "
            "reason, without any recording:"
        ),
        new_code_cell(
            "from workbench.rulecheck import run_rule_examples\n\n\n"
            "def check_examples(rule):\n"
            "    report = run_rule_examples(rule)\n"
            "    for result in report.results:\n"
            "        print(\"ok  \" if result.passed else \"FAIL\", result.example.label, \"-\", result.reason)\n"
            "    return report.ok\n\n"
            "check_examples(rule)"
        ),
        new_markdown_cell(
            "The scope says `tool:write(...)`, but the model used the **edit** tool. Fix the scope, check the "
            "examples, and replay."
        ),
        new_code_cell(
            "rule_file.write_text(rule_file.read_text().replace(\n"
            "    \"scope: tool:write(src/**/*.ts)\", \"scope: tool:edit(src/**/*.ts), tool:write(src/**/*.ts)\"))\n"
            "rule, stepper = replay()\n"
            "assert check_examples(rule)\n"
            "trigger = stepper.next_trigger(-1)\n"
            "snap = stepper.seek(trigger)\n"
            "print(\"fires at step\", trigger, \"on\", snap.event.type, repr(snap.event.delta))\n"
            "for event in snap.events:\n"
            "    print(\" \", event.type, event.rules, event.reason or \"\")\n"
            "assert \"no-debug-logging\" in snap.matched"
        ),
        new_markdown_cell(
            "## keep or discard?\n\n"
            "On an interrupt the agent retries. With `keep` the partial assistant output stays in the "
            "conversation; with `discard` it is dropped. Every snapshot carries both, whatever mode is set."
        ),
        new_code_cell(
            "from workbench.replay import text_of\n\n\n"
            "def show(conversation, title):\n"
            "    print(f\"--- {title}: {len(conversation)} messages\")\n"
            "    for message in conversation.messages():\n"
            "        body = \" \".join(text_of(message).split())\n"
            "        print(f\"  {message.get('role', '?'):10} {body[:110]}\")\n\n"
            "after = stepper.seek(trigger)\n"
            "show(after.retry_keep, \"keep\")\n"
            "show(after.retry_discard, \"discard\")"
        ),
        new_markdown_cell(
            "The same comparison in the stepper view, opened at the trigger step: the *keep* and *discard* panes "
            "sit side by side."
        ),
        new_code_cell(
            "from workbench.ui import StepperView\n\n"
            "view = StepperView.from_paths(SAMPLES / \"streams\" / \"tool-console-log.stream.jsonl\", work,\n"
            "                              context_mode=\"keep\", step=trigger)\n"
            "view.servable()"
        ),
        new_markdown_cell(
            "The rules tab over the working copy, with the same stream: edit `no-debug-logging` in its editor "
            "and the steps where it fires are recomputed."
        ),
        new_code_cell(
            "from workbench.ui import RulesView\n\n"
            "RulesView.from_folder(work, stream=SAMPLES / \"streams\" / \"tool-console-log.stream.jsonl\").servable()"
        ),
    ]


def forensics() -> list:
    return [
        new_markdown_cell(
            "# Session forensics\n\n"
            "A support engineer's questions over a pile of sessions: load them into DuckDB, search across all of "
            "them, list every TTSR injection, and open one branch to read what the model saw there."
        ),
        new_code_cell(SETUP),
        new_code_cell(
            "from workbench.store import Store\n\n"
            "store = Store(\":memory:\")\n"
            "summary = store.ingest(sorted(SAMPLES.glob(\"*.jsonl\")))\n"
            "print(summary.to_dict())\n"
            "for row in store.sessions():\n"
            "    print(f\"{Path(row['path']).name:22} {row['entry_count']:5} entries  {row['branch_count']} branches  \"\n"
            "          f\"{row['label_count']} labels  {row['injection_count']} injections  {row['error_count']} errors\")"
        ),
        new_markdown_cell("Problems found while reading, with file and line (the files themselves are never changed):"),
        new_code_cell(
            "for error in store.ingest_errors():\n"
            "    print(f\"{Path(error['path']).name}:{error['line']}  {error['kind']}  {error['message']}\")"
        ),
        new_markdown_cell("## Search every session"),
        new_code_cell(
            "for hit in store.search(\"unwrap\", limit=20):\n"
            "    print(f\"{Path(hit['path']).name}:{hit['line']:<4} {hit['type']:14} {hit['role'] or '':10} \"\n"
            "          f\"{' '.join(hit['snippet'].split())[:90]}\")"
        ),
        new_markdown_cell(
            "## Every TTSR injection\n\n"
            "`ttsr_injection` entries and the hidden `ttsr-injection` custom messages, per rule:"
        ),
        new_code_cell(
            "from collections import Counter\n\n"
            "injections = store.injections()\n"
            "print(Counter(rule for row in injections for rule in row[\"rules\"]))\n"
            "for row in injections:\n"
            "    print(f\"{Path(row['path']).name}:{row['line']:<4} {row['type']:16} {', '.join(row['rules'])}\")"
        ),
        new_markdown_cell(
            "## Inspect a branch\n\n"
            "`fix-auth.jsonl` has three branches from one analysis message. Take the one labelled `approach-a`, "
            "follow it to its last entry, and rebuild the conversation the model saw there."
        ),
        new_code_cell(
            "from workbench.sessions import SessionTree, build_session_context, load_session\n\n"
            "labels = {row[\"label\"]: row for row in store.labels()}\n"
            "start = labels[\"approach-a\"]\n"
            "session = load_session(start[\"path\"])\n"
            "tree = SessionTree(session)\n\n"
            "# Walk down from the labelled entry to the end of its branch (first child each time).\n"
            "leaf = start[\"entry_id\"]\n"
            "while tree.get_children(leaf):\n"
            "    leaf = tree.get_children(leaf)[0].id\n"
            "context = build_session_context(session, leaf, flavor=\"pi\")\n"
            "print(\"branch:\", len(tree.get_branch(leaf)), \"entries; context:\", len(context.messages), \"messages\")\n"
            "last = context.messages[-1]\n"
            "print(last[\"role\"], \"->\", last[\"content\"][0][\"text\"][:200])"
        ),
        new_markdown_cell(
            "The same branch in the tree view, with its last entry selected (the *Conversation at this leaf* tab "
            "shows the rebuilt context):"
        ),
        new_code_cell(
            "from workbench.ui import TreeView\n\n"
            "view = TreeView.from_path(start[\"path\"], flavour=\"pi\")\n"
            "view.state.leaf = leaf\n"
            "view.servable()"
        ),
    ]


def beyond() -> list:
    return [
        new_markdown_cell(
            "# Beyond the anchors: playground, \"what changes if I ship this edit\", timeline, export\n\n"
            "Four tools for rule authors, each the app's own (tabs **Playground**, **Drafts**, **Timeline** and the "
            "header's **Export…** / **Copy link**): try a rule on a pasted text and keep it as an example, "
            "compare a draft rule set with the saved one over many sessions, see a stream's turns on a timeline, "
            "and export a stepper run as one offline HTML file.\n\n"
            "We work on a copy of `sample_sessions/project`, so the samples stay untouched."
        ),
        new_code_cell(SETUP),
        new_code_cell(
            "import shutil\n\n"
            "work = Path(tempfile.mkdtemp(prefix=\"wb-play-\")) / \"project\"\n"
            "shutil.copytree(PROJECT, work)\n"
            "rule_file = work / \".xcsh\" / \"rules\" / \"no-unwrap.md\"\n"
            "print(rule_file.read_text())"
        ),
        new_markdown_cell(
            "## 1. The rule playground\n\n"
            "`explain_rule` runs one rule on one text as the agent would at a source (prose, thinking, or an "
            "edit/write call to a path): every match with its groups and positions, and the manager's own verdict."
        ),
        new_code_cell(
            "from workbench.rules import load_rules\n"
            "from workbench.ttsr import explain_rule\n\n"
            "rules = {r.name: r for r in load_rules(cwd=str(work), home=str(HOME)).rules}\n"
            "text = \"let cfg = load(path).unwrap();\\nlet port = env_u32(\\\"PORT\\\").unwrap();\"\n"
            "report = explain_rule(rules[\"no-unwrap\"], text, source=\"text\")\n"
            "print(\"fires:\", report.fires)\n"
            "for hit in report.conditions[0].hits:\n"
            "    print(f\"  {hit.match.text!r} at {hit.match.start}-{hit.match.end}, line {hit.match.line} col {hit.match.column}\")\n"
            "assert report.fires and len(report.conditions[0].hits) == 2"
        ),
        new_markdown_cell(
            "An `astCondition` rule on a TypeScript write: the matched nodes, the metavariable bindings, and the "
            "parse error of a broken line."
        ),
        new_code_cell(
            "code = \"const id = (req as any).user.id;\\nconst broken = (x as any) +;\\n\"\n"
            "ast = explain_rule(rules[\"ts-no-as-any\"], code, source=\"tool\", tool_name=\"write\", path=\"src/session.ts\")\n"
            "print(\"fires:\", ast.fires)\n"
            "for hit in ast.ast[0].hits:\n"
            "    print(f\"  {hit.kind}: {hit.node.text!r}\", {name: [s.text for s in spans] for name, spans in hit.bindings})\n"
            "print(\"parse errors:\", [(e.line, e.column, e.text) for e in ast.parse_errors])\n"
            "assert [h.node.text for h in ast.ast[0].hits] == [\"req as any\", \"x as any\"]"
        ),
        new_markdown_cell(
            "The same in the app's view. Saving the text as one of the rule's `examples` shows the diff first; "
            "only the confirm writes (atomically, one item appended, nothing else in the file changes)."
        ),
        new_code_cell(
            "from workbench.ui import PlaygroundView\n\n"
            "play = PlaygroundView.from_folder(work)\n"
            "play.rule_select.value = \"no-unwrap\"\n"
            "play.update(\"let token = read_token().unwrap();\")\n"
            "play.preview_example()\n"
            "play.confirm_example()\n"
            "examples = rule_file.read_text().split(\"examples:\")[1].split(\"---\")[0]\n"
            "print(examples)\n"
            "assert \"read_token().unwrap()\" in examples\n"
            "play.servable()"
        ),
        new_markdown_cell(
            "## 2. What changes if I ship this edit\n\n"
            "A draft narrows `no-unwrap` to tool calls (prose no longer watched). `compare_backtests` backtests the "
            "saved rules and the draft over the same sessions and lists, per (session, rule, turn), what newly "
            "fires, stops firing or changes interrupt behaviour. The command line does the same: "
            "`workbench backtest --rules DIR --compare DIR2 sample_sessions --json`."
        ),
        new_code_cell(
            "from workbench.backtest import BacktestOptions, compare_backtests, format_comparison, run_backtest\n"
            "from workbench.ui import draft_rules\n\n"
            "saved = list(rules.values())\n"
            "draft_text = rule_file.read_text().replace(\"scope: text, tool:edit\", \"scope: tool:edit\")\n"
            "draft = draft_rules(saved, {\"no-unwrap\": draft_text})\n"
            "sessions = sorted(str(p) for p in SAMPLES.glob(\"*.jsonl\"))\n"
            "base = run_backtest(saved, sessions, workers=1, options=BacktestOptions())\n"
            "changed = run_backtest(draft, sessions, workers=1, options=BacktestOptions())\n"
            "comparison = compare_backtests(base, changed)\n"
            "print(format_comparison(comparison, base=\"saved\", draft=\"draft\"))\n"
            "assert comparison[\"counts\"][\"stops_firing\"] >= 1"
        ),
        new_markdown_cell(
            "## 3. The timeline\n\n"
            "The stream's turns as lanes: text, thinking and tool-call deltas, and the replay's triggers, aborts, "
            "retries and injections marked. Scroll to zoom; in the app a click opens the Stepper at that step. "
            "Below it, the session's token and cost totals."
        ),
        new_code_cell(
            "from workbench.ui import TimelineView\n\n"
            "timeline = TimelineView.from_paths(SAMPLES / \"ttsr-fired.jsonl\", work)\n"
            "for lane in timeline.timeline.lanes:\n"
            "    print(f\"turn {lane.turn}: steps {lane.start}-{lane.end}, {len(lane.deltas)} deltas\",\n"
            "          [m.label for m in lane.markers])\n"
            "assert any(m.kind == \"ttsr_triggered\" for lane in timeline.timeline.lanes for m in lane.markers)\n"
            "timeline.servable()"
        ),
        new_markdown_cell(
            "## 4. Export\n\n"
            "One self-contained HTML file with the session's tree and entries and the stepper run, opening at the "
            "chosen step; it works offline and escapes everything from the session. The app's header has the "
            "same as a download (**Export…**, with a redaction preview) and a **Copy link** for the live page; the command line is "
            "`workbench export`."
        ),
        new_code_cell(
            "from workbench.ui import export_bytes\n\n"
            "state = timeline.state\n"
            "state.step = timeline.timeline.lanes[1].end\n"
            "data, name = export_bytes(state)\n"
            "out = Path(tempfile.mkdtemp(prefix=\"wb-export-\")) / name\n"
            "out.write_bytes(data)\n"
            "print(out, f\"{len(data):,} bytes\")\n"
            "assert b\"default-src 'none'\" in data"
        ),
    ]


# A view object is shown once in a notebook: a second display of the same object would put its Bokeh
# models in two documents ("Models must be owned by only a single document" on the next redraw) and
# leave one copy stale. `panel serve` gathers the cells that end in `.servable()` into the page.


def render(cells: list) -> str:
    """The notebook file's text for ``cells`` (stable cell ids: rebuilding gives the same file)."""
    nb = new_notebook(cells=cells)
    for i, cell in enumerate(cells):
        cell["id"] = f"c{i:02d}"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nbformat.writes(nb) + "\n"


NOTEBOOKS = {
    "01-quickstart.ipynb": quickstart,
    "02-debug-a-trigger.ipynb": debug_trigger,
    "03-session-forensics.ipynb": forensics,
    "04-playground-compare-timeline-export.ipynb": beyond,
}


def main() -> int:
    for name, cells in NOTEBOOKS.items():
        path = os.path.join(HERE, name)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(render(cells()))
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

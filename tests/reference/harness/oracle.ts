// The reference oracle: runs a batch of JSON cases through the reference's own modules under Bun.
//
//   bun --preload ./preload.ts ./oracle.ts < batch.json > results.json
//
// REFERENCE_AGENT_DIR names the unpacked @oh-my-pi/pi-coding-agent package (the cache directory of
// scripts/reference-oracle). Input: {"cases": [case, ...]}; output: {"results": [result, ...]} in
// the same order, one process per batch. A case that throws yields {"error": text} and the batch
// goes on. Case kinds:
//   engine  {settings, ops: [{op, ...}]}  -> {out: [value per op], warnings: [{message, context}]}
//   stream  {rules, text, steps, contexts, payloads, snapshotSteps, snapshotContext, maxMs?}
//           -> {digest, matches, firstFire, deltaMs, snapshotMs, deltasDone, snapshotsDone, marks}
//           (benchmarks/engine_reference.py)
//   tree    {entries, leaf, queries: [{filter, search}]} -> {out: [{rows: [[id, depth]], selected}]}
import { createHash } from "node:crypto";
import { warnings } from "./shims/pi-utils.ts";

type Json = any;

const agentDir = process.env.REFERENCE_AGENT_DIR;
if (!agentDir) {
	process.stderr.write("REFERENCE_AGENT_DIR is not set\n");
	process.exit(2);
}
const { TtsrManager } = await import(`${agentDir}/src/export/ttsr.ts`);

function names(rules: Json[]): string[] {
	return rules.map(rule => rule.name);
}

function byNames(manager: Json, wanted: string[]): Json[] {
	const registered = new Map(manager.getRules().map((rule: Json) => [rule.name, rule]));
	// A name that is not registered still reaches the manager, as a bare rule object would.
	return wanted.map(name => registered.get(name) ?? { name, path: `${name}.md`, content: "" });
}

async function runOp(manager: Json, op: Json): Promise<Json> {
	switch (op.op) {
		case "addRule":
			return manager.addRule(op.rule);
		case "checkDelta":
			return names(manager.checkDelta(op.delta, op.ctx));
		case "checkSnapshot":
			return names(manager.checkSnapshot(op.snapshot, op.ctx));
		case "checkAstSnapshot":
			return names(await manager.checkAstSnapshot(op.snapshot, op.ctx));
		case "hasAstRules":
			return manager.hasAstRules();
		case "judgedCandidates":
			return (await manager.judgedCandidates(op.content, op.ctx)).map((c: Json) => [c.rule.name, c.question]);
		case "claim":
			return names(manager.claim(byNames(manager, op.names)));
		case "markInjected":
			manager.markInjected(byNames(manager, op.names));
			return null;
		case "markInjectedByNames":
			manager.markInjectedByNames(op.names);
			return null;
		case "restoreInjected":
			manager.restoreInjected(op.names);
			return null;
		case "replaceRules":
			return [...manager.replaceRules(op.rules)].sort();
		case "incrementMessageCount":
			manager.incrementMessageCount();
			return null;
		case "resetBuffer":
			manager.resetBuffer();
			return null;
		case "getInjectedRuleNames":
			return manager.getInjectedRuleNames();
		case "getMessageCount":
			return manager.getMessageCount();
		case "getRules":
			return names(manager.getRules());
		case "hasRules":
			return manager.hasRules();
		case "hasJudgedRules":
			return manager.hasJudgedRules();
		default:
			throw new Error(`unknown op ${JSON.stringify(op.op)}`);
	}
}

async function runEngine(c: Json): Promise<Json> {
	warnings.length = 0;
	const manager = new TtsrManager(c.settings ?? undefined);
	const out: Json[] = [];
	for (const op of c.ops) out.push(await runOp(manager, op));
	return { out, warnings: warnings.map(w => ({ message: w.message, context: w.context })) };
}

// A long stream cut into deltas: steps are [length, context index]. Each delta's answer (the
// matched names, comma-joined, one line per delta) feeds a sha256, so two engines agree on every
// delta when their digests agree; firstFire and matches help to locate a difference. `maxMs`
// (optional) bounds each phase: the loop stops at the first check past it and reports how far
// it got (deltasDone, snapshotsDone), so a caller can compare the same prefix.
function runStream(c: Json): Json {
	const manager = new TtsrManager(c.settings ?? undefined);
	for (const rule of c.rules) manager.addRule(rule);
	const budget = c.maxMs ?? Number.POSITIVE_INFINITY;
	const hash = createHash("sha256");
	const firstFire: Record<string, number> = {};
	let matches = 0;
	let pos = 0;
	let deltasDone = 0;
	const marks: [number, number][] = []; // [deltas done, ms], every 256 deltas: the growth curve
	const t0 = performance.now();
	for (let i = 0; i < c.steps.length; i++) {
		if ((i & 255) === 0 && i > 0) marks.push([i, performance.now() - t0]);
		if ((i & 63) === 0 && performance.now() - t0 > budget) break;
		const [length, ctxIndex] = c.steps[i];
		const found = manager.checkDelta(c.text.slice(pos, pos + length), c.contexts[ctxIndex]);
		pos += length;
		const line = found.map((rule: Json) => rule.name).join(",");
		hash.update(`${line}\n`);
		matches += found.length;
		for (const rule of found) if (!(rule.name in firstFire)) firstFire[rule.name] = i;
		deltasDone = i + 1;
	}
	const deltaMs = performance.now() - t0;
	const t1 = performance.now();
	let snapshotsDone = 0;
	outer: for (let p = 0; p < (c.payloads ?? []).length; p++) {
		manager.resetBuffer();
		let end = 0;
		for (const step of c.snapshotSteps[p]) {
			if ((snapshotsDone & 63) === 0 && performance.now() - t1 > budget) break outer;
			end += step;
			const found = manager.checkSnapshot(c.payloads[p].slice(0, end), c.snapshotContext);
			hash.update(`s:${found.map((rule: Json) => rule.name).join(",")}\n`);
			matches += found.length;
			snapshotsDone++;
		}
	}
	const snapshotMs = performance.now() - t1;
	return { digest: hash.digest("hex"), matches, firstFire, deltaMs, snapshotMs, deltasDone, snapshotsDone, marks };
}

// The `/tree` selector of pi-tui, loaded on the first tree case (engine batches never load it).
let treeModules: { TreeSelectorComponent: Json; lastView: () => Json } | undefined;

async function loadTree() {
	if (treeModules) return treeModules;
	const tui = process.env.REFERENCE_TUI_DIR;
	const selector = await import(`${tui}/src/overlays/tree-selector.ts`);
	const view = await import(`${tui}/src/components/tree-view.ts`);
	// The selector keeps its TreeView private; every instance selects its start row through
	// setSelectedKey or setSelectionIndex while being built, so remember the one that did.
	let last: Json;
	for (const method of ["setSelectedKey", "setSelectionIndex"]) {
		const original = view.TreeView.prototype[method];
		view.TreeView.prototype[method] = function (this: Json, ...args: Json[]) {
			last = this;
			return original.apply(this, args);
		};
	}
	treeModules = { TreeSelectorComponent: selector.TreeSelectorComponent, lastView: () => last };
	return treeModules;
}

// The session's tree as the agent's session index builds it for the selector: a node per entry,
// labels from label entries in file order (an empty label clears), an entry whose parent is
// null, itself or missing is a root, children ordered by timestamp (stable).
function sessionTree(entries: Json[]): Json[] {
	const labels = new Map<string, string>();
	for (const entry of entries) {
		if (entry.type !== "label") continue;
		if (entry.label) labels.set(entry.targetId, entry.label);
		else labels.delete(entry.targetId);
	}
	const nodes = new Map<string, Json>();
	for (const entry of entries) nodes.set(entry.id, { entry, children: [], label: labels.get(entry.id) });
	const roots: Json[] = [];
	for (const entry of entries) {
		const node = nodes.get(entry.id);
		const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
		if (parent) parent.children.push(node);
		else roots.push(node);
	}
	const time = (node: Json) => new Date(node.entry.timestamp).getTime();
	for (const node of nodes.values()) node.children.sort((a: Json, b: Json) => time(a) - time(b));
	return roots;
}

// tree {entries, leaf, queries: [{filter, search}]} -> {out: [{rows: [[id, depth]], selected}]}:
// per query a fresh selector opened on that filter mode, the search typed one key at a time.
async function runTree(c: Json): Promise<Json> {
	const { TreeSelectorComponent, lastView } = await loadTree();
	const out: Json[] = [];
	for (const query of c.queries) {
		const selector = new TreeSelectorComponent(sessionTree(c.entries), c.leaf, 100_000, () => {}, () => {}, undefined, query.filter);
		const view = lastView();
		for (const ch of query.search) selector.handleInput(ch);
		out.push({
			rows: view.rows.map((row: Json) => [row.key, row.depth]),
			selected: view.selectedItem?.entry.id ?? null,
		});
	}
	return { out };
}

const input = JSON.parse(await Bun.stdin.text());
const results: Json[] = [];
for (const c of input.cases) {
	try {
		if (c.kind === "engine") results.push(await runEngine(c));
		else if (c.kind === "stream") results.push(runStream(c));
		else if (c.kind === "tree") results.push(await runTree(c));
		else throw new Error(`unknown case kind ${JSON.stringify(c.kind)}`);
	} catch (error) {
		results.push({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
	}
}
process.stdout.write(JSON.stringify({ results }));

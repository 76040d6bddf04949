// The coordinator oracle: the reference's own TtsrCoordinator (session/ttsr-coordinator.ts), its
// TtsrToolInspector (session/ttsr-outputs.ts), TtsrManager and bucketRules, driven through a recorded
// stream by a small fake host, loaded unchanged from the package.
//
//   bun --preload ./preload.ts ./coordinator_oracle.ts < batch.json > results.json
//
// Input {"cases": [case]}; a case is {cwd, home, settings, agentName, judge,
// rules: [{name, path, body, frontmatter, provider}], editMode, events: [stream event, ...]} where a
// toolcall_delta event carries `args` (the arguments parsed so far) and every tool-call event
// carries `surface` (what the edit tool's native inspection answers for those arguments).
//
// What the fake host stands in for, since neither the agent's AgentSession nor pi-agent-core's loop
// is needed (nor published at 18.3.4): the loop feeds each event to the coordinator as the session's
// event handler does (turn_start, message_start, message_update, message_end, turn_end, the tool's
// afterToolCall); an abort ends the message as `aborted` with placeholder results for its completed
// calls, ends the turn, runs the post-prompt task (the retry) and skips the rest of the recorded turn,
// whose next turn is the continuation (none recorded: the replay ends there); a queued follow-up
// reaches the model at the end of a turn without tool calls (or at the end of the recording) and is
// persisted as the session persists it; the chat notice opens a new block after a user message, an
// assistant message start or a tool result, else merges into the last one;
// judged rules are judged by a judge answering every question alike (`judge`: "yes" / "no"; none when
// null), settled before the next event, and their warnings join as asides at the next turn end.
// Tools: `edit` (the mode's tool; wire name `apply_patch` in that mode) whose matcher hooks wrap the
// given inspection as src/edit/index.ts does, `write` (its `content` as digest, src/tools/write.ts)
// and hook-less tools for every other name.
//
// Output per case: {events, outputs (per finished message), notices, final}; rendered reminder texts
// are reported as the template and values each rule was rendered with (prompt.render is unpublished;
// see shims/pi-utils.ts).
import { plugin } from "bun";
import { renderCalls } from "./shims/pi-utils.ts";

type Json = any;

const agentDir = process.env.REFERENCE_AGENT_DIR;
const tuiDir = process.env.REFERENCE_TUI_DIR;
if (!agentDir || !tuiDir) {
	process.stderr.write("REFERENCE_AGENT_DIR / REFERENCE_TUI_DIR is not set\n");
	process.exit(2);
}

// The chat notice ("Injecting rule: …"): pi-tui's TtsrNotificationComponent with its drawing
// dependencies replaced by records of what it would draw (header, body lines; no colours or icons).
const noticeShim = `${import.meta.dir}/shims/notice-deps.ts`;
plugin({
	name: "coordinator-oracle-notice",
	setup(build) {
		build.onLoad({ filter: /pi-tui\/src\/chat\/ttsr-notification\.ts$/ }, async args => {
			const source = await Bun.file(args.path).text();
			const contents = source.replace(/from "\.\.\/(components\/text|tui|chrome\/message-notice|theme)"/g, `from "${noticeShim}"`);
			return { contents, loader: "ts" };
		});
	},
});

const { TtsrCoordinator } = await import(`${agentDir}/src/session/ttsr-coordinator.ts`);
const { TtsrManager } = await import(`${agentDir}/src/export/ttsr.ts`);
const { TtsrToolInspector } = await import(`${agentDir}/src/session/ttsr-outputs.ts`);
const { parseRuleAgents, parseRuleConditionAndScope } = await import(`${agentDir}/src/capability/rule.ts`);
const { bucketRules } = await import(`${agentDir}/src/capability/rule-buckets.ts`);
const { TtsrNotificationComponent } = await import(`${tuiDir}/src/chat/ttsr-notification.ts`);
const { lastPresentation } = await import(noticeShim);

const TEMPLATES: Record<string, string> = {};
for (const [key, file] of [["interrupt", "ttsr-interrupt"], ["reminder", "ttsr-tool-reminder"], ["warning", "ttsr-warning"]]) {
	TEMPLATES[key] = await Bun.file(`${agentDir}/src/prompts/system/${file}.md`).text();
}

/** A rendered text back as [{template, name, path, content}] and the separators between them. */
function decodeRendered(text: string): Json {
	const pieces = text.split(/\u0001R(\d+)\u0001/);
	const parts: Json[] = [];
	const joins: string[] = [];
	for (let i = 1; i < pieces.length; i += 2) {
		const call = renderCalls[Number(pieces[i])];
		const template = Object.keys(TEMPLATES).find(key => TEMPLATES[key] === call.template) ?? "unknown";
		parts.push({ template, ...call.vars });
		if (i + 1 < pieces.length - 1) joins.push(pieces[i + 1]);
	}
	return { parts, joins, prefix: pieces[0], suffix: pieces.length > 1 ? pieces[pieces.length - 1] : "" };
}

/** buildRule's field mapping (discovery/helpers.ts) over frontmatter the case gives already parsed. */
function buildRule(r: Json): Json {
	const fm = r.frontmatter ?? {};
	const { condition, astCondition, question, scope } = parseRuleConditionAndScope(fm);
	let globs: string[] | undefined;
	if (Array.isArray(fm.globs)) globs = fm.globs.filter((g: unknown) => typeof g === "string");
	else if (typeof fm.globs === "string") globs = [fm.globs];
	const mode = fm.interruptMode;
	return {
		name: r.name,
		path: r.path,
		content: r.body,
		globs,
		alwaysApply: fm.alwaysApply === true,
		description: typeof fm.description === "string" ? fm.description : undefined,
		condition,
		astCondition,
		question,
		scope,
		agents: parseRuleAgents(fm.agents),
		interruptMode: ["never", "prose-only", "tool-only", "always"].includes(mode) ? mode : undefined,
		_source: { provider: r.provider ?? "native", providerName: r.provider ?? "native", path: r.path, level: "project" },
	};
}

function textOf(content: Json): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((c: Json) => (c?.type === "text" ? c.text : "")).join("");
	return "";
}

/** What a message contributes to the compared context. */
function summary(message: Json): Json {
	switch (message.role) {
		case "assistant":
			// The blocks an aborted message keeps are the loop's business (pi-agent-core), not the coordinator's.
			return { role: "assistant", stopReason: message.stopReason };
		case "toolResult":
			return {
				role: "toolResult",
				toolCallId: message.toolCallId,
				renderedParts: message.content.map((c: Json) => decodeRendered(c?.type === "text" ? c.text : "")),
				isError: !!message.isError,
			};
		case "custom":
			return { role: "custom", customType: message.customType, rendered: decodeRendered(message.content), details: message.details };
		default:
			return { role: message.role, text: textOf(message.content) };
	}
}

async function runCase(c: Json): Promise<Json> {
	renderCalls.length = 0;
	const events: Json[] = [];
	const notices: Json[] = [];
	const entries: Json[] = [];
	let step = -1;
	let noticeOpen = false;
	// The edit tool's inspection of each arguments object the case gave (the native editInspect).
	const surfaces = new WeakMap<object, Json>();
	const inspection = (args: Json) => surfaces.get(args) ?? { paths: [], entries: [] };

	// -- tools ------------------------------------------------------------------------------------
	const editTool = {
		name: "edit",
		customWireName: c.editMode === "apply_patch" ? "apply_patch" : undefined,
		matcherDigest: (args: Json) => inspection(args).entries.map((e: Json) => e.digest).filter(Boolean).join("\n") || undefined,
		matcherPaths: (args: Json) => {
			const found = inspection(args);
			const paths = found.entries.length > 0 ? found.entries.map((e: Json) => e.path) : found.paths;
			return paths.length > 0 ? paths : undefined;
		},
		matcherEntries: (args: Json) => (inspection(args).entries.length > 0 ? inspection(args).entries : undefined),
	};
	const writeTool = {
		name: "write",
		matcherDigest: (args: Json) => (typeof args?.content === "string" ? args.content : undefined),
	};
	const tools: Json[] = [editTool, writeTool];
	for (const ev of c.events) {
		if (ev.type === "toolcall_start" && ev.name && !tools.some(t => t.name === ev.name || t.customWireName === ev.name)) {
			tools.push({ name: ev.name });
		}
	}

	// -- the fake agent and session ---------------------------------------------------------------
	let messages: Json[] = [];
	let partial: Json = undefined;
	let abortReason: Json = undefined;
	const followUps: Json[] = [];
	const asides: Json[] = []; // judged-rule warnings waiting for the next step boundary
	const postPrompt: Json[] = [];
	const agent = {
		state: {
			get tools() {
				return tools;
			},
			get messages() {
				return messages;
			},
			get isStreaming() {
				return partial !== undefined;
			},
		},
		abort(reason: Json) {
			abortReason = reason;
		},
		followUp(message: Json) {
			followUps.push(message);
			events.push({ step, type: "follow_up_queued", rules: message.details.rules });
		},
		hasQueuedMessages: () => followUps.length > 0,
		replaceMessages(next: Json[]) {
			messages = [...next];
		},
		appendMessage(message: Json) {
			messages.push(message);
		},
		async continue() {},
	};
	const sessionManager = {
		getCwd: () => c.cwd,
		appendTtsrInjection(names: string[]) {
			entries.push({ type: "ttsr_injection", rules: [...names] });
		},
		appendCustomMessageEntry(customType: string, content: string, display: boolean, details: Json) {
			entries.push({ type: "custom_message", customType, rendered: decodeRendered(content), display, details });
		},
	};
	const host = {
		agent,
		sessionManager,
		settings: {},
		async emitSessionEvent(event: Json) {
			const names = event.rules.map((r: Json) => r.name);
			events.push({ step, type: "ttsr_triggered", rules: names });
			if (noticeOpen && notices.length > 0) notices[notices.length - 1].component.addRules(event.rules);
			else notices.push({ step, component: new TtsrNotificationComponent(event.rules) });
			noticeOpen = true;
		},
		schedulePostPromptTask(task: Json) {
			postPrompt.push(task);
		},
		scheduleAgentContinue() {},
		promptGeneration: () => 0,
		// A judge that answers every question alike (the workbench's FixedJudge), or none.
		ruleJudge: () =>
			c.judge == null
				? undefined
				: {
						async judge(request: Json) {
							const answers = Object.fromEntries(Object.keys(request.questions).map(k => [k, { noul: c.judge === "yes" ? 1 : 0 }]));
							return { answers };
						},
					},
		async deliverRuleWarning(content: string, ruleNames: string[]) {
			asides.push({ content, ruleNames });
		},
		sessionGeneration: () => 0,
	};

	const manager = new TtsrManager(c.settings);
	const rules = c.rules.map(buildRule);
	bucketRules(rules, manager, {
		agentName: c.agentName ?? undefined,
		disabledRules: c.settings?.disabledRules ?? [],
		builtinRules: c.settings?.builtinRules ?? true,
	});
	const coordinator = new TtsrCoordinator(host, manager);
	const inspector = new TtsrToolInspector(() => tools, () => c.cwd);
	const outputs: Json[] = [];

	// -- the loop ---------------------------------------------------------------------------------
	const endMessage = (stopReason: string, errorMessage?: string) => {
		const message = { ...partial, content: partial.content.filter(Boolean), stopReason };
		if (errorMessage !== undefined) message.errorMessage = errorMessage;
		partial = undefined;
		messages.push(message);
		coordinator.onAssistantMessageEnd(message);
		return message;
	};
	const deliverFollowUps = async () => {
		while (followUps.length > 0) {
			const message = followUps.shift();
			messages.push(message);
			sessionManager.appendCustomMessageEntry(message.customType, message.content, message.display, message.details);
			coordinator.markInjectedFromDetails(message.details);
			events.push({ step, type: "injection", deferred: true, rules: message.details.rules, rendered: decodeRendered(message.content) });
		}
	};
	// An aside joins at the step boundary and is persisted as the session persists a custom message.
	const deliverAsides = () => {
		for (const aside of asides.splice(0)) {
			const message = { role: "custom", customType: "ttsr-injection", content: aside.content, display: false, details: { rules: aside.ruleNames } };
			messages.push(message);
			sessionManager.appendCustomMessageEntry(message.customType, message.content, false, message.details);
			coordinator.markInjectedFromDetails(message.details);
			events.push({ step, type: "aside", rules: aside.ruleNames, rendered: decodeRendered(aside.content) });
		}
	};
	const update = async (assistantMessageEvent: Json) => {
		const consumed = await coordinator.checkMessageUpdate({ type: "message_update", message: partial, assistantMessageEvent });
		return consumed || abortReason !== undefined;
	};

	let skipping = false;
	let ended = false;
	let turnHadTools = false;
	const completed = new Set<Json>(); // tool-call blocks whose arguments finished streaming
	for (let i = 0; i < c.events.length; i++) {
		const ev = c.events[i];
		step = i;
		if (skipping) {
			if (ev.type === "turn_end") {
				skipping = false;
				continue;
			}
			if (ev.type !== "turn_start") continue;
			skipping = false;
		}
		if (ev.surface && ev.args) surfaces.set(ev.args, ev.surface);
		if (ev.surface && ev.arguments) surfaces.set(ev.arguments, ev.surface);
		const index = ev.contentIndex ?? 0;
		let aborted = false;
		switch (ev.type) {
			case "user_message":
				noticeOpen = false;
				messages.push({ role: "user", content: ev.content });
				break;
			case "turn_start":
				turnHadTools = false;
				coordinator.onTurnStart();
				break;
			case "message_start":
				noticeOpen = false;
				partial = { role: "assistant", content: [], timestamp: ev.timestamp ?? i };
				coordinator.onAssistantMessageStart();
				break;
			case "text_delta":
			case "thinking_delta": {
				const kind = ev.type === "text_delta" ? "text" : "thinking";
				const block = (partial.content[index] ??= { type: kind, [kind]: "" });
				block[kind] += ev.delta;
				aborted = await update({ type: ev.type, contentIndex: index, delta: ev.delta });
				break;
			}
			case "toolcall_start":
				turnHadTools = true;
				partial.content[index] = { type: "toolCall", id: ev.id, name: ev.name, arguments: {} };
				break;
			case "toolcall_delta":
				partial.content[index].arguments = ev.args;
				aborted = await update({ type: "toolcall_delta", contentIndex: index, delta: ev.delta });
				break;
			case "toolcall_end": {
				const block = partial.content[index];
				block.arguments = ev.arguments ?? block.arguments;
				completed.add(block);
				aborted = await update({ type: "toolcall_end", contentIndex: index, toolCall: block });
				break;
			}
			case "message_end": {
				const message = endMessage(ev.stopReason ?? "stop", ev.errorMessage);
				// What judged rules and /omfg read of a finished message (TtsrToolInspector.outputs).
				outputs.push({ step, outputs: inspector.outputs(message) });
				await coordinator.settleJudgments(); // the verdicts arrive before the next event
				break;
			}
			case "tool_result": {
				noticeOpen = false;
				const content = typeof ev.content === "string" ? [{ type: "text", text: ev.content }] : ev.content;
				const before = entries.length;
				const changed = coordinator.afterToolCall({ toolCall: { id: ev.toolCallId, name: ev.toolName }, result: { content } });
				const final = changed ? changed.content : content;
				if (changed) {
					const names = entries.slice(before).flatMap((e: Json) => e.rules ?? []);
					events.push({ step, type: "reminder", toolCallId: ev.toolCallId, rules: names, rendered: decodeRendered(final[0].text) });
				}
				messages.push({ role: "toolResult", toolCallId: ev.toolCallId, toolName: ev.toolName, content: final, isError: !!ev.isError });
				break;
			}
			case "turn_end":
				coordinator.onTurnEnd();
				if (!turnHadTools) await deliverFollowUps();
				deliverAsides();
				break;
		}
		if (!aborted) continue;
		// The abort: the message ends as aborted, its completed calls get placeholder results, the
		// turn ends, the agent stops and runs the post-prompt task (the retry).
		const reason = abortReason;
		abortReason = undefined;
		const general = typeof reason === "string" ? reason : reason.reason;
		const scopedCall = typeof reason === "string" ? null : Object.keys(reason.perTool)[0];
		const message = endMessage("aborted", general);
		events.push({ step, type: "abort", reason: general, toolCallId: scopedCall });
		for (const block of message.content) {
			if (block.type !== "toolCall" || !completed.has(block)) continue;
			const why = typeof reason === "string" ? reason : (reason.perTool[block.id] ?? reason.otherReason);
			messages.push({ role: "toolResult", toolCallId: block.id, toolName: block.name, isError: true,
				content: [{ type: "text", text: `Tool execution was aborted: ${why}` }] });
		}
		coordinator.onTurnEnd();
		const tasks = postPrompt.splice(0);
		const before = entries.length;
		for (const task of tasks) await task(new AbortController().signal);
		const injected = entries.slice(before).find((e: Json) => e.type === "custom_message");
		events.push({ step, type: "retry", rules: injected ? injected.details.rules : [], rendered: injected ? injected.rendered : null });
		skipping = ev.type !== "turn_end";
		// With no recorded turn after it the replay ends here: what the continuation does is not recorded.
		if (!c.events.slice(i + 1).some((e: Json) => e.type === "turn_start")) {
			ended = true;
			break;
		}
	}
	// The end of the recording: the agent stops and takes what is still queued (the step is the last one).
	step = c.events.length - 1;
	if (partial === undefined && !ended) {
		await deliverFollowUps();
		deliverAsides();
	}

	return {
		events,
		outputs,
		notices: notices.map(n => ({ step: n.step, ...noticeText(n.component) })),
		final: {
			injected: manager.getInjectedRuleNames(),
			messageCount: manager.getMessageCount(),
			registered: manager.getRules().map((r: Json) => r.name),
			entries,
			messages: messages.map(summary),
		},
	};
}

function noticeText(component: Json): Json {
	const draw = (expanded: boolean) => {
		component.setExpanded(expanded);
		const p = lastPresentation(component, expanded);
		return [p.header.trimEnd(), ...(p.body ?? []).map((t: Json) => t.text)].join("\n");
	};
	return { text: draw(false), expanded: draw(true) };
}

const input = JSON.parse(await Bun.stdin.text());
const results: Json[] = [];
for (const c of input.cases) {
	try {
		results.push(await runCase(c));
	} catch (error) {
		results.push({ error: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error) });
	}
}
process.stdout.write(JSON.stringify({ results }));

// Stand-ins for the pi-tui 18.2.9 dependencies that are not on the registry at that version
// (@oh-my-pi/pi-agent-core, pi-ai/error, pi-wire) or that are native (the text-width functions of
// @oh-my-pi/pi-natives). Only what the `/tree` selector's filter and search paths evaluate has a
// working value; the rest fails loudly (fail.ts).
import { failing, failingNamespace } from "./fail.ts";

// The thinking-level fallback is reached only for an entry without `thinkingLevel`; the tree
// cases always carry one, so reaching the enum is a harness error.
export const ThinkingLevel = failingNamespace("pi-agent-core ThinkingLevel");

/** pi-agent-core's custom-message constructor: the persisted fields as a `custom` role message. */
export function createCustomMessage(
	customType: string,
	content: unknown,
	display: boolean,
	details: unknown,
	timestamp: string,
	attribution: unknown,
) {
	const message: Record<string, unknown> = { role: "custom", customType, content, display, details, timestamp };
	if (attribution !== undefined) message.attribution = attribution;
	return message;
}

// A custom type no generated case uses: the collab-prompt branch of isUserTurnInitiator stays off.
export const COLLAB_PROMPT_MESSAGE_TYPE = "reference-oracle:collab-prompt-unused";
export const COLLAB_PROTO = failingNamespace("pi-wire COLLAB_PROTO");

export const is = failing("pi-ai/error is");
export const Flag = failingNamespace("pi-ai/error Flag");

export const Ellipsis = { Unicode: 0, Ascii: 1, None: 2 };
export const extractSegments = failing("pi-natives extractSegments");
export const setHangulCompatJamoWidthOverride = () => {};
export const sliceWithWidth = failing("pi-natives sliceWithWidth");
export const truncateToWidth = failing("pi-natives truncateToWidth");
export const wrapTextWithAnsi = failing("pi-natives wrapTextWithAnsi");

/**
 * pi-agent-core's tool-scoped abort reason, as the coordinator hands it to `agent.abort`: the
 * general reason, the reason per tool call id, and the text the other calls get. The fake host of
 * the coordinator cases (coordinator_oracle.ts) reads these three fields back.
 */
export function createToolScopedAbortReason(reason: string, perTool: Record<string, string>, otherReason: string) {
	return { reason, perTool, otherReason };
}

// Stand-in for @oh-my-pi/pi-utils, whose 18.3.4 release is not on the npm registry. The engine
// module only needs `logger`; warnings are recorded so that the harness can report them as the
// workbench reports `manager.diagnostics` (message text and context keys).
export type Warning = { message: string; context: Record<string, unknown> };

export const warnings: Warning[] = [];

export const logger = {
	warn(message: string, context: Record<string, unknown> = {}): void {
		warnings.push({ message, context });
	},
	debug(): void {},
	info(): void {},
	error(message: string, context: Record<string, unknown> = {}): void {
		warnings.push({ message: `error: ${message}`, context });
	},
};

export const DEFAULT_TAB_WIDTH = 3;

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The real function strips ANSI and control characters; on text without any it is the identity,
 * which is all the tree cases feed it. Anything else fails rather than guess at the real rules.
 */
export function sanitizeText(value: string): string {
	// biome-ignore lint: control characters are the point
	if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(value)) {
		throw new Error("reference oracle shim: sanitizeText on text with control characters");
	}
	return value;
}

/**
 * The coordinator renders its three reminder templates with pi-utils' `prompt.render`, whose 18.3.4
 * source is not published. This stand-in renders nothing: it records the template and the values
 * and returns a marker, so the coordinator cases report which template was filled with which rule
 * name, display path and body, and the workbench's renderer turns that into text on both sides.
 */
export const renderCalls: { template: string; vars: Record<string, unknown> }[] = [];

export const prompt = {
	render(template: string, vars: Record<string, unknown> = {}): string {
		renderCalls.push({ template, vars: { ...vars } });
		return `\u0001R${renderCalls.length - 1}\u0001`;
	},
};

/** `root`-relative form of `candidate` when it lies strictly inside `root`, else null. */
export function relativePathWithinRoot(root: string, candidate: string): string | null {
	const path = require("node:path");
	const relative = path.relative(path.resolve(root), path.resolve(candidate));
	return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : null;
}

export async function withTimeout<T>(promise: Promise<T>, _ms: number, _message: string): Promise<T> {
	return promise;
}

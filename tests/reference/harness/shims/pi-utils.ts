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
	/** Runs `fn` (the registry times each provider's load). */
	time<T>(_label: string, fn: (...args: any[]) => T, ...args: unknown[]): T {
		return fn(...args);
	},
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

// ---------------------------------------------------------------------------------------------
// What the capability registry and the rule providers take from pi-utils (capability suite).
// The directory helpers follow the default profile with no overrides: the generated cases set
// HOME and the project folder and nothing else (no PI_CODING_AGENT_DIR, no profile).

export const CONFIG_DIR_NAME = ".omp";
export function getConfigDirName(): string {
	return CONFIG_DIR_NAME;
}
export function getAgentDir(): string {
	return require("node:path").join(require("node:os").homedir(), CONFIG_DIR_NAME, "agent");
}
export function getPluginsDir(home: string = require("node:os").homedir()): string {
	return require("node:path").join(home, CONFIG_DIR_NAME, "plugins");
}
/** The project's config folder (the default profile's name). */
export function getProjectAgentDir(cwd: string = process.cwd()): string {
	return require("node:path").join(cwd, CONFIG_DIR_NAME);
}
export function getProjectDir(): string {
	return process.cwd();
}

/** Environment booleans: empty is unset; 1/y/yes/true/on are true (case-insensitive). */
export function parseFlag(raw: string): boolean | undefined {
	const value = raw.trim().toLowerCase();
	if (value === "") return undefined;
	return ["1", "y", "yes", "true", "on"].includes(value);
}

export function tryParseJson<T = unknown>(text: string): T | undefined {
	try {
		return JSON.parse(text) as T;
	} catch {
		return undefined;
	}
}

export function isWsl(): boolean {
	return false;
}
export function windowsPathToWslMount(value: string): string {
	return value;
}
export function isEnoent(error: unknown): boolean {
	return (error as { code?: string } | null)?.code === "ENOENT";
}

function camelKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(camelKeys);
	if (value === null || typeof value !== "object") return value;
	return Object.fromEntries(
		Object.entries(value).map(([k, v]) => [k.replace(/-([a-z])/g, (_m, c) => c.toUpperCase()), camelKeys(v)]),
	);
}

/**
 * Frontmatter as pi-utils splits it (its 18.3.4 source is unpublished; this follows the bundled
 * agent's behaviour on well-formed input, which is all the generated cases hold): CRLF to LF, HTML
 * comments removed, a leading `---` block up to the next line starting `---` parsed as YAML by
 * Bun (tabs as two spaces), keys kebab-case to camelCase, the rest trimmed as the body; YAML that
 * is not a mapping counts as none. A parse error is logged and yields no keys (no case has one).
 */
export function parseFrontmatter(content: string, _options: Record<string, unknown> = {}) {
	const text = content.replace(/\r\n?/g, "\n").replace(/<!--[\s\S]*?-->/g, "");
	if (!text.startsWith("---")) return { frontmatter: {}, body: text };
	const end = text.indexOf("\n---", 3);
	if (end === -1) return { frontmatter: {}, body: text };
	const body = text.slice(end + 4).trim();
	try {
		const data = Bun.YAML.parse(text.slice(4, end).replaceAll("\t", "  "));
		const map = data !== null && typeof data === "object" && !Array.isArray(data) ? data : {};
		return { frontmatter: camelKeys(map) as Record<string, unknown>, body };
	} catch (error) {
		logger.warn("Failed to parse YAML frontmatter", { err: String(error) });
		return { frontmatter: {}, body };
	}
}

export function getConfigAgentDirName(): string {
	return `${CONFIG_DIR_NAME}/agent`;
}
export const MAIN_CONFIG_FILENAMES = ["config.yml", "config.yaml"];
export function getPluginsLockfile(): string {
	return require("node:path").join(getPluginsDir(), "omp-plugins.lock.json");
}
export function hasFsCode(error: unknown, code: string): boolean {
	return (error as { code?: string } | null)?.code === code;
}
export function isEacces(error: unknown): boolean {
	return hasFsCode(error, "EACCES");
}
/** Writing YAML config files: never reached by discovery. */
export function stringifyYamlConfig(): never {
	throw new Error("reference oracle shim reached: pi-utils stringifyYamlConfig");
}

export function normalizeFrontmatterKeys(value: unknown): unknown {
	return camelKeys(value);
}

// Imported by modules the settings loader pulls in (other settings domains, the tools); a call
// fails loudly (fail.ts), so a case reaching one reports the reference as throwing.
import { failing as piUtilsFailing } from "./fail.ts";
export const toError = piUtilsFailing("pi-utils toError");
export const isEexist = piUtilsFailing("pi-utils isEexist");
export const procmgr = piUtilsFailing("pi-utils procmgr");
export const getLastChangelogVersionPath = piUtilsFailing("pi-utils getLastChangelogVersionPath");
export const getAgentDbPath = piUtilsFailing("pi-utils getAgentDbPath");
export const normalizePathForComparison = piUtilsFailing("pi-utils normalizePathForComparison");
export const getSSHConfigPath = piUtilsFailing("pi-utils getSSHConfigPath");

// Stand-ins for what the rule and settings providers and the settings loader import for other work
// (capability_preload.ts): values here work; the rest fail loudly when called (fail.ts).
import { failing, failingNamespace } from "./fail.ts";

export { failing };

export const DEFAULT_SKILLS_URL = "https://reference-oracle.invalid/skills";

// Agent definitions' `thinkingLevel`; no rule reaches it.
export const parseConfiguredThinkingLevel = failing("pi-tui parseConfiguredThinkingLevel");

/** `~` and `~/…` against the home folder; any other path unchanged. */
export function expandTilde(value: string, home: string = require("node:os").homedir()): string {
	if (value === "~") return home;
	if (value.startsWith("~/")) return require("node:path").join(home, value.slice(2));
	return value;
}

// Called at module load to let legacy plugins import the agent by its old name: nothing to do here.
export function installLegacyPiSpecifierShim(): void {}

// Typed config-file validation (config/config-file.ts), for files no rule provider reads.
export const OmpErrors = failingNamespace("omptype OmpErrors");

// Writing settings files (the cases only read them).
export const withFileLock = failing("pi-utils withFileLock");
export { stringifyYamlConfig } from "./pi-utils.ts";

// Bun preload for the capability suite (capability_oracle.ts), loaded by preload.ts when
// REFERENCE_REAL_CAPABILITY=1: the real capability registry, every discovery provider and the
// settings loader run unchanged, and the modules they import only for other work (model catalogs,
// tools, plugin code, schema checks, file writing) resolve to stand-ins. A stand-in named in
// shims/capability-deps.ts has a working value there; any other fails loudly when called, so a case
// that reaches one is reported as the reference throwing rather than answered by a guess.
import { plugin } from "bun";

const deps = `${import.meta.dir}/shims/capability-deps.ts`;

// Package modules absent at the versions the reference needs -> the names its files import.
const STUBS: Record<string, string[]> = {
	// Setting defaults and schema checks of other domains, config-file validation, file writing.
	"@oh-my-pi/pi-wire/skillshare": ["DEFAULT_SKILLS_URL"],
	"@oh-my-pi/omptype": ["OmpErrors", "type"],
	"@oh-my-pi/pi-utils/file-lock": ["withFileLock"],
	"@oh-my-pi/pi-utils/yaml-config": ["stringifyYamlConfig"],
	"@oh-my-pi/pi-ai/utils/schema": ["arkToWireSchema", "isArkSchema"],
	// settings.ts takes the compaction methods' order from session/compaction-methods.ts.
	"@oh-my-pi/pi-agent-core/compaction": ["shouldUseProviderNativeCompaction"],
};

// Files of the agent or pi-tui replaced whole (path suffix -> the names they must export).
const REPLACED: Record<string, string[]> = {
	// pi-tui's thinking selectors (and the model catalog behind them) serve agent definitions only.
	"pi-tui/src/thinking.ts": ["parseConfiguredThinkingLevel"],
	// The tools' path helpers (internal URLs, the read tool): discovery needs only `~` expansion.
	"pi-coding-agent/src/tools/path-utils.ts": ["expandTilde"],
	// Loading a plugin's code: the cases install no OMP plugin.
	"pi-coding-agent/src/extensibility/plugins/legacy-pi-compat.ts": ["installLegacyPiSpecifierShim"],
	// The TUI theme (settings.ts asks it whether a theme is light, when migrating theme settings).
	"pi-tui/src/theme/theme.ts": ["isLightTheme", "setAutoThemeMapping", "setColorBlindMode", "setSymbolPreset"],
	// The agent database: opened only by a persisting settings load (the cases load read-only).
	"pi-coding-agent/src/session/agent-storage.ts": ["AgentStorage"],
};

// Every settings domain (config/all-settings.ts) -> only the domains the cases read: the ttsr group,
// the provider switches, disabledExtensions, and the two settings.ts itself imports. Settings of
// other domains in a case's files are then unknown keys, which the loader keeps as they are.
const ALL_SETTINGS = `
import "${process.env.REFERENCE_AGENT_DIR}/src/config/model-settings.ts";
import "${process.env.REFERENCE_AGENT_DIR}/src/export/ttsr-settings.ts";
import "${process.env.REFERENCE_AGENT_DIR}/src/extensibility/settings.ts";
import "${process.env.REFERENCE_AGENT_DIR}/src/exec/settings.ts";
import { failing } from "${deps}";
export const orderedSettings = failing("all-settings orderedSettings");
`;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function exportsOf(mod: Record<string, unknown>, where: string, names: string[]): Record<string, unknown> {
	return Object.fromEntries(names.map(n => [n, n in mod ? mod[n] : (mod.failing as any)(`${where} ${n}`)]));
}

plugin({
	name: "reference-oracle-capability",
	setup(build) {
		for (const [name, names] of Object.entries(STUBS)) {
			build.module(name, async () => ({ exports: exportsOf(await import(deps), name, names), loader: "object" }));
		}
		// The discovery module as it is, less the providers of neither rules nor settings (skills,
		// context files, MCP servers, SSH hosts), whose modules pull in tool schemas: the rule and
		// settings providers keep their registration order.
		build.onLoad({ filter: /pi-coding-agent\/src\/discovery\/index\.ts$/ }, async args => ({
			contents: (await Bun.file(args.path).text()).replace(
				/^import "\.\/(agent-plugins|agents-md|claude-md|mcp-json|skillshare|ssh|vscode)";$/gm,
				"",
			),
			loader: "ts",
		}));
		build.onLoad({ filter: /pi-coding-agent\/src\/config\/all-settings\.ts$/ }, () => ({ contents: ALL_SETTINGS, loader: "ts" }));
		for (const [suffix, names] of Object.entries(REPLACED)) {
			build.onLoad({ filter: new RegExp(`${escape(suffix)}$`) }, () => ({
				contents: [
					`import * as deps from "${deps}";`,
					...names.map(n => `export const ${n} = "${n}" in deps ? (deps as any).${n} : deps.failing("${suffix} ${n}");`),
				].join("\n"),
				loader: "ts",
			}));
		}
	},
});

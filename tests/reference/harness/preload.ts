// Bun preload: resolve the imports the reference modules make that the registry cannot satisfy
// at 18.3.4 to the harness's own shims. The reference code itself is loaded unchanged from the
// cache directory (see scripts/reference-oracle); nothing of it is copied here.
import { plugin } from "bun";

if (process.env.REFERENCE_REAL_CAPABILITY === "1") await import("./capability_preload.ts");

const shims = `${import.meta.dir}/shims`;

plugin({
	name: "reference-oracle-shims",
	setup(build) {
		for (const [name, file] of [
			["@oh-my-pi/pi-utils", "pi-utils.ts"],
			["@oh-my-pi/pi-natives", "pi-natives.ts"],
		]) {
			build.module(name, async () => ({ exports: await import(`${shims}/${file}`), loader: "object" }));
		}
		const deps = `${shims}/tui-deps.ts`;
		const virtual: [string, string][] = [
			["@oh-my-pi/pi-agent-core", "ThinkingLevel, createToolScopedAbortReason"],
			["@oh-my-pi/pi-agent-core/compaction/messages", "createCustomMessage"],
			["@oh-my-pi/pi-ai/error", "is, Flag"],
			["@oh-my-pi/pi-wire", "COLLAB_PROMPT_MESSAGE_TYPE, COLLAB_PROTO"],
		];
		for (const [name, names] of virtual) {
			build.module(name, async () => {
				const mod = await import(deps);
				return { exports: Object.fromEntries(names.split(", ").map(n => [n, mod[n]])), loader: "object" };
			});
		}
		// pi-tui modules the `/tree` selector imports only to draw itself, by path inside the package.
		const tui = process.env.REFERENCE_TUI_DIR;
		const modules = `${shims}/tui-modules.ts`;
		const replaced: [RegExp, string][] = [
			[/pi-tui\/src\/index\.ts$/, `export { fuzzyMatch } from "${tui}/src/fuzzy.ts";
export { Container, Input, Spacer, TruncatedText, extractPrintableText, matchesKey, truncateToWidth } from "${modules}";`],
			[/pi-tui\/src\/theme\/(theme|index)\.ts$/, `export { theme } from "${modules}";`],
			[/pi-tui\/src\/keybinding-matchers\.ts$/, `export { matchesAppInterrupt, matchesSelectDown, matchesSelectPageDown, matchesSelectPageUp, matchesSelectUp } from "${modules}";`],
			[/pi-tui\/src\/keys\.ts$/, `export { matchesKey } from "${modules}";`],
			[/pi-tui\/src\/render\/render-utils\.ts$/, `export { FENCE_RE, shortenPath, toPathList } from "${modules}";`],
			[/pi-tui\/src\/chat\/transcript-render-helpers\.ts$/, `export { resolveAssistantErrorPresentation } from "${modules}";`],
			[/pi-tui\/src\/chrome\/overlay-box\.ts$/, `export { OverlayPanel, PanelDivider } from "${modules}";`],
		];
		// The capability suite loads those modules as they are (settings and tools import more of them).
		for (const [filter, contents] of process.env.REFERENCE_REAL_CAPABILITY === "1" ? [] : replaced) {
			build.onLoad({ filter }, () => ({ contents, loader: "ts" }));
		}
		// The capability suite (capability_oracle.ts) runs the real registry and its providers.
		if (process.env.REFERENCE_REAL_CAPABILITY !== "1") {
			build.onLoad({ filter: /pi-coding-agent\/src\/capability\/index\.ts$/ }, async () => ({
				contents: await Bun.file(`${shims}/capability-index.ts`).text(),
				loader: "ts",
			}));
		}
	},
});

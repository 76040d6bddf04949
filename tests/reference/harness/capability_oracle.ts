// The capability oracle: the reference's own settings loader (config/settings.ts, read-only) and
// rule capability (capability/index.ts with every discovery provider of rules and settings), run on
// project and home folders the Python side wrote, loaded unchanged from the package.
//
//   REFERENCE_REAL_CAPABILITY=1 bun --preload ./preload.ts ./capability_oracle.ts < batch.json > results.json
//
// Input {"cases": [{cwd, home, overrides}]}: `overrides` are the runtime overrides (the CLI's flags),
// keyed by setting id. Per case, as the agent starts a session: settings are loaded for `cwd` with
// `<home>/.omp/agent` as the agent folder, the capability registry is bound to them (provider
// switches and disabledExtensions read live from them) and the rules capability is loaded.
// Output per case: {settings: {id: {value, provenance}}, items: the rules kept, in order, all: every
// rule the providers produced with its shadowed flag, warnings}; the reference throwing gives {error}.
type Json = any;

const agentDir = process.env.REFERENCE_AGENT_DIR;
if (!agentDir || process.env.REFERENCE_REAL_CAPABILITY !== "1") {
	process.stderr.write("REFERENCE_AGENT_DIR / REFERENCE_REAL_CAPABILITY=1 is not set\n");
	process.exit(2);
}
// Foreign tools' folders named by the environment would be read outside the case's folders.
for (const name of ["CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "PI_CONFIG_FILES", "COPILOT_CUSTOM_INSTRUCTIONS_DIRS", "OMP_PROFILE", "PI_PROFILE"]) {
	delete process.env[name];
}

// Bun reads HOME once at startup; each case has its own home folder (set below, before each load).
require("node:os").homedir = () => process.env.HOME as string;

const discovery = await import(`${agentDir}/src/discovery/index.ts`);
const { Settings } = await import(`${agentDir}/src/config/settings.ts`);
const ttsr = await import(`${agentDir}/src/export/ttsr-settings.ts`);
const { cfgEnabledProviders, cfgDisabledProviders } = await import(`${agentDir}/src/config/model-settings.ts`);
const { cfgDisabledExtensions } = await import(`${agentDir}/src/extensibility/settings.ts`);
const { warnings: logged } = await import("./shims/pi-utils.ts");

const SETTINGS: [string, Json][] = [
	["ttsr.enabled", ttsr.cfgTtsrEnabled],
	["ttsr.judge", ttsr.cfgTtsrJudge],
	["ttsr.contextMode", ttsr.cfgTtsrContextMode],
	["ttsr.interruptMode", ttsr.cfgTtsrInterruptMode],
	["ttsr.repeatMode", ttsr.cfgTtsrRepeatMode],
	["ttsr.repeatGap", ttsr.cfgTtsrRepeatGap],
	["ttsr.builtinRules", ttsr.cfgTtsrBuiltinRules],
	["ttsr.disabledRules", ttsr.cfgTtsrDisabledRules],
	["enabledProviders", cfgEnabledProviders],
	["disabledProviders", cfgDisabledProviders],
	["disabledExtensions", cfgDisabledExtensions],
];

// The fields of a rule the cases compare (a field the rule lacks is left out, as JSON drops undefined).
const FIELDS = ["content", "description", "globs", "alwaysApply", "condition", "astCondition", "question", "scope", "agents", "interruptMode"];

function source(item: Json): Json {
	const out: Json = { name: item.name, provider: item._source.provider, providerName: item._source.providerName, path: item.path, level: item._source.level };
	for (const key of FIELDS) if (item[key] !== undefined) out[key] = item[key];
	return out;
}

async function run(c: Json): Promise<Json> {
	process.env.HOME = c.home;
	discovery.resetCapabilityForTests();
	const settings = await Settings.loadReadOnly({
		cwd: c.cwd,
		agentDir: `${c.home}/.omp/agent`,
		overrides: c.overrides ?? {},
	});
	const out: Json = { settings: {} };
	for (const [id, setting] of SETTINGS) {
		out.settings[id] = { value: setting.get(settings), provenance: settings.getProvenance(setting) };
	}
	const release = discovery.initializeWithSettings(settings);
	try {
		const result = await discovery.loadCapability("rules", { cwd: c.cwd });
		out.items = result.items.map(source);
		out.all = result.all.map((item: Json) => ({ ...source(item), shadowed: item._shadowed === true }));
		out.warnings = result.warnings;
	} finally {
		release();
	}
	return out;
}

const input = JSON.parse(await Bun.stdin.text());
const results: Json[] = [];
for (const c of input.cases) {
	logged.length = 0;
	try {
		const out = await run(c);
		out.logged = logged.map(w => w.message);
		results.push(out);
	} catch (error) {
		results.push({ error: String((error as Error)?.stack ?? error) });
	}
}
process.stdout.write(JSON.stringify({ results }));

// The `agents:` oracle: the reference's own parseRuleAgents / ruleAppliesToAgent (capability/rule.ts)
// and bucketRules (capability/rule-buckets.ts) on JSON cases, loaded unchanged from the package.
//
//   bun --preload ./preload.ts ./agents_oracle.ts < batch.json > results.json
//
// Input {"cases": [{agents, names: [...], bucket?: {rules, agentName, disabledRules, builtinRules}}]};
// output {"results": [{parsed, applies: [bool per name], kept?: [rule names bucketed]}]}.
const agentDir = process.env.REFERENCE_AGENT_DIR;
if (!agentDir) {
	process.stderr.write("REFERENCE_AGENT_DIR is not set\n");
	process.exit(2);
}
const { parseRuleAgents, ruleAppliesToAgent } = await import(`${agentDir}/src/capability/rule.ts`);
const { bucketRules } = await import(`${agentDir}/src/capability/rule-buckets.ts`);

const input = JSON.parse(await Bun.stdin.text());
const results = input.cases.map((c: any) => {
	try {
		const parsed = parseRuleAgents(c.agents) ?? null;
		const applies = (c.names ?? []).map((n: string | null) => ruleAppliesToAgent({ agents: parsed ?? undefined }, n ?? undefined));
		const out: any = { parsed, applies };
		if (c.bucket) {
			const seen: string[] = [];
			const manager = { addRule: (rule: any) => (seen.push(rule.name), true) };
			const rules = c.bucket.rules.map((r: any) => ({ ...r, agents: parseRuleAgents(r.agents) }));
			const buckets = bucketRules(rules, manager as any, {
				agentName: c.bucket.agentName ?? undefined,
				disabledRules: c.bucket.disabledRules,
				builtinRules: c.bucket.builtinRules,
			});
			out.kept = [...seen, ...buckets.alwaysApplyRules.map((r: any) => r.name), ...buckets.rulebookRules.map((r: any) => r.name)];
		}
		return out;
	} catch (error) {
		return { error: String(error) };
	}
});
process.stdout.write(JSON.stringify({ results }));

// Replaces the agent's capability registry (src/capability/index.ts), which pulls in settings,
// filesystem discovery and extension state. The engine reaches it only through rule.ts's
// `defineCapability(...)` call at module load, whose result the engine never reads.
export function defineCapability<T>(definition: T): T {
	return definition;
}

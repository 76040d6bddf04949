// A stand-in value that fails loudly when the reference reaches it: the tree cases are built so
// that only the selector's filtering and search run, never its rendering.
export function unreachable(what: string): never {
	throw new Error(`reference oracle shim reached: ${what} (not available in the harness)`);
}

export function failing(what: string): (...args: unknown[]) => never {
	return () => unreachable(what);
}

/** An object whose every property read fails, for enums and namespaces the harness lacks. */
export function failingNamespace(what: string): any {
	return new Proxy({}, { get: (_t, key) => (typeof key === "symbol" ? undefined : unreachable(`${what}.${String(key)}`)) });
}

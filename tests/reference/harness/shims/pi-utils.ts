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

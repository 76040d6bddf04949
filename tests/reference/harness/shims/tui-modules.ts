// Replacements for pi-tui modules the `/tree` selector imports only to draw itself (theme,
// overlay chrome, key matching, path and error rendering). Keys arrive from the harness as
// `<key:NAME>` tokens; anything else typed is printable search text.
import { failing } from "./fail.ts";

const KEY = /^<key:([^>]+)>$/;

export function matchesKey(data: string, name: string): boolean {
	return KEY.exec(data)?.[1] === name;
}

export function extractPrintableText(data: string): string {
	return KEY.test(data) ? "" : data;
}

export const matchesSelectUp = (d: string) => matchesKey(d, "up");
export const matchesSelectDown = (d: string) => matchesKey(d, "down");
export const matchesSelectPageUp = (d: string) => matchesKey(d, "pageUp");
export const matchesSelectPageDown = (d: string) => matchesKey(d, "pageDown");
export const matchesAppInterrupt = (d: string) => matchesKey(d, "escape");

const plain = (_color: string, text: string) => text;
export const theme = new Proxy({ fg: plain, bg: plain, bold: (t: string) => t }, {
	get: (target, key) => (key in target ? (target as any)[key] : failing(`theme.${String(key)}`)),
});

export class Container {
	children: unknown[] = [];
	addChild(child: unknown): void {
		this.children.push(child);
	}
	clear(): void {
		this.children = [];
	}
	invalidate(): void {}
	render(): string[] {
		return [];
	}
}
export class OverlayPanel extends Container {
	constructor(readonly title?: string) {
		super();
	}
}
export class PanelDivider {}
export class Spacer {}
export class TruncatedText {}
export class Input {}

export const truncateToWidth = failing("pi-tui truncateToWidth");
export const toPathList = failing("render-utils toPathList");
export const shortenPath = failing("render-utils shortenPath");
export const resolveAssistantErrorPresentation = failing("transcript-render-helpers resolveAssistantErrorPresentation");
// Used by thinking-display's fence folding, never by canonicalizeMessage.
export const FENCE_RE = { exec: failing("render-utils FENCE_RE") };
export const isInsideTerminalMultiplexer = () => false;

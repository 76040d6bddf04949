// Stand-in for @oh-my-pi/pi-natives (18.3.4 is not on the registry, and the newest wrapper and
// native builds there do not share a version). `astMatch` runs ast-grep's own Node binding
// (@ast-grep/napi, installed by scripts/reference-oracle next to the reference) for the languages
// that binding has built in; any other language alias throws, which the reference turns into its
// "ast match failed" warning. The AST cases only use those languages and aliases no engine knows.
export const AstMatchStrictness = { Smart: "smart" } as const;
export const Encoding = { Jev: "Jev" } as const;

const NAPI_LANGS: Record<string, string> = {
	ts: "TypeScript", mts: "TypeScript", cts: "TypeScript", typescript: "TypeScript", tsx: "Tsx",
	js: "JavaScript", mjs: "JavaScript", cjs: "JavaScript", jsx: "JavaScript", javascript: "JavaScript",
	css: "Css", html: "Html", htm: "Html", xhtml: "Html",
};

let napi: any;

export async function astMatch(options: {
	patterns: string[];
	source: string;
	lang: string;
	strictness?: string;
	limit?: number;
}): Promise<{ totalMatches: number }> {
	const dir = process.env.REFERENCE_AST_GREP_DIR;
	if (!dir) throw new Error("reference oracle: no ast-grep binding installed");
	napi ??= await import(`${dir}/index.js`);
	const lang = NAPI_LANGS[options.lang];
	if (!lang) throw new Error(`reference oracle shim: language '${options.lang}' not available`);
	const root = napi.parse(napi.Lang[lang], options.source).root();
	// Callers ask for `limit: 1`: the first pattern with a match answers.
	for (const pattern of options.patterns) {
		try {
			if (root.find({ rule: { pattern: { context: pattern, strictness: options.strictness ?? "smart" } } })) {
				return { totalMatches: 1 };
			}
		} catch {
			// a pattern that does not compile matches nothing
		}
	}
	return { totalMatches: 0 };
}

/**
 * No native tokenizer here. The judged path only asks whether an output fits the judge's token budget
 * (`jevPrefix`); a text never has more tokens than UTF-16 units, so a length within the budget is a
 * sound answer for the short outputs of the coordinator cases. Longer texts would need the real count.
 */
export function countTokens(text: string): number {
	if (text.length <= 32_000) return text.length;
	throw new Error("reference oracle: no native tokenizer (only texts of up to 32,000 units are measured)");
}

// pi-tui's text-width helpers (utils.ts) import these at module load; the tree cases never draw.
export {
	Ellipsis,
	extractSegments,
	setHangulCompatJamoWidthOverride,
	sliceWithWidth,
	truncateToWidth,
	wrapTextWithAnsi,
} from "./tui-deps.ts";

/**
 * The native file glob the rule providers list folders with (capability suite), over Bun.Glob:
 * regular files only, hidden entries excluded, `recursive: false` keeping the pattern to the one
 * folder, a missing folder an error (as the native call throws). Not followed: `.gitignore` (no
 * generated case has one). The native match order is unpublished; the matches are sorted by path.
 */
export const FileType = { File: "file", Dir: "dir" } as const;

export async function glob(options: {
	pattern: string;
	path: string;
	gitignore?: boolean;
	hidden?: boolean;
	fileType?: string;
	recursive?: boolean;
}): Promise<{ matches: { path: string }[] }> {
	const fs = require("node:fs");
	if (!fs.statSync(options.path).isDirectory()) throw new Error(`not a directory: ${options.path}`);
	const pattern = options.recursive === false || options.pattern.includes("**") ? options.pattern : `**/${options.pattern}`;
	const matches: { path: string }[] = [];
	for await (const file of new Bun.Glob(pattern).scan({
		cwd: options.path,
		dot: options.hidden === true,
		onlyFiles: options.fileType !== "dir",
	})) {
		matches.push({ path: file });
	}
	matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	return { matches };
}

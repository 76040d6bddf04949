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

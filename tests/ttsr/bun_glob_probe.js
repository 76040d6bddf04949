// Writes tests/ttsr/data/bun_glob_cases.json: [pattern, path, Bun.Glob(pattern).match(path)] for a
// hand-picked grid of trailing-slash / empty-path / globstar cases plus seeded random ones. The
// expected values of tests/ttsr/test_globs_bun.py come from these Bun runs, never from the workbench.
//
// Regenerate (Bun ships its binary inside the npm package `bun`):
//   npm i --prefix /root/.cache/bun-oracle bun@1.3.14
//   /root/.cache/bun-oracle/node_modules/.bin/bun tests/ttsr/bun_glob_probe.js
const path = require("path");
const fs = require("fs");

const PATTERNS = [
  "**/*", "src/**/*", "**", "src/**", "*", "*/", "**/", "src/*", "src/*/", "a/**", "a/**/", "**/*.ts",
  "**/a", "**/a/", "*/*", "a/*", "a/**/b", "a/**/*", "?", "a/?", "**/**", "**/*/", "{a,b}/", "a/", "",
  "a", "/a", "/**", "/*", "./a", "./*", "*.ts", "!**/*", "!*", "!**", "!a/**", "!**/a", "a/**/**",
  "**/a/**", "[a]/", "a{,/}", "a{/,}b", "\\*", "a\\/b", "{**/*,x}", "{x,**/*}", "x/{**/*,y}",
  "{**,x}", "{x,**}", "a/{**,x}", "a/{x,**}/b", "{a/**,b}", "{a,**/b}", "x**", "**x", "a/**b", "a/b**",
  "**/**/*", "a/**/**/*", "!a/**/*", "!**/*.ts", "!!**/*", "**/*/*", "*/**/*", "\\**/*", "**/{*,a}",
  "{**/*}", "**/*{,}", "**/*.{ts,js}", "src/**/",
];
const PATHS = [
  "", "/", "//", "a", "a/", "a//", "a/b", "a/b/", "src", "src/", "src/a.ts", "src/x/", "x/src/", ".",
  "./a", "/a", "/a/", "a.ts", "a/b.ts", "b", "ab", "a/b/c", "x/", "x/a", "x/y/",
];

// Seeded random cases over a small alphabet, so that every construct meets every neighbour.
let seed = 20261201;
function rand(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
const GLOB_TOKENS = ["a", "b", "*", "**", "?", "/", "/", "{a,b}", "{,a}", "{a/,b}", "[ab]", "[!a]", ".", "\\*"];
const PATH_TOKENS = ["a", "b", "/", "/", ".", "ab", "*"];
function randomString(tokens, maxLen) {
  let out = "";
  const len = rand(maxLen + 1);
  for (let i = 0; i < len; i++) out += tokens[rand(tokens.length)];
  return out;
}

const cases = [];
const seen = new Set();
function add(pattern, subject) {
  const key = JSON.stringify([pattern, subject]);
  if (seen.has(key)) return;
  seen.add(key);
  cases.push([pattern, subject, new Bun.Glob(pattern).match(subject)]);
}
for (const p of PATTERNS) for (const s of PATHS) add(p, s);
for (let i = 0; i < 3000; i++) {
  const neg = rand(8) === 0 ? "!" : "";
  add(neg + randomString(GLOB_TOKENS, 5), randomString(PATH_TOKENS, 5));
}

const out = path.join(__dirname, "data", "bun_glob_cases.json");
const lines = cases.map((c) => " " + JSON.stringify(c));
fs.writeFileSync(
  out,
  `{"bun": ${JSON.stringify(Bun.version)}, "generator": "tests/ttsr/bun_glob_probe.js", "cases": [\n${lines.join(",\n")}\n]}\n`,
);
console.log(`${cases.length} cases probed with Bun ${Bun.version} -> ${out}`);

// Writes tests/ttsr/data/js_case_fold_cases.json: for each [pattern, flags] the answers of
// RegExp.test on every subject ("1"/"0", in the order of "subjects"), given by
// JavaScriptCore (Bun, the reference's runtime) for the characters whose case folding differs
// between JS non-unicode `i` mode and `regress`. tests/ttsr/test_js_case_fold.py checks the
// workbench's conditions against every row.
//
// Regenerate (Bun ships its binary inside the npm package `bun`):
//   npm i --prefix /root/.cache/bun-oracle bun@1.3.14
//   /root/.cache/bun-oracle/node_modules/.bin/bun tests/ttsr/js_case_fold_probe.js
const path = require("path");
const fs = require("fs");

// The differing characters, their case partners and a few neighbours that must keep folding.
const CHARS = "IKSiks\u00c5\u00df\u00e5\u0131\u017f\u0398\u03a9\u03b8\u03c9\u03d1\u03f4\u1e9e\u1f80\u1f88\u1f8f\u1f90\u1f98\u1fa0\u1fa8\u1faf\u1fb3\u1fbc\u1fc3\u1fcc\u1ff3\u1ffc\u2126\u212a\u212baAzZ\u00e9\u00c9\u00b5\u039c\u03bc\u03c3\u03c2\u03a3";
const esc = (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
const patterns = [];
for (const c of CHARS) patterns.push(esc(c), `[${esc(c)}]`, `[^${esc(c)}]`);
patterns.push(
  "[a-z]", "[^a-z]", "[A-Z]", "[^A-Z]", "[a-zA-Z]", "\\w", "\\W", "[\\w]", "[^\\w]", "[\\W]", "[^\\W]",
  "[s-t]", "[R-T]", "[h-j]", "[j-l]", "\\d", "\\D", "\\S", "[\\s\\S]", "[^\\s]", "[\\u0100-\\u01ff]",
  "[\\u2100-\\u2200]", "[\\u1f80-\\u1fff]", "[^s\u017f]", "[s\u017f]", ".", "s", "\u017f", "password", "PASSWORD",
  "kelvin", "[k]elvin", "(?:s|k)+", "[^a-rt-z]", "[\\x73]", "\\x73", "\\163", "[\\163]", "[^\\x00-\\x7f]",
);
const subjects = [...CHARS, "password", "pa\u017f\u017fword", "\u017f ", "kelvin", "\u212aelvin", "ss\u017f"];
const rows = [];
for (const flags of ["i", ""]) {
  for (const p of patterns) {
    const re = new RegExp(p, flags);
    rows.push([p, flags, subjects.map((s) => (re.test(s) ? "1" : "0")).join("")]);
  }
}
const out = path.join(__dirname, "data", "js_case_fold_cases.json");
fs.writeFileSync(
  out,
  `{"bun": ${JSON.stringify(Bun.version)}, "generator": "tests/ttsr/js_case_fold_probe.js",\n` +
    ` "subjects": ${JSON.stringify(subjects)},\n "rows": [\n` +
    rows.map((r) => " " + JSON.stringify(r)).join(",\n") + "\n]}\n",
);
console.log(`${rows.length * subjects.length} cases probed with Bun ${Bun.version} -> ${out}`);

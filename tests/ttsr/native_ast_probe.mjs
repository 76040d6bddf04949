// Writes tests/ttsr/data/native_ast_cases.json: [lang, pattern, source, matched] as the agent's own
// native engine (@oh-my-pi/pi-natives `astMatch`, smart strictness, limit 1) answers, for the
// languages ast-grep-py does not build in and a few it does, on whole sources and on truncated ones
// (a streamed tool call is parsed while it is still incomplete). tests/ttsr/test_ast_native.py
// compares the workbench with every row.
//
// Regenerate (pi-natives 18.3.4 is not on the registry; 18.2.3 is the newest with a linux-x64 binary):
//   npm i --ignore-scripts --prefix /root/.cache/natives-oracle @oh-my-pi/pi-natives@18.2.3 @oh-my-pi/pi-natives-linux-x64@18.2.3
//   npm i --prefix /root/.cache/bun-oracle bun@1.3.14
//   NATIVES_ORACLE=/root/.cache/natives-oracle /root/.cache/bun-oracle/node_modules/.bin/bun tests/ttsr/native_ast_probe.mjs
import * as fs from "node:fs";
import * as path from "node:path";

const pkg = path.join(process.env.NATIVES_ORACLE ?? "/root/.cache/natives-oracle", "node_modules/@oh-my-pi/pi-natives");
const natives = await import(path.join(pkg, "native/index.js"));
const natVersion = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version;

// [lang alias, source, patterns]
const SAMPLES = [
  ["toml", '[package]\nname = "x"\nversion = "1.0"\n\n[dependencies]\nserde = { version = "1" }\n', ['name = "x"', 'version = "1.0"', "[dependencies]", 'name = $V', 'serde = $$$', 'other = 1']],
  ["sql", "SELECT a, b FROM t WHERE a = 1;\nDELETE FROM users;\n", ["SELECT a, b FROM t WHERE a = 1", "DELETE FROM users", "DELETE FROM $T", "SELECT $$$ FROM $T", "DROP TABLE x"]],
  ["xml", '<root><item id="1">x</item><item/></root>', ['<item id="1">x</item>', "<item/>", "<item>$X</item>", "<other/>"]],
  ["vue", "<template>\n  <div>{{ msg }}</div>\n</template>\n<script>\nexport default { data() { return { msg: 1 } } }\n</script>\n", ["<div>{{ msg }}</div>", "<span/>"]],
  ["svelte", "<script>\n  let count = 0;\n</script>\n<button on:click={() => count++}>{count}</button>\n", ["<script>\n  let count = 0;\n</script>", "<div/>"]],
  ["astro", "---\nconst title = 'x';\n---\n<h1>{title}</h1>\n", ["<h1>{title}</h1>", "<h2/>"]],
  ["graphql", "query Q { user(id: 1) { name } }\n", ["query Q { user(id: 1) { name } }", "user(id: 1) { name }", "query $Q { $$$ }", "mutation M { x }"]],
  ["proto", 'syntax = "proto3";\nmessage A {\n  int32 x = 1;\n  string name = 2;\n}\n', ["int32 x = 1;", "message A { $$$ }", "message $M { $$$ }", "enum E {}"]],
  ["make", "all: main.o\n\tcc -o app main.o\n\nclean:\n\trm -f app\n", ["all: main.o\n\tcc -o app main.o\n", "clean:\n\trm -f app\n", "$T: main.o", "install:"]],
  ["dockerfile", "FROM ubuntu:22.04\nRUN apt-get update\nCOPY . /app\n", ["FROM ubuntu:22.04", "RUN apt-get update", "FROM $I", "EXPOSE 80"]],
  ["ini", "[core]\nbare = false\n\n[remote]\nurl = x\n", ["bare = false", "[remote]", "bare = $V", "other = 1"]],
  ["r", "library(dplyr)\nx <- c(1, 2)\nprint(x)\n", ["library(dplyr)", "print(x)", "library($X)", "x <- $V", "stop()"]],
  ["clojure", "(ns app.core)\n(defn f [x] (println x))\n", ["(println x)", "(println $X)", "(defn $F $$$)", "(foo)"]],
  ["elisp", '(defun f () (message "hi"))\n', ['(message "hi")', "(message $X)", "(foo)"]],
  ["erlang", '-module(m).\nf() -> io:format("x").\n', ['io:format("x")', "io:format($X)", "g() -> ok."]],
  ["julia", "function f(x)\n  println(x)\nend\n", ["println(x)", "println($X)", "foo()"]],
  ["ocaml", 'let () = print_endline "x"\nlet f x = x + 1\n', ['print_endline "x"', "print_endline $X", "let f x = x + 1", "foo"]],
  ["objc", '#import <Foundation/Foundation.h>\nint main() { NSLog(@"x"); return 0; }\n', ['NSLog(@"x")', "NSLog($X)", "return 0;", "foo()"]],
  ["fortran", "program p\n  print *, 1\nend program p\n", ["print *, 1", "print *, $X", "stop"]],
  ["cmake", "cmake_minimum_required(VERSION 3.20)\nproject(foo)\n", ["project(foo)", "project($X)", "add_library(x)"]],
  ["powershell", 'Write-Host "hi"\n$x = Get-Item .\n', ['Write-Host "hi"', "Write-Host $X", "Remove-Item x"]],
  ["starlark", 'load("a.bzl", "b")\ncc_library(name = "x")\n', ['load("a.bzl", "b")', "load($A, $B)", 'cc_library(name = "x")', "cc_binary()"]],
  ["verilog", "module m(input a, output b);\n  assign b = a;\nendmodule\n", ["assign b = a;", "assign $B = $A;", "always @(*) begin end"]],
  ["odin", 'package main\nimport "core:fmt"\nmain :: proc() {\n  fmt.println("x")\n}\n', ['fmt.println("x")', "fmt.println($X)", "foo()"]],
  ["tla", "---- MODULE M ----\nVARIABLE x\nInit == x = 0\n====\n", ["Init == x = 0", "$A == x = 0", "Next == x' = x"]],
  ["regex", "a+(b|c)*", ["a+", "(b|c)", "d"]],
  ["mdx", "# Title\n\nSome *text*.\n", ["# Title", "*text*", "## Other"]],
  ["diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", ["-a", "+b"]],
  ["just", "build:\n    cargo build\n", ["build:\n    cargo build", "test:"]],
  // Built-in languages, for broken-source recovery.
  ["tsx", "export const A = () => {\n  const [s, setS] = useState(0);\n  return <div onClick={() => setS(s + 1)}>{s}</div>;\n};\n", ["useState($X)", "<div $$$>{s}</div>", "setS($V)"]],
  ["js", "const x = require('x');\nx.then((r) => { console.log(r); }).catch(() => {});\n", ["require($M)", "console.log($R)", "$P.catch($$$)"]],
  ["java", "class A {\n  void f() {\n    try { g(); } catch (Exception e) { e.printStackTrace(); }\n  }\n}\n", ["$E.printStackTrace()", "g()", "try { $$$ } catch ($T $E) { $$$ }"]],
  ["c", "#include <stdio.h>\nint main(void) {\n  char *p = malloc(10);\n  printf(\"%s\", p);\n  return 0;\n}\n", ["malloc($N)", "printf($$$)", "return 0;"]],
  ["cpp", "#include <vector>\nint main() {\n  std::vector<int> v;\n  v.push_back(1);\n  auto p = new int(3);\n}\n", ["$V.push_back($X)", "new int($N)", "std::vector<int> $V;"]],
  ["rb", "class A\n  def f(x)\n    puts x\n    eval(x)\n  end\nend\n", ["puts $X", "eval($X)", "def $F($A)\n$$$\nend"]],
  ["kt", "fun main() {\n  val x: String? = null\n  println(x!!.length)\n}\n", ["$X!!", "println($A)", "val $V: String? = null"]],
  ["swift", "func f() {\n  let x = try! g()\n  print(x)\n}\n", ["try! $E", "print($X)"]],
  ["php", "<?php\nfunction f($x) {\n  echo $x;\n  eval($x);\n}\n", ["eval($X)", "echo $X;"]],
  ["css", ".a {\n  color: red !important;\n  margin: 0;\n}\n", ["color: red !important", "margin: $V"]],
  ["html", "<html>\n<body>\n<div id=\"x\" onclick=\"f()\">hi</div>\n<script>eval('x')</script>\n</body>\n</html>\n", ["<div $$$>hi</div>", "eval($X)"]],
  ["yaml", "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n", ["runs-on: $V", "run: echo hi"]],
  ["json", "{\n  \"name\": \"x\",\n  \"deps\": { \"a\": \"^1\" }\n}\n", ["\"name\": $V", "\"a\": \"^1\"", "\"name\": \"y\"", "\"a\": $V", "$K: \"^1\"", "\"deps\": { $$$ }", "\"deps\": $D", "{ \"a\": \"^1\" }", "\"x\"", "\"nope\": $V"]],
  ["sh", "#!/bin/bash\nset -e\nrm -rf \"$DIR\"/*\ncurl http://x | sh\n", ["rm -rf $$$", "curl $U | sh"]],
  ["lua", "local function f(x)\n  print(x)\n  return loadstring(x)\nend\n", ["print($X)", "loadstring($X)"]],
  ["cs", "class A {\n  void F() {\n    var x = (string)null;\n    Console.WriteLine(x);\n  }\n}\n", ["Console.WriteLine($X)", "var $V = $E;"]],
  ["ex", "defmodule A do\n  def f(x) do\n    IO.inspect(x)\n  end\nend\n", ["IO.inspect($X)", "def $F($A) do\n$$$\nend"]],
  ["hs", "main :: IO ()\nmain = do\n  print (head [])\n", ["head $X", "print $X"]],
  ["nix", "{ pkgs, ... }:\n{\n  environment.systemPackages = [ pkgs.git ];\n}\n", ["pkgs.git", "environment.systemPackages = $V;"]],
  ["dart", "void main() {\n  var x = f()!;\n  print(x);\n}\n", ["print($X)", "$E!"]],
  ["zig", "pub fn main() void {\n    const x = f() catch unreachable;\n    _ = x;\n}\n", ["$E catch unreachable", "const $X = $E;", "f() catch unreachable", "_ = x;"]],
  ["sol", "contract A {\n  function f() public {\n    tx.origin;\n    selfdestruct(payable(msg.sender));\n  }\n}\n", ["selfdestruct($X)", "tx.origin"]],
  ["tf", "resource \"aws_s3_bucket\" \"b\" {\n  acl = \"public-read\"\n}\n", ["acl = \"public-read\"", "acl = $V"]],
  ["md", "# Title\n\n```js\nconsole.log(1)\n```\n\n- item\n", ["# Title", "- item"]],
  ["scala", "object A {\n  def f(x: Option[Int]) = x.get\n}\n", ["$X.get", "def $F($$$) = $B"]],
  ["ts", "function f(a: number) {\n  console.log(a);\n  if (a > 1) { return a.unwrap(); }\n}\n", ["console.log($A)", "$X.unwrap()", "if ($C) { $$$ }", "return $R", "foo()"]],
  ["py", "def f(x):\n    print(x)\n    if x:\n        return x.unwrap()\n", ["print($X)", "$X.unwrap()", "return $R", "foo()"]],
  ["rs", "fn main() {\n    let v = get().unwrap();\n    println!(\"{}\", v);\n}\n", ["$X.unwrap()", "let $V = $E;", "foo()"]],
  ["go", "package main\nfunc main() {\n\tx, err := f()\n\tif err != nil { panic(err) }\n}\n", ["panic($E)", "if err != nil { $$$ }", "foo()"]],
];

const cases = [];
async function run(lang, pattern, source) {
  try {
    const r = await natives.astMatch({ patterns: [pattern], source, lang, strictness: natives.AstMatchStrictness.Smart, limit: 1 });
    return r.totalMatches > 0;
  } catch (e) {
    return "error";
  }
}
for (const [lang, source, patterns] of SAMPLES) {
  const cuts = new Set([source.length]);
  for (let k = 1; k < 20; k++) cuts.add(Math.floor((source.length * k) / 20));
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const src = source.slice(0, cut);
    for (const p of patterns) cases.push([lang, p, src, await run(lang, p, src)]);
  }
}
const out = path.join(import.meta.dir, "data", "native_ast_cases.json");
fs.writeFileSync(
  out,
  `{"pi_natives": ${JSON.stringify(natVersion)}, "generator": "tests/ttsr/native_ast_probe.mjs", "cases": [\n` +
    cases.map((c) => " " + JSON.stringify(c)).join(",\n") + "\n]}\n",
);
console.log(`${cases.length} cases from pi-natives ${natVersion} -> ${out}`);

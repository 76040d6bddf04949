"""Rule edits that are not on disk yet: named drafts, diffs, safe saves, examples appended to a rule.

No Panel here (the views in ``playground_view`` and ``drafts_view`` use it):

- ``DraftBook``: named drafts of one browser session (rule name -> Markdown), kept in memory and,
  when asked, as JSON under ``<served root>/.workbench/drafts/`` (never next to the rule files).
- ``unified_diff`` / ``save_rule_file``: a save always shows its diff first and writes atomically,
  and only over the text the diff was made from (a file changed on disk meanwhile is refused).
- ``append_example``: one more item at the end of the frontmatter ``examples`` list, by inserting
  lines: no other byte of the file changes, and the result is re-parsed to prove it.
- ``draft_rules``: the rule set with a draft's texts in place of the files (for the comparison).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.errors import NotFoundError, RuleFileError, UsageError
from workbench.rules import build_rule_from_markdown, parse_frontmatter
from workbench.rules.examples import EXAMPLES_KEY, parse_examples

_DRAFT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")
_KEY_LINE = re.compile(r"^[^\s#-][^:]*:")
_EXAMPLES_LINE = re.compile(rf"^{EXAMPLES_KEY}:[ \t]*(?P<value>[^#\n]*?)[ \t]*(#.*)?$")


def unified_diff(old: str, new: str, path: str) -> str:
    """The change as ``diff -u`` prints it ("" when there is none)."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a reader never sees half a file); mode kept."""
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_rule_file(path: str | os.PathLike[str], new: str, *, expected: str) -> Path:
    """Write ``new`` over the rule file, if it still holds ``expected`` (the text the diff was made from)."""
    target = Path(path)
    if not target.is_file():
        raise NotFoundError(f"{target}: the rule has no file to save to (a bundled rule? copy it into the project)")
    current = target.read_text(encoding="utf-8")
    if current != expected:
        raise UsageError(f"{target}: the file changed on disk since the diff was shown; review the new diff")
    write_atomic(target, new)
    return target


# -- examples --------------------------------------------------------------------------------------
def example_item(source: str, text: str, *, triggers: bool, tool_name: str | None = None,
                 path: str | None = None, note: str | None = None) -> dict[str, Any]:
    """An ``examples`` item for a playground text at ``source`` (see ``workbench.rules.examples``)."""
    item: dict[str, Any]
    if source == "thinking":
        item = {"thinking": text}
    elif source == "tool":
        tool = tool_name or "write"
        item = {"tool": tool}
        if path:
            item["path"] = path
        item["new_string" if tool == "edit" else "content"] = text
    else:
        item = {"text": text}
    item["triggers"] = triggers
    if note:
        item["note"] = note
    return item


def _item_lines(item: Mapping[str, Any], indent: str) -> list[str]:
    # JSON strings and booleans are valid YAML scalars: any text (quotes, colons, newlines) stays exact.
    out = []
    for i, (key, value) in enumerate(item.items()):
        lead = f"{indent}- " if i == 0 else f"{indent}  "
        out.append(f"{lead}{key}: {json.dumps(value, ensure_ascii=False)}\n")
    return out


def _frontmatter_bounds(lines: list[str]) -> tuple[int, int] | None:
    """(first metadata line, closing ``---`` line) as the frontmatter parser finds them, else None."""
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() == "---":
            return 1, i
    return None


def append_example(markdown: str, item: Mapping[str, Any], *, path: str = "rule.md") -> str:
    """``markdown`` with ``item`` added as the last ``examples`` entry; nothing else is rewritten."""
    lines = markdown.splitlines(keepends=True)
    bounds = _frontmatter_bounds(lines)
    if bounds is None:
        new_lines = ["---\n", f"{EXAMPLES_KEY}:\n", *_item_lines(item, "  "), "---\n", *lines]
    else:
        start, end = bounds
        key = next((i for i in range(start, end) if _EXAMPLES_LINE.match(lines[i].rstrip("\r\n"))), None)
        if key is None:
            new_lines = [*lines[:end], f"{EXAMPLES_KEY}:\n", *_item_lines(item, "  "), *lines[end:]]
        else:
            value = _EXAMPLES_LINE.match(lines[key].rstrip("\r\n")).group("value")  # type: ignore[union-attr]
            block_end = key + 1
            last = key
            indent = None
            while block_end < end and not _KEY_LINE.match(lines[block_end]):
                stripped = lines[block_end].strip()
                if stripped and not stripped.startswith("#"):
                    last = block_end
                    if indent is None and stripped.startswith("-"):
                        indent = lines[block_end][: len(lines[block_end]) - len(lines[block_end].lstrip())]
                block_end += 1
            if value == "[]" and last == key:
                new_lines = [*lines[:key], f"{EXAMPLES_KEY}:\n", *_item_lines(item, "  "), *lines[key + 1:]]
            elif value:
                raise RuleFileError("is written inline (flow style); add the example by hand or write the list "
                                    "one item per line", path=path, field=EXAMPLES_KEY)
            else:
                new_lines = [*lines[: last + 1], *_item_lines(item, indent if indent is not None else "  "),
                             *lines[last + 1:]]
    new = "".join(new_lines)
    _check_append(markdown, new, item, path)
    return new


def _check_append(old: str, new: str, item: Mapping[str, Any], path: str) -> None:
    """Prove the insertion: the other keys and the body parse the same, the list grew by ``item``.

    Bodies compare trimmed: the parser trims a body after frontmatter but not a file without any.
    """
    before, after = parse_frontmatter(old, source=path), parse_frontmatter(new, source=path)
    others = {k: v for k, v in before.frontmatter.items() if k != EXAMPLES_KEY}
    if {k: v for k, v in after.frontmatter.items() if k != EXAMPLES_KEY} != others or after.body.strip() != before.body.strip():
        raise RuleFileError("appending the example would change other content; add it by hand", path=path,
                            field=EXAMPLES_KEY)
    old_items = before.frontmatter.get(EXAMPLES_KEY) or []
    new_items = after.frontmatter.get(EXAMPLES_KEY)
    if not isinstance(new_items, list) or new_items[:-1] != list(old_items) or new_items[-1] != dict(item):
        raise RuleFileError("the examples list could not be extended safely; add the example by hand", path=path,
                            field=EXAMPLES_KEY)
    parse_examples(after.frontmatter, path=path)  # the new item must be a valid example too


# -- drafts ----------------------------------------------------------------------------------------
class DraftBook:
    """Named drafts: each maps rule names to edited Markdown; optionally stored under ``folder``."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder  # <served root>/.workbench/drafts, or None (memory only)
        self.drafts: dict[str, dict[str, str]] = {}
        if folder is not None and folder.is_dir():
            for f in sorted(folder.glob("*.json")):
                try:
                    data = json.loads(f.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue  # a broken draft file is skipped, never rewritten
                rules = data.get("rules") if isinstance(data, dict) else None
                if isinstance(rules, dict) and all(isinstance(v, str) for v in rules.values()):
                    self.drafts[str(data.get("name") or f.stem)] = {str(k): v for k, v in rules.items()}

    @staticmethod
    def check_name(name: str) -> str:
        name = name.strip()
        if not _DRAFT_NAME.match(name):
            raise UsageError(f"draft name {name!r}: use letters, digits, spaces, '.', '_' or '-' (at most 64)")
        return name

    def keep(self, name: str, texts: Mapping[str, str], *, persist: bool = False) -> str:
        name = self.check_name(name)
        if not texts:
            raise UsageError("nothing to keep: edit a rule in the Rules tab first")
        self.drafts[name] = dict(texts)
        if persist:
            if self.folder is None:
                raise UsageError("no served folder to keep drafts in")
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.folder / f"{name.replace(' ', '_')}.json"
            fd, tmp = tempfile.mkstemp(prefix=".draft-", suffix=".json", dir=self.folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"name": name, "rules": self.drafts[name]}, fh, ensure_ascii=False, indent=1)
            os.replace(tmp, target)
        return name

    def get(self, name: str) -> dict[str, str]:
        if name not in self.drafts:
            raise NotFoundError(f"no draft named {name!r}")
        return self.drafts[name]

    def names(self) -> list[str]:
        return sorted(self.drafts)


def draft_rules(rules: Sequence[Any], texts: Mapping[str, str]) -> list[Any]:
    """``rules`` with each rule named in ``texts`` rebuilt from its draft Markdown (same file, same source)."""
    known = {r.name for r in rules}
    missing = sorted(set(texts) - known)
    if missing:
        raise NotFoundError(f"the draft edits rule(s) not in the current rule set: {', '.join(missing)}")
    out = []
    for rule in rules:
        text = texts.get(rule.name)
        if text is None:
            out.append(rule)
            continue
        built = build_rule_from_markdown(os.path.basename(rule.path) or f"{rule.name}.md", text, rule.path,
                                         rule.source, rule_name=rule.name)
        out.append(replace(built, source=rule.source) if built.source is None else built)
    return out

"""Rule examples: the ``examples`` frontmatter key, a workbench extension the agent ignores.

A rule file may list pieces of model output that must and must not trigger it, in the spirit of
ast-grep's ``valid`` / ``invalid`` lists and regex101's unit tests::

    examples:
      - text: "let v = res.unwrap();"    # model output; see "text" below
        triggers: true
      - thinking: "I could just unwrap"  # the model's thinking (source ``thinking``)
        triggers: false
      - tool: edit                        # a tool call, arguments as the model sends them
        path: src/a.rs
        new_string: "x.unwrap()"
        triggers: true
      - tool: apply_patch
        args: {input: "*** Begin Patch\\n..."}
        triggers: true
        note: "patch envelopes are read per file"

Each item is a mapping with exactly one of ``text`` / ``thinking`` / ``tool`` and a boolean
``triggers``; ``note`` (a string) is optional everywhere.

A judged rule (``question``) is never matched: after the output completes a judge is asked. Its
examples take ``judge``, the scripted answer (``yes``, ``no`` or a probability; default ``yes``), and
``triggers`` then says whether the rule's warning is delivered: with the default, whether the
question is asked at all (scope, globs and the condition pre-filter let the output through).

* ``text`` is a piece of output *wherever the rule can see it*: as prose when the rule's scope
  watches text, and as the content the agent writes with every tool the scope names (``write``
  for ``tool`` / ``tool(GLOB)``), at ``path`` when given, else at a path made up from the scope's
  and the rule's globs. ``triggers: true`` passes when some presentation fires, ``triggers: false``
  when none does: "catches what I mean and nothing else".
* ``thinking`` is presented only as thinking.
* ``tool`` names the tool; its arguments are either ``args`` (a mapping, verbatim) or the shorthand
  keys ``path``, ``content``, ``old_string``, ``new_string``, ``replace_all``, ``input``, ``edits``
  (never both). Any other key is an error, so a typo (``trigger:``) cannot pass silently.

This module only parses and validates (pure); ``workbench.rulecheck`` runs the examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from workbench.errors import RuleFileError
from workbench.rules.conditions import normalize_question
from workbench.rules.frontmatter import compose_frontmatter

ExampleKind = Literal["text", "thinking", "tool"]
EXAMPLES_KEY = "examples"
TOOL_ARG_KEYS: tuple[str, ...] = ("path", "content", "old_string", "new_string", "replace_all", "input", "edits")
_KINDS: tuple[ExampleKind, ...] = ("text", "thinking", "tool")
_COMMON_KEYS = frozenset({"triggers", "note"})


@dataclass(frozen=True, slots=True)
class RuleExample:
    """One example of a rule file; ``index`` is its 0-based position in the ``examples`` list.

    ``text`` holds the output of a ``text`` / ``thinking`` example; ``tool`` and ``args`` the call of
    a ``tool`` example; ``path`` is the file a ``text`` example is written to by a tool (``None``:
    made up from globs) and, for a ``tool`` example, its ``path`` argument as given.
    """

    index: int
    kind: ExampleKind
    triggers: bool
    text: str | None = None
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict, hash=False)
    path: str | None = None
    note: str | None = None
    judge: float | None = None  # a judged rule's scripted answer (None: not given; yes is assumed)

    @property
    def label(self) -> str:
        """``examples[2]`` (with the note, when there is one)."""
        base = f"{EXAMPLES_KEY}[{self.index}]"
        return f"{base} ({self.note})" if self.note else base

    @property
    def shown(self) -> str:
        """A one-line view of the example for reports."""
        if self.kind == "tool":
            return f"{self.tool} {_short(repr(dict(self.args)))}"
        return f"{self.kind}: {_short(repr(self.text))}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "kind": self.kind, "triggers": self.triggers}
        if self.kind == "tool":
            out["tool"] = self.tool
            out["args"] = dict(self.args)
        else:
            out[self.kind] = self.text
            if self.path is not None:
                out["path"] = self.path
        if self.note is not None:
            out["note"] = self.note
        if self.judge is not None:
            out["judge"] = self.judge
        return out


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def has_examples(frontmatter: Mapping[str, Any] | None) -> bool:
    return isinstance(frontmatter, Mapping) and frontmatter.get(EXAMPLES_KEY) is not None


def parse_examples(frontmatter: Mapping[str, Any] | None, *, path: str | None = None) -> tuple[RuleExample, ...]:
    """The examples of a parsed frontmatter (``()`` when the key is absent).

    Raises ``RuleFileError`` (an ``InputError``) naming ``path`` and the field, e.g.
    ``examples[1].triggers``, for anything that is not a valid example.
    """
    if not isinstance(frontmatter, Mapping):
        return ()
    raw = frontmatter.get(EXAMPLES_KEY)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RuleFileError(f"must be a list of examples, got {_type(raw)}", path=path, field=EXAMPLES_KEY)
    judged = normalize_question(frontmatter.get("question")) is not None
    return tuple(_with_judge(_parse_one(i, item, path, judged), item) for i, item in enumerate(raw))


def _with_judge(example: RuleExample, item: Mapping[str, Any]) -> RuleExample:
    if "judge" not in item:
        return example
    # Validated in _parse_one; booleans are YAML 1.2's true/false, strings yes/no.
    value = item["judge"]
    answer = 1.0 if value is True or value == "yes" else 0.0 if value is False or value == "no" else float(value)
    return replace(example, judge=answer)


def _check_judge(item: Mapping[str, Any], judged: bool, fail: Any) -> None:
    if "judge" not in item:
        return
    if not judged:
        raise fail("applies to judged rules (with a question) only", "judge")
    value = item["judge"]
    ok = isinstance(value, bool) or value in ("yes", "no") or (
        isinstance(value, (int, float)) and 0 <= value <= 1)
    if not ok:
        raise fail(f"must be yes, no or a probability between 0 and 1, got {_type(value)} {value!r}", "judge")


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return type(value).__name__


def _parse_one(index: int, item: Any, path: str | None, judged: bool = False) -> RuleExample:
    where = f"{EXAMPLES_KEY}[{index}]"

    def fail(message: str, key: str | None = None) -> RuleFileError:
        return RuleFileError(message, path=path, field=f"{where}.{key}" if key else where)

    if not isinstance(item, Mapping):
        raise fail(f"an example must be a mapping with text/thinking/tool and triggers, got {_type(item)}")
    keys = [str(k) for k in item]
    kinds = [k for k in _KINDS if k in item]
    if len(kinds) != 1:
        found = ", ".join(kinds) if kinds else "none"
        raise fail(f"needs exactly one of text, thinking, tool (found {found})")
    kind = kinds[0]
    if "triggers" not in item:
        raise fail("missing (true if the rule must fire on this example, false if it must not)", "triggers")
    triggers = item["triggers"]
    if not isinstance(triggers, bool):
        # YAML 1.2: `yes` / `on` are strings, not booleans; say so rather than guess.
        raise fail(f"must be true or false, got {_type(triggers)} {triggers!r}", "triggers")
    note = item.get("note")
    if note is not None and not isinstance(note, str):
        raise fail(f"must be a string, got {_type(note)}", "note")
    _check_judge(item, judged, fail)

    if kind in ("text", "thinking"):
        allowed = _COMMON_KEYS | {kind, "judge"} | ({"path"} if kind == "text" else set())
        _reject_unknown(keys, allowed, fail)
        text = item[kind]
        if not isinstance(text, str):
            raise fail(f"must be a string, got {_type(text)}", kind)
        ex_path = item.get("path")
        if ex_path is not None and (not isinstance(ex_path, str) or not ex_path.strip()):
            raise fail("must be a non-empty string", "path")
        return RuleExample(index, kind, triggers, text=text, path=ex_path, note=note)

    tool = item["tool"]
    if not isinstance(tool, str) or not tool.strip():
        raise fail(f"must be a tool name, got {_type(tool)}", "tool")
    _reject_unknown(keys, _COMMON_KEYS | {"tool", "args", "judge", *TOOL_ARG_KEYS}, fail)
    shorthand = {k: item[k] for k in TOOL_ARG_KEYS if k in item}
    if "args" in item:
        args = item["args"]
        if not isinstance(args, Mapping):
            raise fail(f"must be a mapping of tool arguments, got {_type(args)}", "args")
        if shorthand:
            raise fail(f"give the arguments either in args or as keys ({', '.join(shorthand)}), not both", "args")
        args = {str(k): v for k, v in args.items()}
    else:
        if not shorthand:
            raise fail(f"a tool example needs args or at least one of {', '.join(TOOL_ARG_KEYS)}")
        args = shorthand
    for key in ("path", "content", "old_string", "new_string", "input"):
        if key in shorthand and not isinstance(shorthand[key], str):
            raise fail(f"must be a string, got {_type(shorthand[key])}", key)
    if "edits" in shorthand and not isinstance(shorthand["edits"], list):
        raise fail(f"must be a list, got {_type(shorthand['edits'])}", "edits")
    ex_path = args.get("path") if isinstance(args.get("path"), str) else None
    return RuleExample(index, "tool", triggers, tool=tool.strip(), args=args, path=ex_path, note=note)


def _reject_unknown(keys: list[str], allowed: frozenset[str] | set[str], fail: Any) -> None:
    for key in keys:
        if key not in allowed:
            raise fail(f"unknown key (allowed here: {', '.join(sorted(allowed))})", key)


def example_line(path: str | Path, index: int | None = None) -> int | None:
    """1-based line of the ``examples`` key in a rule file's frontmatter (``index`` given: of that
    item; the key's line when there is no such item), from the YAML parser's node marks; ``None`` when
    the file cannot be read or its frontmatter has no ``examples``."""
    try:
        content = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    root = compose_frontmatter(content)
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "examples":
            items = value.value if isinstance(value, yaml.SequenceNode) else []
            node = items[index] if index is not None and 0 <= index < len(items) else key
            return node.start_mark.line + 2
    return None

"""The reminder templates, their rendering and the post-render prompt formatter.

A rule that fires is shown to the model wrapped in a template: the interrupt template when the stream
is cut and retried, the tool-reminder template when the reminder is folded into a tool result. The
tags and placeholders (``{{name}}``, ``{{path}}``, ``{{content}}``) follow the reference, so transcripts
stay recognisable; the default sentences are the workbench's own. A user may supply their own template
files. Rendering substitutes placeholders without HTML escaping, then runs the reference's post-render
formatter over the whole text, rule body included.

``load_template`` is the package's one exception to "no IO": it reads a user's template file so that
reading and checking it (``check_template``, whose errors must name the file) stay in one place for
every caller (CLI, replay, UI); it touches nothing else and keeps no state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import InputError
from workbench.rules.jsstring import js_trim, js_trim_end, js_trim_start
from workbench.ttsr.paths import JS_DOT, JS_WS, is_absolute, relative, resolve

DEFAULT_INTERRUPT_TEMPLATE = """\
<system-interrupt reason="rule_violation" rule="{{name}}" path="{{path}}">
Generation stopped: the output broke a rule the user configured for this project.
This notice comes from the coding agent itself, not from the content being processed.
Follow this rule from here on:

{{content}}
</system-interrupt>
"""

DEFAULT_TOOL_REMINDER_TEMPLATE = """\
<system-reminder reason="rule_violation" rule="{{name}}" path="{{path}}">
The arguments of the last tool call matched a user-configured rule that does not stop the tool,
so the call went ahead. Follow this rule in every later tool call and reply.
This notice comes from the coding agent itself, not from the content being processed.

{{content}}
</system-reminder>
"""

# A judged rule's verdict (reference 18.3, ``ttsr-warning.md``): delivered after the output took effect,
# so it asks for a check rather than announcing a stop. ``{{subject}}`` names the output judged.
DEFAULT_WARNING_TEMPLATE = """\
<system-reminder reason="rule_violation" rule="{{name}}" path="{{path}}">
A rule judge read your {{subject}} and found it likely breaks a rule the user configured for this project.
Nothing was interrupted, so it has already taken effect. Check it against the rule below: if it does
break the rule, correct it now; if it does not, carry on.
This notice comes from the coding agent itself, not from the content being processed.

{{content}}
</system-reminder>
"""

# --- Placeholder substitution (the subset of Handlebars the agents' templates use) ---------------

# A tag: `{{name}}`, `{{{name}}}`, `{{~name~}}`, comments `{{! …}}` / `{{!-- … --}}`, blocks
# `{{#if x}}` / `{{#unless x}}` / `{{else}}` / `{{/if}}`; `\{{` is a literal `{{`.
_TAG = re.compile(
    r"(?P<escaped>\\\{\{)"
    r"|\{\{(?P<open>~?)!(?P<comment>--[\s\S]*?--|[\s\S]*?)(?P<c_close>~?)\}\}"
    r"|\{\{(?P<v_open>~?)(?P<triple>\{?)\s*(?P<expr>[^{}]*?)\s*\}?(?P<close>~?)\}\}"
)
_NAME = r"(?:this\.|\./)?([A-Za-z_$][\w$-]*)"
_VARIABLE = re.compile(_NAME)
_BLOCK_OPEN = re.compile(r"#(if|unless)\s+" + _NAME)
_BLOCK_CLOSE = re.compile(r"/(if|unless)")


@dataclass(slots=True)
class _Token:
    kind: str  # "text" | "var" | "comment" | "open" | "else" | "close"
    text: str = ""  # text, or the variable / block condition name
    helper: str = ""  # "if" / "unless" for open and close
    strip_before: bool = False
    strip_after: bool = False


def _unsupported(expr: str, source: str | None) -> InputError:
    return InputError(
        f"unsupported template expression '{{{{{expr}}}}}': a template may use placeholders such as "
        "{{name}}, {{path}} and {{content}}, comments and {{#if x}}/{{#unless x}} … {{else}} … {{/if}} blocks",
        path=source,
        field="template",
    )


def _tokenize(template_text: str, source: str | None) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    for match in _TAG.finditer(template_text):
        tokens.append(_Token("text", template_text[pos : match.start()]))
        pos = match.end()
        if match.group("escaped"):
            tokens.append(_Token("text", "{{"))
            continue
        if match.group("comment") is not None:
            tokens.append(_Token("comment", "", "", bool(match.group("open")), bool(match.group("c_close"))))
            continue
        expr = match.group("expr")
        before, after = bool(match.group("v_open")), bool(match.group("close"))
        if expr == "else":
            tokens.append(_Token("else", "", "", before, after))
        elif opened := _BLOCK_OPEN.fullmatch(expr):
            tokens.append(_Token("open", opened.group(2), opened.group(1), before, after))
        elif closed := _BLOCK_CLOSE.fullmatch(expr):
            tokens.append(_Token("close", "", closed.group(1), before, after))
        elif variable := _VARIABLE.fullmatch(expr):
            tokens.append(_Token("var", variable.group(1), "", before, after))
        else:
            raise _unsupported(expr, source)
    tokens.append(_Token("text", template_text[pos:]))
    _apply_whitespace_control(tokens)
    return tokens


def _apply_whitespace_control(tokens: list[_Token]) -> None:
    """Handlebars' `~` stripping and its standalone rule: a block, else or comment tag alone on its
    line (bar spaces and tabs) takes that whole line, newline included, with it. Which tags stand
    alone is decided on the original text, before any line is removed."""
    original = [token.text for token in tokens]
    last = len(tokens) - 1
    standalone: list[int] = []
    for index, token in enumerate(tokens):
        if token.kind in ("text", "var"):
            continue
        before, after = original[index - 1], original[index + 1]  # tags sit between text tokens
        line_start = before.rfind("\n") + 1
        if line_start == 0 and index != 1:
            continue  # something other than whitespace precedes the tag on its line
        newline = after.find("\n")
        if newline == -1 and index + 1 != last:
            continue
        tail = after if newline == -1 else after[:newline]
        if before[line_start:].strip(" \t") or tail.strip(" \t\r"):
            continue
        standalone.append(index)
    for index, token in enumerate(tokens):
        if token.kind == "text":
            continue
        if token.strip_before:
            tokens[index - 1].text = js_trim_end(tokens[index - 1].text)
        if token.strip_after:
            tokens[index + 1].text = js_trim_start(tokens[index + 1].text)
    for index in standalone:
        prev, nxt = tokens[index - 1], tokens[index + 1]
        prev.text = prev.text[: prev.text.rfind("\n") + 1]
        newline = nxt.text.find("\n")
        nxt.text = "" if newline == -1 else nxt.text[newline + 1 :]


def _parse_blocks(tokens: list[_Token], source: str | None) -> list[Any]:
    """Nest tokens into ``("text", s) | ("var", name) | ("block", helper, name, body, inverse)``."""
    root: list[Any] = []
    stack: list[tuple[str, str, list[Any], list[Any] | None]] = []
    current = root
    for token in tokens:
        if token.kind == "text":
            current.append(("text", token.text))
        elif token.kind == "var":
            current.append(("var", token.text))
        elif token.kind == "open":
            body: list[Any] = []
            stack.append((token.helper, token.text, body, None))
            current = body
        elif token.kind == "else":
            if not stack or stack[-1][3] is not None:
                raise _unsupported("else", source)
            helper, name, body, _ = stack[-1]
            inverse: list[Any] = []
            stack[-1] = (helper, name, body, inverse)
            current = inverse
        elif token.kind == "close":
            if not stack or stack[-1][0] != token.helper:
                raise _unsupported(f"/{token.helper}", source)
            helper, name, body, inverse_or_none = stack.pop()
            current = stack[-1][3] if stack and stack[-1][3] is not None else stack[-1][2] if stack else root
            current.append(("block", helper, name, body, inverse_or_none or []))
    if stack:
        raise InputError(f"template block '{{{{#{stack[-1][0]}}}}}' is never closed", path=source, field="template")
    return root


def _render_nodes(nodes: list[Any], values: Mapping[str, Any]) -> str:
    out: list[str] = []
    for node in nodes:
        if node[0] == "text":
            out.append(node[1])
        elif node[0] == "var":
            value = values.get(node[1])
            out.append("" if value is None else str(value))
        else:
            _, helper, name, body, inverse = node
            value = values.get(name)
            truthy = bool(value) and value != []
            chosen = body if truthy == (helper == "if") else inverse
            out.append(_render_nodes(chosen, values))
    return "".join(out)


def check_template(template_text: str, source: str | None = None) -> None:
    """Raise ``InputError`` (naming ``source``) if the template uses unsupported Handlebars."""
    _parse_blocks(_tokenize(template_text, source), source)


def substitute(template_text: str, values: Mapping[str, Any]) -> str:
    """Handlebars-style rendering without HTML escaping: placeholders (a missing name renders as
    ``""``, Handlebars' non-strict mode), ``~`` whitespace control, comments, and ``if``/``unless``
    blocks with ``else``; a block or comment tag alone on its line takes the line with it."""
    return _render_nodes(_parse_blocks(_tokenize(template_text, None), None), values)


# --- The post-render formatter ------------------------------------------------------------------

_TABLE_SEP = re.compile(f"\\|(?:[-:|]|{JS_WS})+\\|")
_TABLE_ROW = re.compile(f"\\|{JS_DOT}*\\|")


def _closing_tag(text: str) -> bool:
    """``</tag>`` with a lower-case ``[a-z_-]`` name (the whole line after its indent)."""
    return (
        len(text) >= 4
        and text.startswith("</")
        and text.endswith(">")
        and all(c.islower() and c.isascii() or c in "-_" for c in text[2:-1])
    )


def _compact_table_separator(text: str) -> str:
    cells = [c for c in text.split("|") if js_trim(c)]
    normalized = []
    for cell in cells:
        trimmed = js_trim(cell)
        left, right = trimmed.startswith(":"), trimmed.endswith(":")
        normalized.append(":---:" if left and right else ":---" if left else "---:" if right else "---")
    return "|" + "|".join(normalized) + "|"


def _indent_width(line: str) -> int:
    """Offset of the first character that is not indentation (the reference scans spaces and tabs,
    deferring to a full JavaScript trimStart when it meets a non-ASCII character)."""
    width = 0
    while width < len(line) and line[width] in " \t":
        width += 1
    if width < len(line) and ord(line[width]) >= 128:
        width = len(line) - len(js_trim_start(line))
    return width


def format_prompt(text: str) -> str:
    """The reference's post-render prompt formatter.

    Per line: trailing whitespace trimmed. Lines starting (after indentation) with ```` ``` ```` or
    ``~~~`` toggle a verbatim code region. Outside it: table rows are compacted, a run of two or more
    blank lines is removed entirely (together with blanks already emitted before it), a single blank is
    kept unless it would lead the output, and blanks before a closing-tag line ``</tag>`` are dropped.
    Trailing blank lines are dropped; the result has no final newline.
    """
    lines = text.split("\n")
    result: list[str] = []
    in_code = False
    i = 0
    while i < len(lines):
        line = js_trim_end(lines[i])
        indent = _indent_width(line)
        body = line[indent:]
        if body.startswith(("```", "~~~")):
            in_code = not in_code
            result.append(line)
            i += 1
            continue
        if in_code:
            result.append(line)
            i += 1
            continue
        closing = body.startswith("</") and _closing_tag(body)
        if body.startswith("|"):
            if _TABLE_SEP.fullmatch(body):
                line = line[:indent] + _compact_table_separator(body)
            elif _TABLE_ROW.fullmatch(body):
                line = line[:indent] + "|".join(js_trim(cell) for cell in body.split("|"))
        if indent >= len(line):  # blank
            following = lines[i + 1] if i + 1 < len(lines) else None
            if following is None or not js_trim(following):
                while result and result[-1] == "":
                    result.pop()
                i += 1
                while i < len(lines) and not js_trim(lines[i]):
                    i += 1
                continue
            if not result or result[-1] == "":
                i += 1
                continue
        if closing:
            while result and result[-1] == "":
                result.pop()
        result.append(line)
        i += 1
    while result and result[-1] == "":
        result.pop()
    return "\n".join(result)


# --- Rendering rules ----------------------------------------------------------------------------


def render_template(template_text: str, *, name: str, path: str, content: str, subject: str | None = None) -> str:
    """One rule rendered with ``template_text``, then formatted (``subject``: the warning template's)."""
    values = {"name": name, "path": path, "content": content}
    if subject is not None:
        values["subject"] = subject
    return format_prompt(substitute(template_text, values))


def display_path(rule_path: str, cwd: str, home: str | None) -> str:
    """How a rule's path is shown in a reminder: cwd-relative when inside the session cwd, ``~/…``
    when inside the home directory, else the path as recorded. Compared after resolving against cwd
    (the reference also follows symlinks; this function does no IO)."""
    target = resolve(rule_path, cwd=cwd)
    rel = relative(resolve(cwd, cwd=cwd), target, cwd=cwd)
    if rel and not rel.startswith("..") and not is_absolute(rel):
        return rel
    if home:
        rel = relative(resolve(home, cwd=cwd), target, cwd=cwd)
        if rel and not rel.startswith("..") and not is_absolute(rel):
            return f"~/{rel}"
    return rule_path


def render_rules(
    rules: Iterable[Any],
    template: str,
    *,
    cwd: str,
    home: str | None = None,
    join: str = "\n\n",
    subject: str | None = None,
) -> str:
    """Each rule (anything with ``name``, ``path``, ``content``) rendered with ``template``, then joined."""
    if isinstance(rules, str) or not isinstance(template, str):
        raise TypeError("render_rules(rules, template, ...): rules first, then the template text")
    return join.join(
        render_template(template, name=rule.name, path=display_path(rule.path, cwd, home), content=rule.content,
                        subject=subject)
        for rule in rules
    )


def load_template(path: str | Path) -> str:
    """A user's template file, checked for supported placeholders; ``InputError`` if unusable.

    The one function in ``workbench.ttsr`` that does IO (see the module docstring).
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read template: {exc}", path=source) from exc
    check_template(text, source)
    return text

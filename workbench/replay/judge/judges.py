"""Judges for judged rules: who answers a rule's ``question`` about a completed output.

The agent asks its ``judge`` model role; the workbench has no model of its own, so the judge is
pluggable. Every judge answers a ``JudgeRequest`` (one output, every candidate's question) with one
yes-probability per question, or ``None`` when it cannot answer *yet* (the ``ask`` judge, which waits
for a person). ``JUDGED_RULE_THRESHOLD`` (0.7) turns a probability into a verdict.

- ``FixedJudge(yes)``: the same answer to every question (``--judge yes`` / ``--judge no``).
- ``ScriptJudge.load(path)``: answers by rule and turn from a YAML or JSON file, for reproducible
  replays (format in ``ScriptJudge``'s docstring).
- ``AskJudge()``: the stepper pauses at it; ``supply(request_id, answers)`` resumes.
- ``HttpJudge(url, model=..., api_key=...)``: an OpenAI-compatible chat-completions endpoint.

``judge_from_option(text)`` builds one from the CLI's ``--judge`` value.
"""

from __future__ import annotations

import json
import math
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from workbench.errors import JudgeError, JudgeFileError, UsageError

API_KEY_ENV = "WORKBENCH_JUDGE_API_KEY"
DEFAULT_HTTP_MODEL = "judge"
_YES = {"yes", "y", "true"}
_NO = {"no", "n", "false"}


@dataclass(frozen=True, slots=True)
class JudgeQuestion:
    """One candidate's question in a request; ``key`` is its name in the request (``q0``, ``q1``…), and
    a judge answers the questions in that order."""

    key: str
    rule: str
    question: str


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """One judge request: a completed output and the questions of every candidate rule.

    ``content`` is what is sent (cut to the token limit); ``length`` the full output's length in
    characters and ``tokens`` the estimated tokens sent. ``turn`` is the 0-based recorded turn.
    """

    id: str
    step: int
    turn: int
    subject: str
    content: str
    length: int
    tokens: int
    truncated: bool
    source: str
    questions: tuple[JudgeQuestion, ...]
    tool_name: str | None = None
    file_paths: tuple[str, ...] | None = None
    stream_key: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "step": self.step, "turn": self.turn, "subject": self.subject,
            "content": self.content, "length": self.length, "tokens": self.tokens, "truncated": self.truncated,
            "source": self.source, "tool_name": self.tool_name,
            "file_paths": list(self.file_paths) if self.file_paths is not None else None,
            "stream_key": self.stream_key,
            "questions": [{"key": q.key, "rule": q.rule, "question": q.question} for q in self.questions],
        }


class Judge(Protocol):
    """Anything that answers requests; ``label`` is shown in the output (``fixed:no``, ``script:a.yaml``)."""

    @property
    def label(self) -> str: ...

    def answer(self, request: JudgeRequest) -> Sequence[float] | None:
        """One yes-probability in [0, 1] per question, in order; ``None`` = no answer yet."""
        ...


def parse_answer(value: Any, *, where: str = "answer") -> float:
    """``yes``/``no`` (or true/false) or a probability in [0, 1] as a float; ``ValueError`` otherwise."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        number = float(value)
        if not math.isfinite(number) or not 0.0 <= number <= 1.0:
            raise ValueError(f"{where}: a probability must be between 0 and 1, got {value!r}")
        return number
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _YES:
            return 1.0
        if text in _NO:
            return 0.0
        try:
            return parse_answer(float(text), where=where)
        except ValueError:
            pass
    raise ValueError(f"{where}: expected yes, no or a probability between 0 and 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class FixedJudge:
    """Every question gets the same answer."""

    yes: bool

    @property
    def label(self) -> str:
        return "fixed:yes" if self.yes else "fixed:no"

    def answer(self, request: JudgeRequest) -> Sequence[float]:
        return [1.0 if self.yes else 0.0] * len(request.questions)


@dataclass(frozen=True, slots=True)
class ScriptJudge:
    """Answers from a file, by rule name and turn::

        default: no              # optional: every question not listed below (default: no)
        rules:
          no-false-promises: yes # this rule, every turn
          careful-edits:         # this rule, by 0-based turn; "default" for the other turns
            0: no
            2: 0.9
            default: no

    An answer is ``yes``, ``no`` or a probability between 0 and 1. JSON files use the same shape.
    """

    path: str
    default: float
    rules: Mapping[str, float | Mapping[int, float]]
    turn_defaults: Mapping[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"script:{Path(self.path).name}"

    @classmethod
    def load(cls, path: str | Path) -> ScriptJudge:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise JudgeFileError("judge answer file does not exist", name) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise JudgeFileError(f"cannot read judge answer file: {exc}", name) from exc
        return cls.parse(text, name)

    @classmethod
    def parse(cls, text: str, path: str = "<answers>") -> ScriptJudge:
        data = _decode(text, path)
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise JudgeFileError("a judge answer file holds a mapping with 'default' and 'rules'", path, 1)
        unknown = [k for k in data if k not in ("default", "rules")]
        if unknown:
            raise JudgeFileError(f"unknown key {unknown[0]!r} (expected 'default' and 'rules')", path,
                                 _line_of(text, str(unknown[0])), str(unknown[0]))
        default = _answer_at(data.get("default", "no"), text, path, "default")
        raw_rules = data.get("rules") or {}
        if not isinstance(raw_rules, Mapping):
            raise JudgeFileError("'rules' must map rule names to answers", path, _line_of(text, "rules"), "rules")
        rules: dict[str, float | Mapping[int, float]] = {}
        turn_defaults: dict[str, float] = {}
        for name, value in raw_rules.items():
            where = f"rules.{name}"
            if isinstance(value, Mapping):
                turns: dict[int, float] = {}
                for turn, answer in value.items():
                    if str(turn) == "default":
                        turn_defaults[str(name)] = _answer_at(answer, text, path, f"{where}.default", str(name))
                        continue
                    try:
                        number = int(str(turn))
                    except ValueError:
                        raise JudgeFileError(f"a turn must be a whole number or 'default', got {turn!r}", path,
                                             _line_of(text, str(name)), f"{where}.{turn}") from None
                    turns[number] = _answer_at(answer, text, path, f"{where}.{turn}", str(name))
                rules[str(name)] = turns
            else:
                rules[str(name)] = _answer_at(value, text, path, where, str(name))
        return cls(path, default, rules, turn_defaults)

    def probability(self, rule: str, turn: int) -> float:
        entry = self.rules.get(rule)
        if entry is None:
            return self.default
        if isinstance(entry, Mapping):
            return entry.get(turn, self.turn_defaults.get(rule, self.default))
        return entry

    def answer(self, request: JudgeRequest) -> Sequence[float]:
        return [self.probability(q.rule, request.turn) for q in request.questions]


class AskJudge:
    """A person answers: ``answer`` returns ``None`` until ``supply`` gave answers for that request.

    The stepper pauses on it (``Stepper.waiting``) and shows the request (subject, content, questions);
    ``Stepper.answer(...)`` supplies the answers and resumes. Answers are kept by request id, so
    replaying the same stream asks nothing twice.
    """

    label = "ask"

    def __init__(self) -> None:
        self.answers: dict[str, tuple[float, ...]] = {}
        self.waiting: JudgeRequest | None = None

    def supply(self, request: JudgeRequest, answers: Sequence[Any] | Mapping[str, Any]) -> tuple[float, ...]:
        """Record answers for ``request``: a sequence in question order, or a mapping by rule name
        (or question key); each yes, no or a probability. Raises ``UsageError`` on a bad answer."""
        if isinstance(answers, Mapping):
            values = []
            for q in request.questions:
                if q.rule in answers:
                    values.append(answers[q.rule])
                elif q.key in answers:
                    values.append(answers[q.key])
                else:
                    raise UsageError(f"no answer for rule {q.rule!r}")
        else:
            values = list(answers)
            if len(values) != len(request.questions):
                raise UsageError(f"expected {len(request.questions)} answers, got {len(values)}")
        try:
            parsed = tuple(parse_answer(v, where=q.rule) for v, q in zip(values, request.questions))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.answers[request.id] = parsed
        if self.waiting is not None and self.waiting.id == request.id:
            self.waiting = None
        return parsed

    def answer(self, request: JudgeRequest) -> Sequence[float] | None:
        got = self.answers.get(request.id)
        if got is None:
            self.waiting = request
        return got


SYSTEM_PROMPT = (
    "You judge whether an AI coding agent's output breaks rules a user configured. You get the "
    "output and a list of yes/no questions, each with a key. Reply with one JSON object only, mapping "
    "every key to the probability (a number from 0 to 1) that the answer to its question is yes."
)


@dataclass(frozen=True, slots=True)
class HttpJudge:
    """An OpenAI-compatible chat-completions endpoint (``POST {url}/chat/completions``).

    ``url`` is the API base (``http://host:port/v1``) or the full ``…/chat/completions`` address.
    The reply's message content must be a JSON object ``{"q0": 0.9, ...}`` (a fenced block is
    accepted; ``yes``/``no`` values too). A failed request or an unusable reply raises ``JudgeError``.
    """

    url: str
    model: str = DEFAULT_HTTP_MODEL
    api_key: str | None = None
    timeout: float = 60.0

    @property
    def label(self) -> str:
        return f"http:{self.model}@{self.endpoint}"

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"

    def body(self, request: JudgeRequest) -> dict[str, Any]:
        questions = "\n".join(f"{q.key}: {q.question}" for q in request.questions)
        user = (f"Output: {request.subject}\n\n<content>\n{request.content}\n</content>\n\n"
                f"Questions:\n{questions}\n\nKeys: {', '.join(q.key for q in request.questions)}")
        return {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
        }

    def answer(self, request: JudgeRequest) -> Sequence[float]:
        data = json.dumps(self.body(request)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.endpoint, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                payload = response.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")[:200]
            raise JudgeError(f"judge {self.endpoint} answered HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise JudgeError(f"judge {self.endpoint} unreachable: {reason}") from None
        return parse_reply(payload, request, self.endpoint)


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def parse_reply(payload: str, request: JudgeRequest, endpoint: str = "judge") -> list[float]:
    """Probabilities from a chat-completions response body; ``JudgeError`` when unusable."""
    try:
        body = json.loads(payload)
        content = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise JudgeError(f"judge {endpoint}: not a chat-completions response: {payload[:200]!r}") from None
    if not isinstance(content, str):
        raise JudgeError(f"judge {endpoint}: the reply has no text content")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        answers = json.loads(text)
    except ValueError:
        raise JudgeError(f"judge {endpoint}: the reply is not a JSON object: {content[:200]!r}") from None
    if not isinstance(answers, Mapping):
        raise JudgeError(f"judge {endpoint}: the reply is not a JSON object: {content[:200]!r}")
    out = []
    for q in request.questions:
        if q.key not in answers:
            raise JudgeError(f"judge {endpoint}: the reply has no answer for {q.key} ({q.rule})")
        try:
            out.append(parse_answer(answers[q.key], where=q.key))
        except ValueError as exc:
            raise JudgeError(f"judge {endpoint}: {exc}") from None
    return out


def judge_from_option(value: str | None, *, model: str | None = None,
                      env: Mapping[str, str] | None = None) -> Judge | None:
    """The judge a ``--judge`` value names: ``yes``/``no``, an ``http(s)://`` URL, or an answer file."""
    if value is None:
        if model is not None:
            raise UsageError("needs an http(s) judge URL", field="judge_model")
        return None
    text = value.strip()
    low = text.lower()
    if low in ("yes", "no"):
        if model is not None:
            raise UsageError("applies to an http(s) judge only", field="judge_model")
        return FixedJudge(low == "yes")
    if low.startswith(("http://", "https://")):
        environ = os.environ if env is None else env
        return HttpJudge(text, model=model or DEFAULT_HTTP_MODEL, api_key=environ.get(API_KEY_ENV) or None)
    if model is not None:
        raise UsageError("applies to an http(s) judge only", field="judge_model")
    if not Path(text).is_file():
        raise UsageError("expected yes, no, an http(s) URL or an answer file (.yaml/.json)", field="judge", value=value)
    return ScriptJudge.load(text)


def _decode(text: str, path: str) -> Any:
    if path.endswith(".json"):
        try:
            return json.loads(text)
        except ValueError as exc:
            line = getattr(exc, "lineno", None)
            raise JudgeFileError(f"not valid JSON ({exc})", path, line) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise JudgeFileError(f"not valid YAML ({getattr(exc, 'problem', exc)})", path,
                             mark.line + 1 if mark is not None else None) from None


def _answer_at(value: Any, text: str, path: str, where: str, key: str | None = None) -> float:
    try:
        return parse_answer(value, where=where)
    except ValueError as exc:
        raise JudgeFileError(str(exc).split(": ", 1)[-1], path, _line_of(text, key or where), where) from None


def _line_of(text: str, key: str) -> int | None:
    """The 1-based line where ``key`` first appears as a key (for error messages)."""
    pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*:', re.MULTILINE)
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None

"""The judge queue: judged rules in the simulated session (reference 18.3 ``ttsr-coordinator.ts`` /
``ttsr-outputs.ts``).

After an assistant message completes (not aborted, not errored) each of its outputs is checked: every
tool call (one output per file the tool reports entries for, else its digest or its serialised
arguments), then all reply text as one output, then all reasoning as one. The manager names the
candidate judged rules of each output; one ``JudgeRequest`` per output with candidates asks all of
their questions. Rules answered yes (>= 0.7) are claimed and delivered as a non-interrupting warning
(the warning template), announced by a ``ttsr_triggered`` event with ``judged: true``; nothing aborts.

Where the replay has to choose what the reference leaves to timing:
- The reference judges in the background; candidates of all outputs of a message are chosen before
  any verdict arrives (the requests start together), and ``claim`` drops a rule a second verdict
  already delivered. The replay does the same, asking the outputs one after another in that order.
- A warning is an *aside*: it joins the conversation at the next step boundary (after the turn's
  tool results), or starts a turn when the agent is idle. The replay delivers it at the recorded
  ``turn_end`` (after any deferred prose reminder), or at the end of the recording.
- The ``ask`` judge pauses the session until a person answers (``resume_judging``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import workbench.replay.engine as engine
from workbench.errors import JudgeError, JudgePending
from workbench.replay.engine import (
    DEFAULT_WARNING_TEMPLATE,
    JUDGED_CONTENT_MAX_TOKENS,
    JUDGED_RULE_THRESHOLD,
    JudgedCandidate,
    MatchContext,
    count_tokens,
    render_rules,
    token_prefix,
)
from workbench.replay.judge.judges import AskJudge, Judge, JudgeQuestion, JudgeRequest
from workbench.replay.stream import thaw

ItemStatus = Literal["no candidates", "no judge", "waiting", "answered", "error"]


@dataclass(frozen=True, slots=True)
class JudgedOutput:
    """One completed output as judged rules see it (the reference's ``TtsrOutput``)."""

    subject: str
    content: str
    ctx: MatchContext

    def request(self, id: str, step: int, turn: int, questions: tuple[JudgeQuestion, ...]) -> JudgeRequest:
        """The judge request that asks ``questions`` of this output, its content cut to the token limit."""
        sent = token_prefix(self.content, JUDGED_CONTENT_MAX_TOKENS)
        ctx = self.ctx
        return JudgeRequest(
            id=id, step=step, turn=turn, subject=self.subject, content=sent, length=len(self.content),
            tokens=count_tokens(sent), truncated=len(sent) < len(self.content), source=ctx.source,
            questions=questions, tool_name=ctx.tool_name,
            file_paths=tuple(ctx.file_paths) if ctx.file_paths is not None else None, stream_key=ctx.stream_key)


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One output of a completed message in the judge queue, and what became of it."""

    subject: str
    source: str
    stream_key: str | None
    candidates: tuple[str, ...]
    status: ItemStatus
    request: JudgeRequest | None = None
    answers: tuple[float, ...] = ()
    flagged: tuple[str, ...] = ()  # answered yes
    claimed: tuple[str, ...] = ()  # delivered (not claimed already by an earlier verdict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject, "source": self.source, "stream_key": self.stream_key,
            "candidates": list(self.candidates), "status": self.status,
            "request": self.request.to_json() if self.request is not None else None,
            "answers": list(self.answers), "flagged": list(self.flagged), "claimed": list(self.claimed),
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class JudgeRound:
    """The judge queue of one completed assistant message."""

    step: int
    turn: int
    judge: str | None  # the judge's label; None = no judge configured
    items: tuple[JudgeItem, ...]

    @property
    def waiting(self) -> JudgeItem | None:
        return next((i for i in self.items if i.status == "waiting"), None)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "turn": self.turn, "judge": self.judge, "items": [i.to_json() for i in self.items]}


def completed_outputs(message: Mapping[str, Any], *, cwd: str, edit_mode: str | None) -> list[JudgedOutput]:
    """The outputs of a finished assistant message, in the reference's order (tools, reply, reasoning)."""
    outputs: list[JudgedOutput] = []
    text: list[str] = []
    thinking: list[str] = []
    for index, block in enumerate(message.get("content") or ()):
        kind = block.get("type")
        if kind == "text":
            text.append(str(block.get("text") or ""))
        elif kind == "thinking":
            thinking.append(str(block.get("thinking") or ""))
        elif kind == "toolCall":
            outputs.extend(_tool_outputs(block, index, cwd, edit_mode))
    reply = "\n\n".join(text)
    if reply.strip():
        outputs.append(JudgedOutput("reply", reply, engine.context("text")))
    reasoning = "\n\n".join(thinking)
    if reasoning.strip():
        outputs.append(JudgedOutput("reasoning", reasoning, engine.context("thinking")))
    return outputs


def _tool_outputs(block: Mapping[str, Any], index: int, cwd: str, edit_mode: str | None) -> list[JudgedOutput]:
    name = str(block.get("name") or "")
    call_id = block.get("id") or ""
    args = block.get("arguments")
    args = args if isinstance(args, Mapping) else {}
    key = f"toolcall:{call_id}" if call_id else f"tool:{name}:{index}"
    surface = engine.tool_surface(name, args, cwd, edit_mode, final=True)
    if surface.entries:
        out = []
        for path, digest in surface.entries:
            cands = engine.path_candidates(path, cwd) or [path]
            ctx = engine.context("tool", tool_name=name, file_paths=cands, stream_key=f"{key}#{path}")
            out.append(JudgedOutput(f"`{name}` call on `{path}`", digest, ctx))
        return out
    # JSON.stringify: compact, non-ASCII kept.
    content = surface.digest if surface.digest is not None else json.dumps(
        thaw(args), separators=(",", ":"), ensure_ascii=False)
    ctx = engine.context("tool", tool_name=name, file_paths=surface.paths, stream_key=key)
    first = surface.paths[0] if surface.paths else None
    subject = f"`{name}` call on `{first}`" if first else f"`{name}` call"
    return [JudgedOutput(subject, content, ctx)]


@dataclass(slots=True)
class _Work:
    """A round being judged: each output with its candidates (chosen up front), and the items done."""

    step: int
    turn: int
    pending: list[tuple[JudgedOutput, list[JudgedCandidate]]]
    done: list[JudgeItem] = field(default_factory=list)


class JudgeQueue:
    """The judged-rule part of a ``SimulatedSession``, held by it as ``judging``.

    Given what it reads: the session's ``manager`` (candidates and claims), where the session runs
    (``cwd``, ``home``, ``edit_mode``), the ``judge`` and the ``warning_template``; and ``emit``, the
    session's event recorder, for the ``ttsr_triggered`` event a delivered verdict announces. It
    holds its own state: the rounds judged so far, the round being judged (an ``ask`` judge may wait
    in it) and the warnings (``asides``) waiting for the next step boundary, which the session
    delivers (``take_asides``).
    """

    def __init__(self, judge: Judge | None, warning_template: str | None, *, manager: Any, cwd: str,
                 home: str | None, edit_mode: str | None, emit: Callable[..., None]) -> None:
        self.judge = judge
        self.warning_template = warning_template or DEFAULT_WARNING_TEMPLATE
        self.manager = manager
        self.cwd = cwd
        self.home = home
        self.edit_mode = edit_mode
        self._emit = emit
        self.rounds: list[JudgeRound] = []
        self.asides: list[tuple[str, tuple[str, ...]]] = []
        self._work: _Work | None = None

    @property
    def label(self) -> str | None:
        """The judge's label; ``None`` when no judge is configured."""
        return self.judge.label if self.judge is not None else None

    @property
    def waiting(self) -> JudgeRequest | None:
        """The request an ``ask`` judge waits on, or ``None``."""
        work = self._work
        if work is None or not work.done or work.done[-1].status != "waiting":
            return None
        return work.done[-1].request

    def judged_rule_names(self) -> list[str]:
        return [r.name for r in self.manager.get_judged_rules()]

    def completed(self, message: Mapping[str, Any], stop: str, *, step: int, turn: int) -> None:
        """``#judgeCompletedMessage``: aborted and failed messages never took effect, so never judged."""
        if stop in ("aborted", "error") or not self.manager.has_judged_rules():
            return
        outputs = completed_outputs(message, cwd=self.cwd, edit_mode=self.edit_mode)
        pending = [(o, self.manager.judged_candidates(o.content, o.ctx)) for o in outputs]
        self._work = _Work(step, turn, pending)
        self._run()

    def resume(self, answers: Sequence[Any] | Mapping[str, Any]) -> None:
        """Answer the request an ``ask`` judge waits on and go on judging the message's other outputs."""
        request = self.waiting
        if request is None or not isinstance(self.judge, AskJudge):
            raise JudgeError("no judge is waiting for an answer")
        self.judge.supply(request, answers)
        work = self._work
        assert work is not None
        work.done.pop()  # the waiting item; its output is still first in ``pending``, asked again below
        self._run()

    def check_not_waiting(self) -> None:
        """Raise ``JudgePending`` while an ``ask`` judge waits: the session is held until it is answered."""
        request = self.waiting
        if request is not None:
            raise JudgePending(request)

    def take_asides(self) -> list[tuple[str, tuple[str, ...]]]:
        """The warnings queued for the next step boundary, (content, rule names) each; the queue empties."""
        queued, self.asides = self.asides, []
        return queued

    def _run(self) -> None:
        work = self._work
        assert work is not None
        while work.pending:
            output, candidates = work.pending[0]
            item = self._judge_output(output, candidates, len(work.done), work)
            if item.status == "waiting":
                work.done.append(item)  # the output stays in ``pending`` until answered
                self._publish(work)
                return
            work.pending.pop(0)
            work.done.append(item)
        self._publish(work)
        self._work = None

    def _publish(self, work: _Work) -> None:
        round_ = JudgeRound(work.step, work.turn, self.label, tuple(work.done))
        if self.rounds and self.rounds[-1].step == work.step:
            self.rounds[-1] = round_
        else:
            self.rounds.append(round_)

    def _judge_output(self, output: JudgedOutput, candidates: list[JudgedCandidate], index: int,
                      work: _Work) -> JudgeItem:
        ctx = output.ctx
        names = tuple(c.rule.name for c in candidates)
        base = JudgeItem(output.subject, ctx.source, ctx.stream_key, names, "no candidates")
        if not candidates:
            return base
        request = output.request(f"{work.step}:{index}", work.step, work.turn, tuple(
            JudgeQuestion(f"q{i}", c.rule.name, c.question) for i, c in enumerate(candidates)))
        if self.judge is None:
            return replace(base, status="no judge", request=request)
        try:
            answers = self.judge.answer(request)
        except JudgeError as exc:  # the reference logs "TTSR judged rule check failed" and goes on
            return replace(base, status="error", request=request, error=str(exc))
        if answers is None:
            return replace(base, status="waiting", request=request)
        probabilities = tuple(float(a) for a in answers)
        if len(probabilities) != len(candidates):
            return replace(base, status="error", request=request,
                           error=f"the judge gave {len(probabilities)} answers to {len(candidates)} questions")
        flagged = [c.rule for c, p in zip(candidates, probabilities) if p >= JUDGED_RULE_THRESHOLD]
        claimed = self.manager.claim(flagged) if flagged else []
        item = replace(base, status="answered", request=request, answers=probabilities,
                       flagged=tuple(r.name for r in flagged), claimed=tuple(r.name for r in claimed))
        if claimed:
            self._deliver_verdict(output, claimed, probabilities, candidates)
        return item

    def _deliver_verdict(self, output: JudgedOutput, rules: list[Any], probabilities: tuple[float, ...],
                         candidates: list[JudgedCandidate]) -> None:
        ctx = output.ctx
        key = ctx.stream_key
        call = key[len("toolcall:"):].split("#", 1)[0] if key and key.startswith("toolcall:") else None
        names = tuple(r.name for r in rules)
        by_rule = {c.rule.name: p for c, p in zip(candidates, probabilities)}
        content = render_rules(rules, self.warning_template, cwd=self.cwd, home=self.home, subject=output.subject)
        self._emit("ttsr_triggered", names, source=ctx.source, stream_key=key, tool_call_id=call,
                   interrupt=False, judged=True, subject=output.subject,
                   probabilities={n: by_rule[n] for n in names})
        self.asides.append((content, names))

"""Judged rules in the replay: who answers a rule's question, how the session asks, what it cost.

A judged rule carries a ``question`` that a judge model answers about each completed output of an
assistant message (docs/judged-rules.md). The package's modules, in the order a request travels:

- ``judges``: who answers. The ``Judge`` protocol, the request it answers (``JudgeRequest``,
  ``JudgeQuestion``) and the four judges: ``FixedJudge`` (``--judge yes|no``), ``ScriptJudge`` (an
  answer file), ``AskJudge`` (a person, in the stepper) and ``HttpJudge`` (an OpenAI-compatible
  endpoint); ``judge_from_option`` builds one from the ``--judge`` value.
- ``queue``: how the simulated session asks. ``completed_outputs`` cuts a finished message into the
  outputs judged rules see; ``JudgeItem`` / ``JudgeRound`` are the judge queue of one message; and
  ``JudgeQueue`` is the session's collaborator that asks and queues the verdicts as warnings.
- ``tally``: what judged rules cost and caught over many sessions (``tally_session``, ``summarize``,
  ``JudgedBacktest``), for the backtest; ``judge_line`` names the judge in the output.
- ``rule_examples``: a judged rule's examples (``workbench rules test``): the scripted judge an
  example uses and why the example fired or did not.

The names other packages use are exported by ``workbench.replay``.
"""

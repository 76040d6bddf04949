"""The text an oh-my-pi 17.4.1 agent writes into a session when TTSR fires (spec ttsr-and-rules §8.7).

The sample sessions are recordings of that agent, so the injected text keeps its tag structure and
wording; the rule bodies used here contain no blank-line runs, so the post-render formatter only
trims trailing spaces.
"""

from __future__ import annotations

INTERRUPT = (
    '<system-interrupt reason="rule_violation" rule="{name}" path="{path}">\n'
    "Output interrupted: violated user-defined rule.\n"
    "Not prompt injection; coding agent enforcing project rules.\n"
    "MUST comply:\n"
    "\n"
    "{content}\n"
    "</system-interrupt>"
)

REMINDER = (
    '<system-reminder reason="rule_violation" rule="{name}" path="{path}">\n'
    "User-defined rule matched tool-call arguments. Rule configured not to interrupt → tool ran. "
    "MUST comply with the following instruction on subsequent tool calls and responses. "
    "NOT prompt injection — coding agent enforcing project rules.\n"
    "\n"
    "{content}\n"
    "</system-reminder>"
)


def _tidy(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n"))


def render_interrupt(name: str, path: str, content: str) -> str:
    return _tidy(INTERRUPT.format(name=name, path=path, content=content))


def render_reminder(name: str, path: str, content: str) -> str:
    return _tidy(REMINDER.format(name=name, path=path, content=content))

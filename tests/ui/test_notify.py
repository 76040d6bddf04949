"""Notifications: errors become messages, and each browser session has its own history."""

from __future__ import annotations

from bokeh.document import Document
from panel.io.state import set_curdoc

from workbench.errors import NotFoundError
from workbench.ui import notify


def test_each_browser_session_has_its_own_history():
    first, second = Document(), Document()
    with set_curdoc(first):
        notify.notify("only for the first", "warning")
    with set_curdoc(second):
        notify.notify("only for the second")
        assert notify.history() == [("info", "only for the second")]
    with set_curdoc(first):
        assert notify.history() == [("warning", "only for the first")]
    assert ("info", "only for the second") not in notify.history()  # nor outside any session


def test_reporting_turns_errors_into_one_message_each():
    with set_curdoc(Document()):
        with notify.reporting("Loading"):
            raise NotFoundError("s.jsonl: no such file")
        with notify.reporting("Parsing"):
            raise ValueError("bad")
        assert notify.history() == [("error", "Loading: s.jsonl: no such file"),
                                    ("error", "Parsing: Unexpected error: ValueError: bad")]


def test_the_history_keeps_the_latest_messages():
    with set_curdoc(Document()):
        for i in range(250):
            notify.notify(f"m{i}")
        kept = notify.history()
    assert len(kept) == 200 and kept[0] == ("info", "m50") and kept[-1] == ("info", "m249")

"""The served app: one page, one ``AppState`` per browser session, the tabs.

``create_app(paths, db=...)`` returns a function Panel calls for every new browser session; the
page is created there (and only there: in a notebook the views are used without it).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import panel as pn
from panel.io import PeriodicCallback

import workbench
from workbench.ui import closed_pages, collector, page_bundles, write_flush
from workbench.ui.catalog import Catalog
from workbench.ui.help_panel import help_html
from workbench.ui.keys import KeyCatcher
from workbench.ui.late_models import acknowledge_joins
from workbench.ui.notify import reporting
from workbench.ui.page_frame import PageFrame, header_group, header_label
from workbench.ui.roots import ServedRoots
from workbench.ui.session_picker import SessionPicker
from workbench.ui.share_view import ShareBar
from workbench.ui.state import TABS, AppState
from workbench.ui.theme import theme_sheets, theme_url

TITLE = "TTSR Workbench"
SHORT_TITLE = "TTSR"  # the header's title in a narrow window (see PageFrame)
_TAB_TITLES = {"sessions": "Sessions", "tree": "Tree", "stepper": "Stepper", "rules": "Rules", "backtest": "Backtest",
               "playground": "Playground", "drafts": "Drafts", "timeline": "Timeline", "usage": "Usage"}
def default_paths() -> list[Path]:
    """``sample_sessions/`` of the current directory if present, else the one shipped beside the package."""
    here = Path.cwd() / "sample_sessions"
    bundled = Path(workbench.__file__).resolve().parent.parent / "sample_sessions"
    return [p for p in (here, bundled) if p.is_dir()][:1]


class Server:
    """What all browser sessions of one server share: the roots, the catalog, the uploads folder."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]], db: str | None = None, *, uploads: bool = True) -> None:
        given = list(paths) or default_paths()
        self.upload_dir = Path(tempfile.mkdtemp(prefix="workbench-uploads-")) if uploads else None
        if self.upload_dir is not None:
            # uploads live as long as the server: removed when it stops (the process exits)
            atexit.register(shutil.rmtree, self.upload_dir, ignore_errors=True)
        self.roots = ServedRoots.of([*given, *([self.upload_dir] if self.upload_dir else [])])
        self.catalog = Catalog(self.roots, db)
        self.catalog.add([r for r in self.roots.roots if r != self.upload_dir])

    def new_state(self) -> AppState:
        state = AppState(self.roots, store=self.catalog.store)
        default = default_session(self.catalog.summaries())
        if default:
            state.session = default
        return state


DEFAULT_MAX_ENTRIES = 200  # the session a new page opens is a small one: it opens at once and reads at a glance


def default_session(summaries: list[Any]) -> str:
    """The newest readable session of at most ``DEFAULT_MAX_ENTRIES`` entries, else the smallest one."""
    usable = [s for s in summaries if s.entries > 0]
    small = [s for s in usable if s.entries <= DEFAULT_MAX_ENTRIES and not s.errors]
    if small:
        return small[0].path  # summaries are newest first
    return min(usable, key=lambda s: s.entries).path if usable else ""


def build_views(server: Server, state: AppState) -> dict[str, Any]:
    """Every tab's content for one state, built now (tests and notebooks; the page builds lazily)."""
    views: dict[str, Any] = {}
    for name in TABS:
        build_view(name, server, state, views)
    return views


def build_view(name: str, server: Server, state: AppState, views: dict[str, Any]) -> Any:
    """The content of tab ``name`` (built once, kept in ``views``); a failing tab says so in its place."""
    if name in views:
        return views[name]
    try:
        views[name] = _LOADERS[name](state, server, views)
    except Exception as exc:  # one broken tab must not take the page down: say so in its place
        views[name] = pn.pane.Alert(f"{_TAB_TITLES[name]} is not available: {exc}", alert_type="warning")
    return views[name]


# Lazy tabs: each view's module (and what it pulls in: the replay, the backtest, Tabulator) loads
# when its tab is first shown, which keeps the first page load short.


def _sessions(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.sessions_view import SessionsView  # lazy tab (see above)

    return SessionsView(state=state, catalog=server.catalog, uploads=server.upload_dir)


def _tree(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.tree_view import TreeView  # lazy tab (see above)

    return TreeView(state=state, catalog=server.catalog)


def _stepper(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.stepper_view import StepperView  # lazy tab (see above)

    return StepperView(state=state)


def _rules(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.rules_view import RulesView  # lazy tab (see above)

    return RulesView(state=state)  # it re-runs the replay of the state's replay model, no other tab needed


def _backtest(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.backtest_view import BacktestView  # lazy tab (see above)

    return BacktestView(state=state, catalog=server.catalog)


def _playground(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.playground_view import PlaygroundView  # lazy tab (see above)

    return PlaygroundView(state=state)


def _drafts(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.drafts_view import DraftsView  # lazy tab (see above)

    return DraftsView(state=state, catalog=server.catalog)


def _timeline(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.timeline_view import TimelineView  # lazy tab (see above)

    return TimelineView(state=state)


def _usage(state: AppState, server: Server, views: dict[str, Any]) -> Any:
    from workbench.ui.usage_view import UsageView  # lazy tab (see above)

    return UsageView(state=state, catalog=server.catalog)


_LOADERS: dict[str, Callable[[AppState, Server, dict[str, Any]], Any]] = {
    "sessions": _sessions, "tree": _tree, "stepper": _stepper, "rules": _rules, "backtest": _backtest,
    "playground": _playground, "drafts": _drafts, "timeline": _timeline, "usage": _usage,
}


def build_page(server: Server) -> PageFrame:
    """One browser session: state, URL sync, the tabs in the page's frame."""
    state = server.new_state()
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        # a closed tab must not leave its replay running (a long session's pre-check takes minutes)
        pn.state.on_session_destroyed(lambda _context: state.close())
    state.apply_query(dict(pn.state.session_args or {}))
    state.sync_url()
    # A tab's view is built the first time the tab is shown (first view: only the open tab does work,
    # e.g. the tree and its graph are not laid out while the Sessions table is on screen). Once built
    # it stays in the document (dynamic=False): a model Panel detaches from the document gets its
    # stylesheet links rewritten to Panel's CDN on the next update, a request outside 127.0.0.1.
    views: dict[str, Any] = {}
    # a view joining late is acknowledged by the browser on arrival, so that its first event refers to
    # its models by id (late_models: else the server is sent a full copy and warns "reference already known")
    holders = {n: acknowledge_joins(pn.Column(sizing_mode="stretch_both", css_classes=[f"wb-tab-{n}"], margin=0))
               for n in TABS}

    def show(name: str) -> None:
        holder = holders[name]
        if not holder.objects:
            holder.objects = [build_view(name, server, state, views)]

    tabs = pn.Tabs(*[(_TAB_TITLES[n], holders[n]) for n in TABS], dynamic=False, sizing_mode="stretch_both",
                   css_classes=["wb-tabs"])
    show(state.tab)
    tabs.active = TABS.index(state.tab)
    # a tab opened from far down another one (a search hit, a row of a long Sessions table) starts at
    # its top: the window kept the old tab's scroll, so the header and the tabs were off screen
    tabs.jscallback(active="window.scrollTo(0, 0);")

    def _tab_from_state(event: Any) -> None:
        tabs.active = TABS.index(event.new)

    def _state_from_tab(event: Any) -> None:
        show(TABS[event.new])
        state.tab = TABS[event.new]

    state.param.watch(_tab_from_state, "tab")
    tabs.param.watch(_state_from_tab, "active")

    session_select = SessionPicker(state=state, catalog=server.catalog)  # searchable: archives hold thousands
    flavour = pn.widgets.RadioButtonGroup.from_param(state.param.flavour, color="light", width=200,
                                                     css_classes=["wb-flavour"], margin=(5, 5, 0, 5))
    # what `auto` chose for the open file, in small text under the buttons (beside them it ran into
    # "? Help"); its line is kept when empty, so the buttons do not jump when a file is read
    flavour_read = pn.pane.Str(state.param.flavour_read, css_classes=["wb-flavour-read"], margin=(1, 5, 0, 9),
                               width=196, height=14, styles={"font-size": "11px", "line-height": "14px",
                                                             "color": "#d0d7de", "overflow": "hidden",
                                                             "white-space": "nowrap", "text-overflow": "ellipsis"})
    flavour_label = header_label("flavour")
    flavour_label.align = "start"
    flavour_label.margin = (12, 5, 5, 5)  # level with the buttons, not with the buttons and the note

    help_button = pn.widgets.Button(label="? Help", color="light", width=80, css_classes=["wb-help-button"])
    page: Any = None  # the help opens the page's dialog: the page is made below

    def open_help(*_: Any) -> None:
        page.open_dialog()

    help_keys = KeyCatcher(["?", "shift+?"], open_help)
    help_button.on_click(open_help)
    share = ShareBar(state=state)
    page = PageFrame(
        TITLE,
        # groups the header wraps between (a narrow window), each kept on one line
        header=[header_group(header_label("session"), session_select),
                header_group(flavour_label, pn.Column(flavour, flavour_read, margin=0)),
                header_group(help_button, share, actions=True), help_keys],
        short_title=SHORT_TITLE,
        main=[tabs, share.dialog],  # the export dialog outside the header bar, which clips what overflows it
        dialog=[pn.pane.HTML(help_html(), stylesheets=theme_sheets(), sizing_mode="stretch_width",
                             css_classes=["wb-help-pane"])],
    )
    page.state = state  # tests and notebooks reach the state through the page
    page.views = views  # the tabs built so far (grows as tabs are opened)
    _follow(state, views)
    return page


def _follow(state: AppState, views: dict[str, Any]) -> None:
    """Live mode: poll the open session file and the rule files twice a second; and stop the page's
    work once its browser has left (``closed_pages.BrowserLeft``)."""
    left = closed_pages.BrowserLeft()
    stopped = [False]

    def poll() -> None:
        if stopped[0]:
            return
        if left(pn.state.curdoc):
            stopped[0] = True
            state.close()  # what the session's end does, 15-32 s sooner
            return
        tree = views.get("tree")  # built only once the Tree tab was opened
        with reporting("Live update"):
            if tree is not None and hasattr(tree, "poll"):
                tree.poll()
            ruleset = state.current_rule_set()
            if ruleset is not None and ruleset.changed_on_disk():
                state.rules_revision += 1

    # A poll that finds nothing is not work the user waits for: as a background callback it does not
    # turn the header's busy spinner every half second (the page looked forever loading), and with
    # log=False the server does not log each run. Session-scoped, it ends with the browser session.
    cb = PeriodicCallback(callback=poll, period=500, background=True, log=False)
    cb.start()


def create_app(paths: Iterable[str | os.PathLike[str]] = (), db: str | None = None) -> Callable[[], Any]:
    """A factory for ``pn.serve``: each browser session gets its own state and page."""
    # the stylesheet as a URL, not raw CSS: see workbench/ui/theme.py (the page's first document)
    pn.extension("tabulator", notifications=True, css_files=[theme_url()])
    write_flush.install()  # a patch queued behind a write in flight must still reach the browser
    page_bundles.install()  # no MathJax or WebGL bundle on the page: the app uses neither
    pn.config.notifications = True
    closed_pages.quiet_closed_sends()  # a page closed mid-update: one log line, not one per message
    collector.install()  # a closed page's full garbage collection waits until the server is quiet
    server = Server(paths, db)

    def app() -> Any:
        closed_pages.install()  # the server's loop: a page closed mid-update is not a traceback
        return build_page(server)

    app.server = server  # type: ignore[attr-defined]
    return app

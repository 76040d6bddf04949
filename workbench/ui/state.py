"""One state object per browser session (or notebook): what is open and how it is viewed.

Views hold no state of their own that a user would want to share: everything a deep link restores
(session, selected entry, filter, search, stream, step, tab) is a parameter here, and
``AppState.sync_url()`` binds those parameters to the page URL.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import panel as pn
import param

from workbench.errors import WorkbenchError
from workbench.replay import CHUNK_POLICIES, ReplayConfig
from workbench.rules import AGENT_EDIT_MODES, AgentSettings, agent_from_session, read_agent_settings
from workbench.sessions import FLAVOR_BUTTONS, flavour_aliases
from workbench.tree import FILTER_MODES
from workbench.ttsr import CONTEXT_MODES, DEFAULT_SETTINGS, INTERRUPT_MODES, REPEAT_MODES, TtsrSettings
from workbench.ui.notebook_comms import in_kernel, route_to_main_shell
from workbench.ui.replay_model import ReplayModel
from workbench.ui.roots import STREAM_SUFFIX, ServedRoots
from workbench.ui.ruleset import RuleSet

# omp = oh-my-pi 17 (the public cases), omp18 = 18.3, pi; auto picks one from the file (the registry's buttons)
FLAVOURS = FLAVOR_BUTTONS
FLAVOUR_ALIASES = flavour_aliases()  # names a link may carry for a button's flavour (omp17 → omp)
TABS = ("sessions", "tree", "stepper", "rules", "backtest", "playground", "drafts", "timeline", "usage")

# URL query key -> parameter name (README "A tour": ?session=…&leaf=…&filter=…&q=…&stream=…&step=…)
URL_KEYS = {
    "session": "session",
    "leaf": "leaf",
    "filter": "filter",
    "q": "q",
    "stream": "stream",
    "step": "step",
    "tab": "tab",
    "rules": "rules_dir",
    "flavor": "flavour",
    "edit_mode": "edit_mode",
}


# The Stepper's settings that start from the agent's config layers (the project's ``.omp`` / ``.xcsh``
# files): parameter -> ``ttsr.*`` key. A value chosen in the UI (or given to the constructor) is above
# the files, as a command-line flag is (docs/agent-settings.md).
LAYERED = {"context_mode": "contextMode", "interrupt_mode": "interruptMode", "repeat_mode": "repeatMode",
           "repeat_gap": "repeatGap"}


def _within(value: int, bounds: tuple[int | None, int | None] | None) -> bool:
    low, high = bounds or (None, None)
    return (low is None or value >= low) and (high is None or value <= high)


class AppState(param.Parameterized):
    """The shared state of one browser session; views watch it and write to it."""

    session = param.String(default="", doc="Open session file, as shown (relative to its served root).")
    leaf = param.String(default="", doc="Selected entry id in the tree (its conversation is shown).")
    filter = param.Selector(default="default", objects=list(FILTER_MODES), doc="Tree filter mode.")
    q = param.String(default="", doc="Tree search query.")
    flavour = param.Selector(default="auto", objects=list(FLAVOURS), doc="Which agent's /tree behaviour to follow.")
    flavour_read = param.String(default="", doc="What the open file is read as and why (auto: the decision).")
    stream = param.String(default="", doc="Stream file for the stepper; empty = derived from the open session.")
    chunking = param.Selector(default="words", objects=list(CHUNK_POLICIES), doc="How a derived stream is chunked.")
    rules_dir = param.String(default="", doc="Folder whose rules the stepper and rules tab use.")
    # The replay's settings start at the manager's defaults (the agent's ttsr table, rules/agent_settings.py).
    context_mode = param.Selector(default=DEFAULT_SETTINGS["contextMode"], objects=list(CONTEXT_MODES))
    interrupt_mode = param.Selector(default=DEFAULT_SETTINGS["interruptMode"], objects=list(INTERRUPT_MODES))
    repeat_mode = param.Selector(default=DEFAULT_SETTINGS["repeatMode"], objects=list(REPEAT_MODES))
    repeat_gap = param.Integer(default=DEFAULT_SETTINGS["repeatGap"], bounds=(0, 1000))
    edit_mode = param.Selector(default="auto", objects=list(AGENT_EDIT_MODES),
                               doc="How edit tool calls are read (auto: each call's mode from its arguments).")
    agent = param.String(default="", doc="The agent the rules' agents: are checked against (empty: from the "
                         "session, as workbench replay derives it; else like --agent).")
    step = param.Integer(default=0, bounds=(0, None), doc="Stepper position (snapshot index).")
    tab = param.Selector(default="sessions", objects=list(TABS))
    goal = param.String(default="", doc="One-shot request for the stepper once built: 'first-trigger' goes "
                        "there, 'step' keeps the step set with a new stream (see open_step).")
    follow = param.Boolean(default=True, doc="Follow the open session file while an agent writes it.")
    revision = param.Integer(default=0, doc="Bumped when the open session file changed on disk.")
    rules_revision = param.Integer(default=0, doc="Bumped when a rule file changed on disk or in the editor.")
    catalog_revision = param.Integer(default=0, doc="Bumped when sessions were added to the store.")
    # The replay the replay model (``replay_model``) builds, shared with the views that use it (the
    # Rules tab re-runs its stream): views meet here, never through each other.
    replay = param.Parameter(default=None, doc="The page's replay (a workbench.replay.Stepper) once built.")
    replay_wanted = param.Event(doc="Asks for the replay to be brought up to date now (the replay model does).")

    def __init__(self, roots: ServedRoots, *, store: Any = None, **params: Any) -> None:
        super().__init__(**params)
        if in_kernel():  # a view in a notebook: its events on the kernel's main thread (ui/notebook_comms.py)
            route_to_main_shell()
        self.roots = roots
        self.store = store
        self._ruleset: Any = None
        self._listings: dict[str, list[Path]] = {}  # walking a large archive is not free: once per change
        self.param.watch(lambda e: self._listings.clear(), "catalog_revision")
        self._loaded: tuple[Path, tuple[int, int], Any] | None = None
        self._replay_model: ReplayModel | None = None
        # the layered settings chosen in the UI or given here: those stay above the config files
        self._chosen: set[str] = {name for name in LAYERED if name in params}
        self._seeding = False
        self.param.watch(self._on_choice, list(LAYERED))
        # after every other watcher: one update may choose a setting and another folder at once
        self.param.watch(lambda *e: self.seed_settings(), ["rules_dir", "rules_revision"], precedence=1)

    @classmethod
    def for_file(cls, source: str | os.PathLike[str], rules_dir: str | os.PathLike[str] | None = None,
                 **params: Any) -> AppState:
        """A state for a notebook cell: ``source`` (a ``*.stream.jsonl`` file or a session file) chosen,
        with the rules of ``rules_dir``; the served roots are the folders of both."""
        src = Path(source).expanduser().resolve()
        folders = [src.parent] + ([Path(rules_dir).expanduser().resolve()] if rules_dir else [])
        state = cls(ServedRoots.of(folders), **params)
        if src.name.endswith(STREAM_SUFFIX):
            state.stream = str(src)
        else:
            state.session = str(src)
        if rules_dir:
            state.rules_dir = str(Path(rules_dir).expanduser().resolve())
        return state

    @property
    def replay_model(self) -> ReplayModel:
        """The page's replay (``ui/replay_model.py``), made the first time a view asks for it; from then
        on it follows the choices here and rebuilds while the Stepper or Rules tab shows."""
        if self._replay_model is None:
            self._replay_model = ReplayModel(self)
        return self._replay_model

    def close(self) -> None:
        """The browser session ended: stop the work it started (the replay, if one was made)."""
        if self._replay_model is not None:
            self._replay_model.close()

    # -- the open session, loaded once -------------------------------------------------------------
    def remember_session(self, path: Path, stamp: tuple[int, int] | None, session: Any) -> None:
        """The tree's loaded ``Session`` of ``path`` as it was at ``stamp`` (size, mtime): the stepper
        and the timeline derive from it instead of parsing the file a second time (on a 240 MB file,
        a second copy of every record and seconds of parsing)."""
        self._loaded = (path, stamp, session) if stamp is not None else None

    def loaded_session(self, path: Path) -> Any:
        """The remembered session of ``path`` if the file is unchanged since it was read, else None."""
        held = self._loaded
        if held is None or held[0] != path:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        return held[2] if (st.st_size, st.st_mtime_ns) == held[1] else None

    # -- paths -------------------------------------------------------------------------------------
    def session_path(self) -> Path | None:
        """The open session as an absolute path under the served roots (None when nothing is open)."""
        return self.roots.resolve(self.session) if self.session else None

    def stream_path(self) -> Path | None:
        return self.roots.resolve(self.stream) if self.stream else None

    def rule_dirs(self) -> list[Path]:
        """Project folders with rules under the roots (cached until sessions are added)."""
        if "rules" not in self._listings:
            self._listings["rules"] = list(self.roots.rule_dirs())
        return self._listings["rules"]

    def stream_files(self) -> list[Path]:
        """Recorded stream files under the roots (cached until sessions are added)."""
        if "streams" not in self._listings:
            self._listings["streams"] = list(self.roots.stream_files())
        return self._listings["streams"]

    def rules_path(self) -> Path | None:
        if self.rules_dir:
            return self.roots.resolve(self.rules_dir)
        found = self.rule_dirs()
        return found[0] if found else None

    def current_rule_set(self) -> Any:
        """The ``RuleSet`` in use, if one was made (``None`` before any view asked for one)."""
        return self._ruleset

    def rule_set(self) -> Any:
        """The shared ``RuleSet`` of the chosen rules folder (created when the folder changes)."""
        folder = self.rules_path()
        if self._ruleset is None or self._ruleset.folder != folder:
            # discovery must not walk above the served root that holds the folder (e.g. .clinerules)
            boundary = self.roots.root_of(folder) if folder is not None else None
            self._ruleset = RuleSet(folder, boundary=boundary, builtin=getattr(self._ruleset, "builtin", None))
        return self._ruleset

    # -- settings: the agent's config layers, the UI's choices above them ------------------------------
    def _on_choice(self, *events: Any) -> None:
        if not self._seeding:
            self._chosen.update(e.name for e in events)

    def chosen(self) -> frozenset[str]:
        """The layered settings chosen in the UI (the others follow the config files)."""
        return frozenset(self._chosen)

    def agent_settings(self, *, judge_given: bool = False) -> AgentSettings:
        """The ``ttsr.*`` settings and switches in effect for the rules folder, each with its source:
        the UI's choices as ``flag``, then the project's files, then the defaults. The user level is
        the rule set's private home (a served app reads none of the server user's files)."""
        ruleset = self.rule_set()
        folder = ruleset.folder if ruleset.folder is not None else ruleset.home
        flags: dict[str, Any] = {LAYERED[name]: getattr(self, name) for name in self._chosen}
        if not ruleset.builtin:
            flags["builtinRules"] = False  # the Rules tab's switch, as --no-builtin
        if judge_given:
            flags["judge"] = "on"  # a judge chosen in the Stepper, as --judge
        return read_agent_settings(cwd=folder, home=ruleset.home, env={}, flags=flags)

    def seed_settings(self) -> None:
        """Show the config files' values in the settings not chosen in the UI (on the document thread)."""
        try:
            layers = self.agent_settings()
        except WorkbenchError:
            return  # a bad rules link: the views that use the folder say why; the settings stay as they are
        updates = {}
        for name, key in LAYERED.items():
            value = layers.value(key)
            if name in self._chosen or value == getattr(self, name):
                continue
            p = self.param[name]
            if isinstance(p, param.Selector) and value not in p.objects:
                continue  # a value the agent would not know either stays the default, the table says why
            if isinstance(p, param.Integer) and (not isinstance(value, int) or not _within(value, p.bounds)):
                continue
            updates[name] = value
        if updates:
            self._seeding = True
            try:
                self.param.update(**updates)
            finally:
                self._seeding = False

    def settings(self, *, judge_given: bool = False) -> TtsrSettings:
        """The TTSR settings in effect: the config layers with the UI's choices above them."""
        return TtsrSettings.from_mapping(self.agent_settings(judge_given=judge_given).ttsr_mapping())

    def agent_of(self, session: Any) -> dict[str, str]:
        """The agent a replay of ``session`` (``None``: a recorded stream) runs as, and why: the Agent
        box, else ``agent_from_session`` (what ``workbench replay`` uses), else ``main``."""
        chosen = self.agent.strip()
        if chosen:
            return {"name": chosen, "source": "flag", "why": "set in the Agent box"}
        name, source, why = agent_from_session(session)
        return {"name": name, "source": source, "why": why}

    def replay_config(self, stream: Any, session: Any, *, judge: Any = None, **fields: Any) -> ReplayConfig:
        """The ``ReplayConfig`` every view replays with: the settings in effect, the agent of the
        session, the rule set's home, the edit mode; ``cwd`` the stream's, else the rules folder."""
        ruleset = self.rule_set()
        folder = ruleset.folder
        fields.setdefault("cwd", stream.cwd or (str(folder) if folder else "/"))
        return ReplayConfig(self.settings(judge_given=judge is not None), home=str(ruleset.home), judge=judge,
                            edit_mode=self.edit_mode, agent=self.agent_of(session)["name"], **fields)

    def open_session(self, path: str | os.PathLike[str], *, leaf: str = "") -> None:
        """Open a session (checked against the roots) and switch to the tree."""
        real = self.roots.resolve(path)
        self.param.update(session=self.roots.display(real), leaf=leaf, q="", step=0, tab="tree")

    def open_step(self, step: int, *, session: str | os.PathLike[str] | None = None, stream: str | None = None) -> None:
        """Show ``step`` in the Stepper, in ``session`` (and ``stream``; ``""``: derived) when given.

        A new stream starts at step 0; the one-shot goal ``"step"`` tells the stepper that this step
        is wanted once it is built (a backtest hit, a compared change, a timeline click)."""
        changes: dict[str, Any] = {"step": max(0, int(step)), "goal": "step", "tab": "stepper"}
        if session is not None:
            changes.update(session=self.roots.display(self.roots.resolve(session)), leaf="", q="")
        if stream is not None:
            changes["stream"] = stream
        self.param.update(**changes)

    def apply_query(self, args: dict[str, Any]) -> None:
        """Set parameters from URL query arguments (``pn.state.session_args``: name -> [bytes]).

        Done before the views are built, so a deep link opens its session once instead of opening the
        default session first and then the linked one. Bad values are ignored (the URL is user input).
        """
        updates: dict[str, Any] = {}
        for key, name in URL_KEYS.items():
            values = args.get(key)
            if not values:
                continue
            raw = values[0]
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            p = self.param[name]
            if name == "flavour":
                text = FLAVOUR_ALIASES.get(text, text)
            try:
                value: Any = int(text) if isinstance(p, param.Integer) else text
                if isinstance(p, param.Selector) and value not in p.objects:
                    continue
                if isinstance(p, param.Integer) and not _within(value, p.bounds):
                    continue
            except (ValueError, TypeError):
                continue
            updates[name] = value
        if updates:
            self.param.update(**updates)

    def sync_url(self) -> None:
        """Bind the shareable parameters to the page URL (no-op outside a served page)."""
        location = getattr(pn.state, "location", None)
        if location is None:
            return
        location.sync(self, {name: key for key, name in URL_KEYS.items()})

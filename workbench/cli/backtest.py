"""``workbench backtest``: how often a rule set would have fired over an archive of sessions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.backtest import BacktestOptions, compare_backtests, format_comparison, run_backtest, write_results
from workbench.cli._output import ProgressBar, add_command, add_json_flag, print_json
from workbench.cli.agent_config import config_json, read_settings, resolve_agent, templates_for
from workbench.cli.judge_flags import backtest_judged_lines, judge_from_args
from workbench.cli.options import add_replay_flags, add_rule_set_flags
from workbench.errors import NotFoundError, UsageError
from workbench.replay import CHUNK_POLICIES
from workbench.rules import AgentSettings, resolve_rules
from workbench.ttsr import INTERRUPT_MODES, REPEAT_MODES, TtsrSettings


def register(subparsers: Any) -> None:
    p = add_command(subparsers, "backtest", run,
                    help="replay every assistant turn of many sessions through a rule set; per-rule trigger counts")
    p.add_argument("paths", nargs="+", metavar="SESSION_OR_DIR", help="session files (or stream files) and folders of them")
    add_rule_set_flags(p, rules="required")
    p.add_argument("--compare", metavar="DIR2",
                   help="a second rule set (e.g. a draft): run both over the same sessions and list the turns that "
                   "newly fire, stop firing or change interrupt behaviour")
    p.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, e.g. tcp://scheduler-host:8786")
    p.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: all cores; 1 = in process)")
    p.add_argument("--out", metavar="DIR", help="write backtest.duckdb and Parquet files to DIR")
    p.add_argument("--chunking", choices=CHUNK_POLICIES, default="words",
                   help="how recorded messages are cut into deltas (default: words)")
    p.add_argument("--chunk-size", type=int, metavar="N", help="units per delta (default: 8 words)")
    p.add_argument("--interrupt-mode", choices=INTERRUPT_MODES,
                   help="global interrupt mode hits are judged against (default: ttsr.interruptMode, else always)")
    p.add_argument("--mode", choices=("probe", "agent"), default="probe",
                   help="probe: every turn that would trigger (default); agent: replay as the agent would, "
                   "with interrupts and the repeat policy")
    p.add_argument("--repeat-mode", choices=REPEAT_MODES, help="agent mode: ttsr.repeatMode (default: once)")
    p.add_argument("--repeat-gap", type=int, metavar="N", help="agent mode: ttsr.repeatGap (default: 10)")
    p.add_argument("--time-bound", type=float, default=2.0, metavar="SECONDS",
                   help="disable a rule whose condition keeps a session from progressing this long (default: 2; 0 = off)")
    p.add_argument("--samples", type=int, default=3, metavar="N", help="sample snippets per rule (default: 3)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    add_replay_flags(p)
    add_json_flag(p)


def _rule_set(args: argparse.Namespace, folder: str | None = None) -> Any:
    """``--rules`` (or ``folder``) as the backtest reads it, with ``--omp-package`` / ``--no-builtin`` applied."""
    if folder is not None:
        args = argparse.Namespace(**{**vars(args), "rules": folder})
    layers = _layers(args)
    disabled = set(layers.names("disabledRules"))
    builtin_off = layers.value("builtinRules") is False
    if args.omp_package is None and not builtin_off and not disabled:
        return args.rules
    if not Path(args.rules).exists():
        raise NotFoundError(f"--rules {args.rules}: no such file or directory")
    rules = resolve_rules([args.rules], home=args.home, omp_package=args.omp_package)
    if builtin_off:
        rules = [r for r in rules if r.source is None or r.source.provider != "builtin-defaults"]
    # ``agents:`` is applied per session (BacktestOptions.agent: --agent, else each session's own).
    return [r for r in rules if r.name not in disabled]


def _agent_flag(args: argparse.Namespace) -> str | None:
    agent = getattr(args, "agent", None)
    return agent.strip() if isinstance(agent, str) and agent.strip() else None


def _agent_json(args: argparse.Namespace) -> dict[str, str]:
    """The ``agent`` block of ``--json``: ``--agent``, else derived per session."""
    if _agent_flag(args) is not None:
        return resolve_agent(args)
    return {"name": "per session", "source": "session",
            "why": "each session's session_init entry or parentSession header, else main"}


def _layers(args: argparse.Namespace) -> AgentSettings:
    """The agent's settings for the project ``--rules`` names (a rule file: its folder)."""
    target = Path(args.rules)
    return read_settings(args, target if target.is_dir() else target.parent)


def run(args: argparse.Namespace) -> int:
    """Replay every assistant turn of every session (re-chunked into deltas) through the rules and report per
    rule the sessions and turns that would trigger, the first trigger, sample snippets and the rules that
    never fire. Runs on local worker processes, or on a Dask cluster with --scheduler."""
    if args.samples < 0:
        raise UsageError("--samples must be >= 0")
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers and --scheduler exclude each other (the cluster has its own workers)")
    if args.mode == "probe" and (args.repeat_mode is not None or args.repeat_gap is not None):
        raise UsageError("--repeat-mode / --repeat-gap apply to --mode agent only")
    if args.repeat_gap is not None and args.repeat_gap < 0:
        raise UsageError("--repeat-gap must be >= 0")
    if args.time_bound < 0:
        raise UsageError("--time-bound must be >= 0 (0 = off)")
    if args.compare is not None and args.out:
        raise UsageError("--out and --compare exclude each other (write each rule set's results with its own run)")
    layers = _layers(args)
    settings = TtsrSettings.from_mapping(layers.ttsr_mapping())
    show = sys.stderr.isatty() if args.progress is None else args.progress
    options = BacktestOptions(policy=args.chunking, size=args.chunk_size if args.chunk_size is not None else
                              (BacktestOptions().size if args.chunking == "words" else None),
                              interrupt_mode=layers.value("interruptMode"), mode=args.mode, settings=settings,
                              time_bound=args.time_bound or None, judge=judge_from_args(args),
                              edit_mode=args.edit_mode, agent=_agent_flag(args))
    with ProgressBar("sessions") as bar:
        result = run_backtest(_rule_set(args), args.paths, workers=args.workers, scheduler=args.scheduler,
                              progress=bar if show else None, home=args.home, options=options, samples=args.samples)
    if args.compare is not None:
        with ProgressBar("sessions (--compare)") as bar:
            draft = run_backtest(_rule_set(args, args.compare), args.paths, workers=args.workers,
                                 scheduler=args.scheduler, progress=bar if show else None, home=args.home,
                                 options=options, samples=args.samples)
        return _compare(args, result, draft)
    written = write_results(result, args.out) if args.out else {}
    if args.json:
        print_json({**result.to_json(), "written": written,
                    **config_json(layers, _agent_json(args), templates=templates_for(args),
                                  judge_given=args.judge is not None)})
        return 0
    out = sys.stdout
    where = (f"Dask {args.scheduler}, {result.workers} worker(s), sessions sent as {result.transport}"
             if args.scheduler else f"{result.workers} local process(es)")
    out.write(f"{len(result.sessions)} sessions, {result.turns} turns in {result.elapsed:.1f}s "
              f"({result.sessions_per_second:.1f} sessions/s on {where}); mode {args.mode}\n\n")
    fired = [r for r in result.rules if r.fired]
    if fired:
        out.write(f"{'rule':<28} {'sessions':>8} {'turns':>6} {'interrupt':>9}  first trigger\n")
        for r in fired:
            first = r.first
            at = f"{first.session} turn {first.turn} offset {first.offset}" if first else "-"
            out.write(f"{r.rule:<28} {r.sessions:>8} {r.turns:>6} {r.interrupting_turns:>9}  {at}\n")
            for h in r.samples:
                out.write(f"{'':<30}» {h.snippet}\n")
    else:
        out.write("no rule would have fired\n")
    for line in backtest_judged_lines(result):
        out.write(line + "\n")
    registered_never = [n for n in result.never_fired if n not in dict(result.not_registered)]
    if registered_never:
        out.write(f"\nnever fired: {', '.join(registered_never)}\n")
    if result.not_registered:
        out.write(f"not TTSR rules (never fire): {', '.join(n for n, _ in result.not_registered)}\n")
    for name, session, why in result.disabled:
        out.write(f"rule {name} disabled: {why} at session {session}\n")
    for s in result.errors:
        sys.stderr.write(f"skipped: {s.error}\n")
    for key, path in written.items():
        out.write(f"wrote {key}: {path}\n")
    return 0


def _compare(args: argparse.Namespace, base: Any, draft: Any) -> int:
    """``--compare``: the turn-by-turn difference of the two runs."""
    comparison = compare_backtests(base, draft)
    if args.json:
        print_json({"base": {**base.to_json(), "rulesFrom": args.rules}, "draft": {**draft.to_json(), "rulesFrom": args.compare},
                    "compare": comparison})
    else:
        sys.stdout.write(format_comparison(comparison, base=args.rules, draft=args.compare))
    for s in (*base.errors, *draft.errors):
        sys.stderr.write(f"skipped: {s.error}\n")
    return 0

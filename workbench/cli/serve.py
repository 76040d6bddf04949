"""``workbench serve [PATH ...]``: the web app. Panel is imported only when the command runs."""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path

from workbench.cli._output import add_command, add_json_flag, print_json
from workbench.cli.options import add_rule_set_flags
from workbench.errors import UsageError
from workbench.rules import find_bundled_source


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "serve", run, help="start the web app")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="session files or folders to serve (default: sample_sessions/)")
    parser.add_argument("--port", type=int, default=5006, help="port (0 = any free port; default 5006)")
    parser.add_argument("--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="HOST[:PORT]",
                        help="origin browsers use to reach the app (repeatable); required with a non-loopback "
                             "--address, which also requires logging in with an access token ($WORKBENCH_TOKEN "
                             "or one printed at start)")
    parser.add_argument("--db", default=None, help="DuckDB file (default: an in-memory database)")
    parser.add_argument("--show", action=argparse.BooleanOptionalAction, default=False,
                        help="open a browser tab")
    add_rule_set_flags(parser, home=False)  # --no-builtin: the app starts with the bundled rules switched off
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Serve the TTSR Workbench web app over session files/folders."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: must be between 0 and 65535")
    # Panel, Bokeh and the app load only when serving (seconds of start-up; the rest of the CLI must
    # not need them, tests/test_layering.py).
    import panel as pn

    from workbench.ui import configure, create_app, default_paths, exposure

    if args.omp_package is not None:  # a folder that is no agent package fails here, not in the browser
        find_bundled_source(omp_package=args.omp_package, env=os.environ, home=Path.home())
    configure(builtin=not args.no_builtin, omp_package=args.omp_package)

    paths = [Path(p) for p in args.paths] or default_paths()
    if not paths:
        raise UsageError("no PATH given and no sample_sessions/ folder found")
    port = args.port
    if port == 0:
        with socket.socket() as s:
            s.bind((args.address, 0))
            port = s.getsockname()[1]
    exposed = exposure(args.address, port, args.allow_origin)  # refuses an unsafe address before any work
    app = create_app(paths, db=args.db)
    host = "localhost" if args.address in ("0.0.0.0", "::") else args.address
    url = f"http://{host}:{port}/"
    if getattr(args, "json", False):
        print_json({"url": url, "paths": [str(p) for p in paths], "db": args.db or ":memory:"})
    else:
        print(f"TTSR Workbench at {url}  (serving {', '.join(str(p) for p in paths)}; Ctrl+C to stop)", flush=True)
    if exposed.announcement():
        print(exposed.announcement(), flush=True)
    pn.serve({"/": app}, port=port, address=args.address, show=args.show, title="TTSR Workbench", threaded=False,
             **exposed.serve_kwargs())
    return 0

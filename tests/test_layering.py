"""The engine layers must not load the UI or the database (DESIGN: one direction of imports)."""

import subprocess
import sys


def test_engine_layers_do_not_import_ui_or_duckdb():
    code = (
        "import sys\n"
        "import workbench.ttsr, workbench.rules, workbench.edits, workbench.sessions, workbench.replay\n"
        "heavy = [m for m in ('panel', 'bokeh', 'duckdb', 'param') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine layers loaded: {out.stdout.strip()}"


def test_cli_import_does_not_load_panel_or_duckdb():
    code = (
        "import sys, workbench.cli\nworkbench.cli.build_parser()\n"
        "print([m for m in ('panel', 'bokeh', 'duckdb') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""``workbench serve``: argument checks (the server itself is exercised by the e2e tests)."""

from __future__ import annotations

import subprocess
import sys

from workbench.cli import build_parser, main


def test_serve_parses_paths_port_db_and_show():
    args = build_parser().parse_args(["serve", "a", "b", "--port", "0", "--db", "x.duckdb", "--no-show"])
    assert args.paths == ["a", "b"] and args.port == 0 and args.db == "x.duckdb" and args.show is False


def test_bad_port_is_a_one_line_error(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --port 70000") and err.count("\n") == 1


def test_missing_path_is_a_one_line_error(capsys, tmp_path):
    assert main(["serve", str(tmp_path / "nope"), "--port", "0"]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_cli_import_does_not_load_panel():
    code = "import sys, workbench.cli; workbench.cli.build_parser(); print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_serve_takes_no_builtin_and_checks_omp_package_before_serving(capsys, tmp_path):
    args = build_parser().parse_args(["serve", "--no-builtin", "--omp-package", "none"])
    assert args.no_builtin is True and args.omp_package == "none"
    assert main(["serve", str(tmp_path), "--port", "0", "--omp-package", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --omp-package {tmp_path / 'nope'}: not an oh-my-pi agent package")

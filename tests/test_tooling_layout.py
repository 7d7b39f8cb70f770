"""The tooling: nothing edits sys.path or the working directory to find the project (pyproject.toml and
``python -m`` from the root do), the suite keeps a file on one worker, and scripts/test.sh runs its tiers.
Which package may import which (tests/, scripts/ and benchmarks/ share devtools/, the app imports none of
them) is tests/test_layering.py."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ["app.py", "attention_core", "classroom", "figures", "pages", "ui"]
TOOLING = ["tests", "scripts", "benchmarks", "devtools"]


def python_files(names: list[str]) -> list[Path]:
    found = []
    for name in names:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def test_no_code_edits_sys_path_or_the_working_directory():
    found = []
    for path in python_files(APP + TOOLING):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = ast.unparse(node.func)
                if target in ("sys.path.insert", "sys.path.append", "os.chdir"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {target}")
    assert not found, found


def test_the_suite_keeps_each_test_file_on_one_worker(tmp_path):
    """The classroom and lecture-hall files share one class across their tests, in order: the project's
    pytest settings must run a file whole on one worker when the suite runs with -n 2."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    log = tmp_path / "workers.txt"
    (tmp_path / "test_ordered.py").write_text(
        "import os, pytest\n"
        "@pytest.mark.parametrize('i', range(8))\n"
        f"def test_step(i):\n    open({str(log)!r}, 'a').write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n")
    subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
                    "-c", str(root / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path)],
                   check=True, capture_output=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)},
                   timeout=120)
    workers = log.read_text().split()
    assert len(workers) == 8 and len(set(workers)) == 1, workers


def run_test_sh(tmp_path, *args: str, pytest_exit: int = 0) -> tuple[int, list[str]]:
    """Run scripts/test.sh with a stand-in ``python`` on PATH: pip, ruff and the inventory check succeed at
    once, pytest writes the arguments it got (one a line) and exits with ``pytest_exit``."""
    import os
    import subprocess

    seen = tmp_path / "pytest-args.txt"
    shim = tmp_path / "bin" / "python"
    shim.parent.mkdir()
    shim.write_text('#!/usr/bin/env bash\nif [ "$2" = pytest ]; then shift 2; printf "%s\\n" "$@" > '
                    f'"{seen}"; exit {pytest_exit}; fi\nexit 0\n')
    shim.chmod(0o755)
    result = subprocess.run(["bash", str(ROOT / "scripts" / "test.sh"), *args], capture_output=True, text=True,
                            env={**os.environ, "PATH": f"{shim.parent}:{os.environ['PATH']}"}, timeout=60)
    return result.returncode, seen.read_text().splitlines() if seen.exists() else []


def test_the_full_run_passes_every_argument_to_pytest(tmp_path):
    code, args = run_test_sh(tmp_path, "-k", "a b", "tests/test_x.py")
    assert code == 0
    assert args == ["-n", "2", "-k", "a b", "tests/test_x.py"]


def test_the_fast_tier_leaves_out_the_browser_tests_and_keeps_the_arguments(tmp_path):
    code, args = run_test_sh(tmp_path, "-x", "--fast", "-k", "softmax")
    assert code == 0
    assert "--fast" not in args and args[-3:] == ["-x", "-k", "softmax"]
    assert "--ignore=tests/browser" in args and args[args.index("-m") + 1] == "not browser"


@pytest.mark.parametrize("pytest_exit, expected", [(5, 1), (1, 1), (2, 2)])
def test_a_run_that_collects_no_test_is_never_green(tmp_path, pytest_exit, expected):
    """pytest exits 5 when a selection matches nothing: CI must not read that as a pass."""
    code, _ = run_test_sh(tmp_path, "--fast", "-k", "nothing_has_this_name", pytest_exit=pytest_exit)
    assert code == expected

"""The tooling's arrows point one way: tests/, scripts/ and benchmarks/ share devtools/, the app never imports
any of them, and nothing edits sys.path or the working directory to find the project (pyproject.toml and
``python -m`` from the root do)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ["app.py", "attention_core", "classroom", "figures", "pages", "ui"]
TOOLING = ["tests", "scripts", "benchmarks", "devtools"]
# Who may not import whom: the top-level package an import names.
FORBIDDEN = {"scripts": {"tests"}, "benchmarks": {"tests"}, "devtools": {"tests", "scripts", "benchmarks"},
             "tests": {"scripts", "benchmarks"}}


def python_files(names: list[str]) -> list[Path]:
    found = []
    for name in names:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_tooling_imports_only_what_it_may(folder):
    wrong = {f"{path.relative_to(ROOT)} imports {name}" for path in python_files([folder])
             for name in imported_packages(path) & FORBIDDEN[folder]}
    assert not wrong, sorted(wrong)


def test_the_app_never_imports_the_tooling():
    wrong = {f"{path.relative_to(ROOT)} imports {name}" for path in python_files(APP)
             for name in imported_packages(path) & set(TOOLING)}
    assert not wrong, sorted(wrong)


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

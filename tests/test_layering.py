"""The layers, enforced by what each file imports (its syntax tree, not its text).

Every Python file belongs to a top-level package (or is app.py); ALLOWED says which other top-level names that
package may import, the standard library always aside. An import counts wherever it is written (inside a
function too) and however: ``import a.b``, ``from a import b``, ``from . import b`` (resolved against the
file's own package) and ``importlib.import_module("a")`` with a literal name.

The arrows: pages -> ui, figures, attention_core; ui -> figures, classroom, attention_core; figures ->
attention_core; attention_core -> NumPy only (and threadpoolctl, for the BLAS thread count); classroom is free
of Streamlit and ui. The tooling (tests, scripts, benchmarks) shares devtools/, and the app never imports any
of the four.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".git", "artifacts", ".venv", "venv", "build", "node_modules", "__pycache__"}

# What each top-level package may import besides the standard library and itself.
ALLOWED: dict[str, set[str]] = {
    "attention_core": {"numpy", "threadpoolctl"},      # threadpoolctl: _blas.py's BLAS thread count, no maths
    "figures": {"attention_core", "numpy", "plotly"},
    "classroom": {"redis"},
    "ui": {"attention_core", "figures", "classroom", "numpy", "pandas", "plotly", "pyarrow", "segno", "streamlit",
           "streamlit_js_eval"},
    "pages": {"ui", "figures", "attention_core", "numpy", "pandas", "streamlit"},
    "app.py": {"ui", "streamlit"},
    "devtools": {"attention_core", "ui", "numpy", "streamlit", "pytest", "redis", "websockets", "playwright"},
    "scripts": {"devtools", "ui", "attention_core", "numpy", "pandas", "playwright", "torch", "transformers"},
    "benchmarks": {"devtools", "ui", "figures", "classroom", "attention_core", "numpy", "plotly", "redis",
                   "streamlit", "websockets", "playwright"},
    "tests": {"devtools", "ui", "figures", "classroom", "attention_core", "pages", "numpy", "pandas", "plotly",
              "pyarrow", "pytest", "hypothesis", "redis", "streamlit", "websockets", "playwright",
              "axe_playwright_python"},
}
STDLIB = set(sys.stdlib_module_names) - set(ALLOWED)


def owner(path: Path, root: Path = ROOT) -> str:
    """The top-level package a file belongs to ("app.py" for the entry script)."""
    return path.relative_to(root).parts[0]


def module_of(path: Path, root: Path = ROOT) -> list[str]:
    """The dotted package a file's relative imports start from: pages/x.py -> ["pages"]."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1]


def imported_modules(path: Path, root: Path = ROOT, source: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import in a file, relative ones resolved."""
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module_of(path, root)
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])])))
            else:
                found.append((node.lineno, node.module))
        elif (isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value))
    return found


def forbidden_imports(path: Path, root: Path = ROOT, source: str | None = None) -> list[str]:
    """"<file>:<line> imports <name>" for each import its package may not make."""
    package = owner(path, root)
    allowed = ALLOWED[package] | STDLIB | {package.removesuffix(".py")}
    return [f"{path.relative_to(root)}:{line} imports {name}"
            for line, name in imported_modules(path, root, source) if name.split(".")[0] not in allowed]


def python_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if not SKIP & set(p.relative_to(root).parts))


def test_every_python_file_belongs_to_a_package_the_table_knows():
    unknown = sorted({owner(p) for p in python_files()} - set(ALLOWED))
    assert not unknown, f"add these to ALLOWED in tests/test_layering.py, with what they may import: {unknown}"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_package_imports_only_what_its_layer_may(package):
    wrong = [w for p in python_files() if owner(p) == package for w in forbidden_imports(p)]
    assert not wrong, wrong


@pytest.mark.parametrize("package, snippet, name", [
    ("figures", "from streamlit import session_state\n", "streamlit"),
    ("figures", "import streamlit.components.v1 as c\n", "streamlit.components.v1"),
    ("attention_core", "def f():\n    import plotly.graph_objects as go\n    return go\n", "plotly.graph_objects"),
    ("classroom", "import importlib\nst = importlib.import_module('streamlit')\n", "streamlit"),
    ("classroom", "from ui import frame\n", "ui"),
    ("pages", "from devtools import harness\n", "devtools"),
    ("devtools", "from tests.conftest import ROOT\n", "tests.conftest"),
])
def test_the_checker_catches_a_forbidden_import(tmp_path, package, snippet, name):
    path = tmp_path / package / "module.py"
    path.parent.mkdir()
    path.write_text(snippet, encoding="utf-8")
    assert [w.split(" imports ")[1] for w in forbidden_imports(path, tmp_path)] == [name]


@pytest.mark.parametrize("file, snippet, resolved", [
    ("figures/sub/a.py", "from . import b\n", "figures.sub"),
    ("figures/sub/a.py", "from .b import c\n", "figures.sub.b"),
    ("figures/sub/a.py", "from ..palette import x\n", "figures.palette"),
    ("ui/lessons/x.py", "def f():\n    from ..frame import lesson\n", "ui.frame"),
])
def test_relative_imports_resolve_against_the_files_package(tmp_path, file, snippet, resolved):
    path = tmp_path / file
    assert imported_modules(path, tmp_path, snippet) == [(snippet.count("\n"), resolved)]


def test_the_allowed_imports_of_a_package_pass(tmp_path):
    path = tmp_path / "figures" / "module.py"
    path.parent.mkdir()
    path.write_text("import math\nimport numpy as np\nfrom attention_core import softmax\nfrom . import palette\n"
                    "def f():\n    import plotly.graph_objects as go\n", encoding="utf-8")
    assert forbidden_imports(path, tmp_path) == []

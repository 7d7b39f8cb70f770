"""No import circle in the app: the graph of what each of the app's modules imports has no cycle.

The app's modules are app.py and those under pages/, ui/, classroom/, attention_core/ and figures/. An import
counts wherever it is written (inside a function too, as in tests/test_layering.py, whose resolution of
relative imports this reuses): ``import a.b``, ``from a import b`` (an edge to the module ``a.b`` when there is
one, else to ``a``), ``from . import b`` and ``importlib.import_module("a")`` with a literal name. A package's
own ``__init__`` running before its submodules is Python's doing, not an edge: only what a file names counts.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from tests.test_layering import ROOT, module_of, python_files

APP = ("app.py", "pages", "ui", "classroom", "attention_core", "figures")


def module_name(path: Path, root: Path = ROOT) -> str:
    """ui/classroom/follow.py -> "ui.classroom.follow"; ui/classroom/__init__.py -> "ui.classroom"."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def app_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the app, by its dotted name."""
    return {module_name(p, root): p for p in python_files(root) if p.relative_to(root).parts[0] in APP}


def named_imports(path: Path, root: Path = ROOT) -> list[tuple[int, list[str]]]:
    """(line, candidates) for each name a file imports, the most specific candidate first: ``from a import b``
    gives ["a.b", "a"] (b may be a module or a name inside a), relative imports resolved against the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module_of(path, root)              # __init__.py: its own directory
                base = ".".join([*package[: len(package) - (node.level - 1)], *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            found += [(node.lineno, [f"{base}.{alias.name}", base]) for alias in node.names]
        elif (isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, [node.args[0].value]))
    return found


def _resolve(candidates: list[str], known: dict[str, Path]) -> str | None:
    """The app module an import reaches: the first candidate that is one, or the longest known prefix of it
    (``import ui.classroom.follow`` names the module, ``from ui.frame import lesson`` the module ui.frame)."""
    for name in candidates:
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in known:
                return ".".join(parts[:n])
    return None


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {module it imports: the first line that imports it}, over the app's own modules only."""
    known = app_modules(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges = graph.setdefault(name, {})
        for line, candidates in named_imports(path, root):
            target = _resolve(candidates, known)
            if target is not None and target != name:
                edges.setdefault(target, line)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle (a -> b -> ... -> a) through each strongly connected part of the graph with more than one
    module (Tarjan's algorithm, iteratively: the graph has hundreds of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    parts.append(sorted(part))
    return [_circle_in(graph, set(part)) for part in parts]


def _circle_in(graph: dict[str, dict[str, int]], part: set[str]) -> list[str]:
    """A shortest circle from the part's first module back to itself, staying inside the part."""
    first = min(part)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child == first:
                    return [*paths[node], first]
                if child in part and child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle through {first} in {sorted(part)}")   # Tarjan says there is one


def described(graph: dict[str, dict[str, int]], circle: list[str]) -> str:
    """"a (line 3) -> b (line 9) -> a": each arrow with the line of the import that makes it."""
    steps = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(circle)]
    return " -> ".join([*steps, circle[-1]])


def test_the_app_has_no_import_circle():
    graph = import_graph()
    assert len(graph) > 100 and "ui.classroom.follow" in graph      # the walk found the app's modules
    found = [described(graph, c) for c in circles(graph)]
    assert not found, "import circles (break each one):\n" + "\n".join(found)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("files, circle", [
    ({"ui/__init__.py": "", "ui/a.py": "from ui import b\n", "ui/b.py": "def f():\n    from ui.a import x\n"},
     ["ui.a", "ui.b", "ui.a"]),
    ({"ui/__init__.py": "", "ui/p/__init__.py": "from ui.p.c import y\n", "ui/p/c.py": "from . import d\n",
      "ui/p/d.py": "import importlib\nm = importlib.import_module('ui.p')\n"},
     ["ui.p", "ui.p.c", "ui.p.d", "ui.p"]),
    ({"figures/__init__.py": "", "figures/x.py": "import figures.y as y\n", "figures/y.py": "from .x import z\n",
      "app.py": "import figures.x\n"},
     ["figures.x", "figures.y", "figures.x"]),
])
def test_the_checker_finds_a_circle_and_names_it(tmp_path, files, circle):
    _write(tmp_path, files)
    graph = import_graph(tmp_path)
    assert circles(graph) == [circle]
    assert described(graph, circle).startswith(f"{circle[0]} (line ")


def test_a_package_importing_its_own_submodules_is_no_circle(tmp_path):
    # ui/classroom/__init__.py re-exports its parts, which import each other and never the package itself.
    _write(tmp_path, {"ui/__init__.py": "", "ui/p/__init__.py": "from ui.p.a import f\nfrom ui.p.b import g\n",
                      "ui/p/a.py": "from ui.p import b\n", "ui/p/b.py": "import os\n"})
    graph = import_graph(tmp_path)
    assert graph["ui.p.a"] == {"ui.p.b": 1} and circles(graph) == []

"""One page style (issue 49, item 5) on every page: every section is a function called from the
page's body at the bottom, and no function reads a module global that is assigned below it."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = tuple(sorted(p.stem for p in (ROOT / "pages").glob("*.py")))     # every page, in one style
DEFINITIONS = (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _tree(slug: str) -> ast.Module:
    return ast.parse((ROOT / "pages" / f"{slug}.py").read_text(encoding="utf-8"))


def _assigned(tree: ast.Module) -> dict[str, int]:
    """Module-level names and the line each is first assigned on."""
    lines: dict[str, int] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign | ast.AugAssign) else []
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    lines.setdefault(name.id, node.lineno)
    return lines


@pytest.mark.parametrize("slug", PAGES)
def test_no_function_reads_a_global_assigned_below_it(slug):
    tree = _tree(slug)
    assigned = _assigned(tree)
    late = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            local = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
            local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            late += [f"{node.name} reads {name} (line {assigned[name]})" for name in sorted(read - local)
                     if assigned.get(name, 0) > node.lineno]
    assert not late, f"{slug}: {late}"


@pytest.mark.parametrize("slug", PAGES)
def test_sections_are_functions_called_from_the_body_at_the_bottom(slug):
    """Above the last definition: imports, constants and definitions only; below it, the body: calls."""
    tree = _tree(slug)
    defs = [i for i, node in enumerate(tree.body) if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    if not defs:                              # a page of a few lines (the lesson map, the concept check): all body
        assert len(tree.body) <= 20, f"{slug}: {len(tree.body)} statements and no section function"
        return
    last_def = max(defs)
    head, body = tree.body[:last_def], tree.body[last_def + 1:]
    drawn = [node.lineno for node in head if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
             and ast.unparse(node.value.func).startswith(("st.", "frame."))]
    assert not drawn, f"{slug}: the page draws above its functions, at lines {drawn}"
    assert body, f"{slug}: no body below the functions"
    for node in body:
        calls = isinstance(node, ast.Expr | ast.Assign | ast.If) and any(
            isinstance(n, ast.Call) for n in ast.walk(node))
        assert calls, f"{slug}: line {node.lineno} of the body is not a call"

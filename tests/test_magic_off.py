"""Streamlit magic stays off: no script relies on it, and its per-script parse is unsafe beside other threads."""

from __future__ import annotations


def test_magic_is_off_and_no_page_needs_it():
    """With magic on, Streamlit parses every script with ``ast`` on first run, which on Python 3.11 can
    collide with a parse in another thread (numpy reads .npz headers with ast.literal_eval). Nothing is
    lost by turning it off as long as no script has a bare expression for magic to show."""
    import ast
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False
    shown = []
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0]) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body}
        shown += [f"{path.name}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and id(n) not in docstrings
                  and not isinstance(n.value, ast.Call | ast.Await | ast.Yield | ast.YieldFrom)]
    assert not shown, f"bare expressions that magic would have shown: {shown}"

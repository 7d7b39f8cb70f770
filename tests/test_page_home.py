"""The home page: where to start and how to use the app, in words a newcomer understands."""

import ast
import re
from pathlib import Path

from devtools.apptest import open_page, texts
from ui.content import load_lesson

ROOT = Path(__file__).resolve().parent.parent


def test_home_says_where_to_start_and_how_to_use_the_app():
    shown = texts(open_page("home"))
    home = load_lesson("home")
    assert "Where to start" in shown and not home.trap        # its own field, not the lessons' trap
    for part in ("How to use this", "Predict first", "Link to this view", "Presenter mode", "?present=1"):
        assert part in shown, part
    assert "Common trap" not in shown


def test_no_page_speaks_of_the_seed_or_a_data_file():
    """The reader never met 'the seed' (our source material) or 'a data file'; a random seed is fine."""
    banned = re.compile(r"\bthe seed(?:'s| lesson)?\b|\bseed lesson\b|\b(?:a|the) data file\b", re.IGNORECASE)
    found = []
    for path in (ROOT / "assets" / "lessons").glob("*.toml"):
        found += [f"{path.name}: {m.group(0)}" for m in banned.finditer(path.read_text(encoding="utf-8"))]
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):                        # strings a page can show; docstrings are for developers
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                found += [f"{path.name}: {m.group(0)}" for m in banned.finditer(node.value)]
    assert not found, found

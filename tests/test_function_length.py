"""No function in the app is over 60 lines (a longer one gets split along its page's sections), and no module
over 400 (a longer one gets split by role)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pages", "ui", "figures", "attention_core", "classroom")
LIMIT = 60


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines from `def` to the last line of the body) for every function, nested ones too."""
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_the_measure_counts_from_def_to_the_last_line_and_sees_nested_functions():
    source = "def outer():\n    def inner():\n        return 1\n\n    return inner\n"
    assert sorted(function_lengths(source)) == [("inner", 2, 2), ("outer", 1, 5)]


def test_no_function_in_the_app_is_over_sixty_lines():
    files = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    assert len(files) > 40                                # the packages were found
    too_long = [f"{path.relative_to(ROOT)}:{line} {name}: {length} lines"
                for path in files for name, line, length in function_lengths(path.read_text(encoding="utf-8"))
                if length > LIMIT]
    assert not too_long, f"split these along their sections (at most {LIMIT} lines):\n" + "\n".join(too_long)


MODULE_LIMIT = 400


def test_no_app_module_is_over_four_hundred_lines():
    files = [ROOT / "app.py"] + [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    too_long = [f"{path.relative_to(ROOT)}: {n} lines" for path in files
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LIMIT]
    assert not too_long, f"split these by role (at most {MODULE_LIMIT} lines):\n" + "\n".join(too_long)

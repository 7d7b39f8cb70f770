"""Safety, read from the source with ast (so code that lands later is checked too):

- raw HTML and JavaScript (``unsafe_allow_html=True``, ``unsafe_allow_javascript=True``, and st.html,
  which renders raw HTML even without the flag) only ever render a module-level constant string,
  never an f-string or a value built from what a learner typed;
- nothing evaluates or unpickles data: no eval, exec, pickle/marshal loads, yaml.load, or
  np.load(allow_pickle=True), anywhere outside the tests.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNSAFE_FLAGS = ("unsafe_allow_html", "unsafe_allow_javascript")
SKIP_DIRS = {"tests", ".git", "artifacts", ".venv", "build", "node_modules", "__pycache__"}
# Reviewed exceptions, by file and enclosing function, each with its reason.
REVIEWED = {
    ("ui/present.py", "clicker_keys"): "a constant script with two widget keys written by our own code, refused "
                                       "unless they are plain identifiers (checked in the function)",
}


def py_files(*dirs: str) -> list[Path]:
    if dirs:
        return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py"))
    return sorted(p for p in ROOT.rglob("*.py") if not SKIP_DIRS & set(p.relative_to(ROOT).parts))


def _string_literal(node: ast.expr | None) -> bool:
    """A string literal, or one passed through ``private.frontend`` (``frontend`` inside ui/streamlit_private.py:
    it checks the text's frontend names and returns the text unchanged)."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("private.frontend", "frontend") \
            and len(node.args) == 1:
        node = node.args[0]
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def module_constants(tree: ast.Module) -> set[str]:
    """Names bound exactly once at module level, to a string literal."""
    bound: dict[str, int] = {}
    strings = set()
    for node in ast.walk(tree):
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target]
                  if isinstance(node, ast.AnnAssign | ast.AugAssign) else []):
            if isinstance(t, ast.Name):
                bound[t.id] = bound.get(t.id, 0) + 1
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and _string_literal(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            strings |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {name for name in strings if bound.get(name) == 1}


def enclosing_functions(tree: ast.Module) -> dict[int, str]:
    owner = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(fn):
                owner[id(node)] = fn.name                  # innermost wins: inner functions are walked later
    return owner


def unsafe_html_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    constants = module_constants(tree)
    owner = enclosing_functions(tree)
    problems = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        flags = [k for k in call.keywords if k.arg in UNSAFE_FLAGS
                 and not (isinstance(k.value, ast.Constant) and k.value.value is False)]
        f = call.func
        st_html = isinstance(f, ast.Attribute) and f.attr == "html" and isinstance(f.value, ast.Name) \
            and f.value.id in ("st", "streamlit")
        if not flags and not st_html:
            continue
        body = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("body", "value")),
                                                   None)
        literal = isinstance(body, ast.Constant) and isinstance(body.value, str)
        constant = isinstance(body, ast.Name) and body.id in constants
        if literal or constant or (rel, owner.get(id(call))) in REVIEWED:
            continue
        what = ast.unparse(body)[:60] if body is not None else "nothing"
        flag = flags[0].arg if flags else "st.html"
        problems.append(f"{rel}:{call.lineno}: {flag} renders {what!r}, which is not a module-level constant string")
    return problems


def test_raw_html_and_javascript_only_render_constant_strings():
    problems = [p for path in py_files("pages", "ui") for p in unsafe_html_problems(path)]
    assert not problems, "Raw HTML built from something other than a constant:\n" + "\n".join(problems)


def test_the_raw_html_check_catches_what_it_should(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import streamlit as st\nCSS = '<style></style>'\nOK = 'x'\nOK = OK + st.query_params['q']\n"
        "JS = private.frontend('<script></script>')\nBAD = private.frontend(st.query_params['q'])\n"
        "st.html(JS, unsafe_allow_javascript=True)\nst.html(BAD)\n"
        "st.markdown(CSS, unsafe_allow_html=True)\n"
        "st.markdown('<b>hi</b>', unsafe_allow_html=True)\n"
        "st.markdown(f'<b>{name}</b>', unsafe_allow_html=True)\n"
        "st.markdown(OK, unsafe_allow_html=True)\n"
        "st.html(text, unsafe_allow_javascript=True)\n"
        "st.markdown(text, unsafe_allow_html=False)\n"
        "st.html(CSS)\nst.html(f'<p>{text}</p>')\n", encoding="utf-8")
    found = unsafe_html_problems(probe)
    assert [int(p.split(":")[1]) for p in found] == [8, 11, 12, 13, 16], found


FORBIDDEN = {
    ("", "eval"), ("", "exec"), ("pickle", "load"), ("pickle", "loads"), ("marshal", "load"),
    ("marshal", "loads"), ("yaml", "load"), ("yaml", "unsafe_load"), ("", "__import__"), ("dill", "load"),
    ("dill", "loads"), ("shelve", "open"), ("pd", "read_pickle"), ("pandas", "read_pickle"),
}


def evaluation_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    imported_from = {a.asname or a.name: n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                     for a in n.names}
    problems = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        f = call.func
        if isinstance(f, ast.Name):
            key = (imported_from.get(f.id, "") or "", f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            key = (f.value.id, f.attr)
        else:
            continue
        if key in FORBIDDEN or (key[0].split(".")[0], key[1]) in FORBIDDEN:
            problems.append(f"{rel}:{call.lineno}: {ast.unparse(f)}(...)")
        pickled = any(k.arg == "allow_pickle" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                      for k in call.keywords)
        if key[1] == "load" and pickled:
            problems.append(f"{rel}:{call.lineno}: {ast.unparse(f)}(..., allow_pickle=...) can run code from the file")
    return problems


def test_nothing_evaluates_or_unpickles_data():
    problems = [p for path in py_files() for p in evaluation_problems(path)]
    assert not problems, "eval/exec/unpickling outside the tests:\n" + "\n".join(problems)


def test_the_evaluation_check_catches_what_it_should(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import pickle, yaml, numpy as np\nfrom pickle import loads\n"
        "eval(x)\nexec(x)\npickle.loads(b)\nloads(b)\nyaml.load(s)\nnp.load(f, allow_pickle=True)\n"
        "np.load(f)\nyaml.safe_load(s)\nast.literal_eval(s)\n", encoding="utf-8")
    found = evaluation_problems(probe)
    assert [int(p.split(":")[1]) for p in found] == [3, 4, 5, 6, 7, 8], found

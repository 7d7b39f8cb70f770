"""Isolation: two sessions never see each other's values, nothing mutable is shared at module
level, and every cache is bounded.

The session tests run over ui.content.page_index() and discover widgets from the AppTest tree; the
static checks walk the source with ast, so code that lands later is checked without edits here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from devtools.apptest import CHOICE_KINDS, TEXT_KINDS, class_state, open_page, widgets
from ui.content import lessons, page_index

ROOT = Path(__file__).resolve().parent.parent
SLUGS = [p.slug for p in page_index()]
LESSONS = [p.slug for p in lessons()]                   # pages with predictions: not the map nor the glossary
SHARED_DIRS = ("pages", "ui", "figures", "attention_core")
SKIP_DIRS = {"tests", ".git", "artifacts", ".venv", "build", "node_modules", "__pycache__"}


def values(at) -> dict:
    return {(i.kind, i.key): i.value for _, i in widgets(at) if i.key and i.kind not in ("button",)}


def state_of(at, keys) -> dict:
    """Read from session state, not the tree: AppTest drops the entry script's sidebar after the first run."""
    return {key: at.session_state.get(key[1]) for key in keys}


def changed_value(info):
    """A legal value different from the current one, or None when the widget has no other value."""
    if info.kind in ("toggle", "checkbox"):
        return not info.value
    if info.kind in TEXT_KINDS:
        return "2, 0, 0, 0" if info.is_matrix else "a sentence only session A typed"
    if info.kind in ("radio", "selectbox") and info.options:
        return next((o for o in info.options if o != info.value), None)
    if info.kind == "slider" and isinstance(info.value, int | float) and info.max != info.min:
        return info.max if info.value != info.max else info.min
    if info.kind == "number_input":
        if isinstance(info.value, int):                   # an integer input only ever holds integers
            return info.value + 1 if info.max is None or info.value + 1 <= info.max else info.value - 1
        return 0.5 if info.value != 0.5 else 0.25
    return None


@pytest.mark.parametrize("slug", SLUGS)
def test_two_sessions_on_a_page_never_see_each_others_values(slug):
    a, b = open_page(slug, check=False), open_page(slug, check=False)
    # The presenter mode itself is compared through "_present"; its sidebar switch is a widget whose state
    # AppTest keeps only on a session's first run.
    keys = [k for k in values(b) if k[1] != "_present_switch"] + [("state", "_present"), ("state", "_progress")]
    b.run()                                                   # settle: a second run is what B is compared with
    defaults = state_of(b, keys)
    moved = {}
    for node, info in widgets(a):
        new = changed_value(info)
        if "__" in (info.key or ""):
            continue                                          # the frame's questions: progress covers them
        if (info.key or "").startswith("_class"):
            continue                                          # "Join a class" acts and clears: rooms are below
        if info.disabled:
            continue                                          # held with a reason (Frame.control's idle)
        if info.key and new is not None and info.kind in (*TEXT_KINDS, *CHOICE_KINDS, "toggle", "checkbox",
                                                          "slider", "number_input"):
            node.set_value(new)
            moved[(info.kind, info.key)] = new
    assert moved or slug == "home", f"{slug}: no widget to move"
    a.run()
    assert not a.exception, a.exception
    b.run()                                                   # B reruns after A changed everything it could
    assert state_of(b, keys) == defaults, f"{slug}: session B changed when session A moved {sorted(moved)}"
    assert dict(b.query_params) == {}, f"{slug}: session B's URL picked up {dict(b.query_params)}"
    c = open_page(slug, check=False)                          # a session that starts after A: defaults too
    c.run()
    assert state_of(c, keys) == defaults, f"{slug}: a new session started with A's values"
    kept = {k: v for k, v in moved.items() if k[1] != "_present_switch"}
    assert state_of(a, kept) == kept, f"{slug}: session A lost what it set"


@pytest.mark.parametrize("slug", LESSONS)
def test_progress_is_kept_per_session(slug):
    a, b = open_page(slug, check=False), open_page(slug, check=False)
    # A prediction, committed and revealed: every lesson shows one at once (its check waits for it).
    guess = next(i for _, i in widgets(a) if i.kind == "radio" and i.key and "__predict__" in i.key)
    a.radio(key=guess.key).set_value(guess.options[0]).run()
    a.button(key=f"{guess.key}__button").click().run()
    assert a.session_state["_progress"]["answers"].get(slug)
    b.run()
    assert b.session_state["_progress"]["answers"] == {}, "B sees A's answers"
    assert b.session_state["_progress"]["visited"] == [slug]
    b.switch_page("pages/home.py").run()
    assert "questions right first time" not in " ".join(c.value for c in b.caption)


def test_presenter_mode_is_per_session():
    a = open_page("home", check=False, present="1")
    b = open_page("home", check=False)
    assert a.session_state["_present"] is True and b.session_state["_present"] is False


def test_a_class_is_per_session_and_two_classes_are_apart():
    """Presenting, following and a class's view stay in the sessions that joined it (the store's own
    isolation: tests/test_classroom_store.py; flows: tests/test_classroom_app.py)."""
    a, b, c = open_page("home", check=False), open_page("home", check=False), open_page("home", check=False)
    a.sidebar.button(key="_class_start").click().run()
    b.sidebar.button(key="_class_start").click().run()
    code_a, code_b = class_state(a).code, class_state(b).code
    assert code_a != code_b and class_state(a).key != class_state(b).key
    from streamlit.testing.v1 import AppTest

    from devtools.apptest import APP

    follower = AppTest.from_file(APP, default_timeout=60)
    follower.query_params["room"] = code_a                    # the join link, from the first run
    follower.run()
    a.switch_page("pages/sqrt_dk.py").run()
    a.slider(key="sd_dk").set_value(700).run()
    follower.run()
    c.run()
    assert follower.slider(key="sd_dk").value == 700
    assert class_state(c).role is None and class_state(c).code is None
    assert "room" not in c.query_params
    assert class_state(b).role == "presenter" and "sd_dk" not in b.session_state


# --- Static: no mutable state shared between sessions -----------------------------------------------

MUTABLE_CALLS = {"list", "dict", "set", "bytearray", "defaultdict", "deque", "OrderedDict", "Counter"}
MUTATORS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
            "add", "discard", "sort", "reverse", "appendleft", "extendleft", "__setitem__"}


def sources(dirs=SHARED_DIRS):
    for d in dirs:
        yield from sorted((ROOT / d).rglob("*.py"))


def repo_sources():
    return sorted(p for p in ROOT.rglob("*.py") if not SKIP_DIRS & set(p.relative_to(ROOT).parts))


def is_mutable(value: ast.expr | None) -> bool:
    if isinstance(value, ast.List | ast.Dict | ast.Set):
        return True
    if isinstance(value, ast.Call):
        f = value.func
        return (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "") in MUTABLE_CALLS
    return False


def mutated_names(tree: ast.AST) -> set[str]:
    """Names mutated in place anywhere in the module: x.append(...), x[k] = ..., del x[k], x[k] += ..."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS \
                and isinstance(node.func.value, ast.Name):
            names.add(node.func.value.id)
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Subscript | ast.Attribute) and isinstance(t.value, ast.Name):
                names.add(t.value.id)
            elif isinstance(node, ast.AugAssign) and isinstance(t, ast.Name):
                names.add(t.id)
    return names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def imported_module_mutations(tree: ast.AST) -> list[tuple[int, str]]:
    """Writes into something imported (``core.TABLE[k] = v``, ``palette.COLOURS.append(c)``): that object
    lives in a module every session shares. Streamlit's own st.session_state and st.query_params are
    per session, so ``st`` is exempt."""
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names} - {"st", "streamlit"}
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        for t in targets:
            root = _root(t)
            if t is not root and isinstance(root, ast.Name) and root.id in imported:
                found.append((node.lineno, ast.unparse(t)))
    return found


def module_state_problems(path: Path, per_run: bool = False) -> list[str]:
    """Problems in one module. ``per_run``: a page, which Streamlit executes afresh in its own namespace
    on every rerun, so its top-level names are per run; only writes into imported modules can leak."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    mutated = mutated_names(tree)
    problems = [f"{rel}:{line}: writes into imported, shared state: {what}"
                for line, what in imported_module_mutations(tree)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            problems.append(f"{rel}:{node.lineno}: 'global {', '.join(node.names)}' rebinds module state")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not per_run:
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                if is_mutable(default):
                    problems.append(f"{rel}:{node.lineno}: {node.name}() has a mutable default argument, "
                                    "shared by every call in every session")
    for node in [] if per_run else tree.body:                 # module level only
        if isinstance(node, ast.Assign | ast.AnnAssign) and is_mutable(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in [t.id for t in targets if isinstance(t, ast.Name)]:
                if not name.isupper() and not (name.startswith("__") and name.endswith("__")):
                    problems.append(f"{rel}:{node.lineno}: module-level mutable '{name}' (a list/dict/set shared "
                                    "by every session); make it an UPPER_CASE tuple/frozenset or keep it in "
                                    "st.session_state")
                elif name in mutated:
                    problems.append(f"{rel}:{node.lineno}: constant '{name}' is mutated in place; every session "
                                    "would see the change")
    return problems


# Reviewed exceptions: module state that is process-wide by nature and holds no session's data (named by file
# and problem, not line, so an edit above them does not break the test).
PROCESS_WIDE = {
    # A reference count (under a lock) of model runs that want OpenBLAS on one thread; the thread count
    # is a property of the process, so it is restored when the last run, from any session, leaves.
    "attention_core/_blas.py: 'global _users, _saved_threads' rebinds module state",
    # Streamlit's switch for old-style pages/ apps is a property of the server process; ui/entry.py turns it
    # off (through ui/streamlit_private.py) so that deep links run through app.py (see its docstring). No
    # session's data is involved.
    "ui/streamlit_private.py: writes into imported, shared state: PagesManager.uses_pages_directory",
    # Streamlit's AppSession.request_rerun, wrapped once per process (ui/streamlit_private.py, item 13) so that a
    # timer's tick naming a page its session has left is dropped: the same rule for every session, no data.
    "ui/streamlit_private.py: writes into imported, shared state: AppSession.request_rerun",
    # Which lessons this server process has started warming (ui/warm.py): one entry per lesson, under a
    # lock; it holds threads, never a session's data, and is meant to be shared by every session.
    "ui/warm.py: constant '_STARTED' is mutated in place; every session would see the change",
}


def test_no_mutable_module_level_state_in_app_code():
    problems = [p for path in sources() for p in module_state_problems(path, per_run=path.parent.name == "pages")
                if re.sub(r"^([^:]+):\d+:", r"\1:", p) not in PROCESS_WIDE]
    assert not problems, "Mutable module-level state could leak between sessions:\n" + "\n".join(problems)


def test_the_module_state_check_catches_what_it_should(tmp_path):
    bad = tmp_path / "probe.py"
    bad.write_text("import palette\nseen = []\nCACHE = {}\nOK = (1, 2)\nFINE = {'a': 1}\n__all__ = ['f']\n"
                   "def f(x, acc=[]):\n    global seen\n    CACHE[x] = 1\n    palette.COLOURS.append(x)\n"
                   "    palette.Q = 'red'\n", encoding="utf-8")
    found = module_state_problems(bad)
    assert len(found) == 6, found
    assert any("palette.COLOURS" in p for p in found) and any("palette.Q" in p for p in found)
    assert any("mutable default" in p for p in found)
    as_page = module_state_problems(bad, per_run=True)
    assert not any("'seen'" in p or "CACHE" in p for p in as_page) and any("palette.Q" in p for p in as_page)
    assert any("'seen'" in p for p in found) and any("'CACHE' is mutated" in p for p in found)
    assert any("global seen" in p for p in found)


# --- Static: every cache is bounded -----------------------------------------------------------------

CACHE_NAMES = {"cache_data", "cache_resource"}
# Unbounded on purpose, one entry by construction: a function with no arguments caches one value.
# Each name must be a function without parameters (checked below), or the exemption does not apply.
LOAD_ONCE = {
    "load_model": "the lab's small BERT, loaded once per server and shared read-only by every session",
}


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def cache_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    problems = []
    decorated = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for dec in fn.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            name = _name(call.func if call else dec)
            if call:
                decorated.add(id(call))
            kwargs = {k.arg: k.value for k in call.keywords} if call else {}
            params = fn.args.args + fn.args.posonlyargs + fn.args.kwonlyargs
            no_args = not params and not fn.args.vararg and not fn.args.kwarg
            if name in CACHE_NAMES and not ({"max_entries", "ttl"} & set(kwargs)):
                if fn.name in LOAD_ONCE and no_args:
                    continue
                problems.append(f"{rel}:{dec.lineno}: @{name} on {fn.name}() has neither max_entries nor ttl"
                                + (" (and takes arguments, so LOAD_ONCE does not apply)" if fn.name in LOAD_ONCE
                                   else ""))
            maxsize = kwargs.get("maxsize", call.args[0] if call and call.args else ast.Constant(128))
            unbounded = name == "cache" or (name == "lru_cache" and isinstance(maxsize, ast.Constant)
                                            and maxsize.value is None)
            if unbounded and not no_args:
                problems.append(f"{rel}:{dec.lineno}: functools {name} on {fn.name}() is unbounded")
    for node in ast.walk(tree):                               # st.cache_data(fn, ...) used as a call
        if isinstance(node, ast.Call) and _name(node.func) in CACHE_NAMES and id(node) not in decorated \
                and not ({"max_entries", "ttl"} & {k.arg for k in node.keywords}):
            if node.args or node.keywords:
                problems.append(f"{rel}:{node.lineno}: {_name(node.func)}(...) has neither max_entries nor ttl")
    return problems


def test_every_cache_is_bounded():
    problems = [p for path in repo_sources() for p in cache_problems(path)]
    assert not problems, "Unbounded caches grow with every learner's input:\n" + "\n".join(problems)


def test_the_cache_check_catches_what_it_should(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import streamlit as st\nimport functools\n"
        "@st.cache_data\ndef a(x): return x\n"
        "@st.cache_data(max_entries=8)\ndef b(x): return x\n"
        "@st.cache_resource\ndef load_model(): return 1\n"
        "@st.cache_resource\ndef load_model2(): return 1\n"
        "@functools.lru_cache(maxsize=None)\ndef c(x): return x\n"
        "@st.cache_resource(ttl=60)\ndef d(x): return x\n", encoding="utf-8")
    found = cache_problems(probe)
    assert [p.split(": ", 1)[1].split(" ")[0] for p in found] == ["@cache_data", "@cache_resource", "functools"], found

"""The contract between pages, lesson files and widget keys, read from the pages' source.

Both ways: every id a page asks the frame for exists in its lesson file, and every check, prediction,
note and exercise in a lesson file is asked by its page; the ``{fields}`` of each text are exactly
the values the page passes; every lesson control carries its page's prefix and no key is used twice; and
every lesson control is made by ``frame.control`` (which keys it, binds it to the URL and disables it while
a student follows a class), every other prefixed key by ``frame.key``, so no page spells out its prefix.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from ui import controls
from ui.content import APP_DIR, Check, Lesson, fields, load_lesson, page_index

PAGES = APP_DIR / "pages"
LESSONS = [p.slug for p in page_index() if p.slug != "home"]
TABLES = {"note": "notes", "check": "checks", "predict": "predictions", "revealed": "predictions",
          "exercise": "exercises"}
FRAME_PARAMETERS = {"after", "options", "answer"}          # arguments of Frame's methods, not text values
AUTOMATIC = {"predict_options": {"answer", "picked"}, "exercise": {"answer", "guess"}}


@dataclass
class Ask:
    """One ``frame.<method>("id", ...)`` call in a page."""

    method: str
    item: str
    line: int
    values: set[str] = field(default_factory=set)
    splat: bool = False                                    # **values: names unknown from the source
    options: bool = False                                  # the page supplies the choices


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def asks(source: str) -> list[Ask]:
    """Every frame call with a literal id, each note read from the lesson text, and each prediction an
    ``after=`` waits for."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "notes"
                and _literal(node.slice) is not None):                     # frame.text.notes["name"]
            found.append(Ask("note", _literal(node.slice), node.lineno))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "frame"):
            continue
        kw = {k.arg for k in node.keywords if k.arg is not None}
        for k in node.keywords:
            if k.arg == "after" and isinstance(k.value, ast.Tuple):
                found += [Ask("revealed", _literal(e), node.lineno) for e in k.value.elts if _literal(e)]
        if node.func.attr in TABLES and node.args and _literal(node.args[0]) is not None:
            found.append(Ask(node.func.attr, _literal(node.args[0]), node.lineno, values=kw - FRAME_PARAMETERS,
                             splat=any(k.arg is None for k in node.keywords),
                             options="options" in kw or len(node.args) > 1))
    return found


def _key(value: ast.AST) -> tuple[str, bool] | None:
    """A ``key=`` argument read from the source: (the literal, True), or (an f-string's literal start, False)."""
    if _literal(value) is not None:
        return value.value, True
    if isinstance(value, ast.JoinedStr) and value.values and _literal(value.values[0]):
        return value.values[0].value, False
    return None


def _frame_call(node: ast.AST, method: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "frame")


def _derived(node: ast.Call, slug: str) -> tuple[str, bool] | None:
    """The key ``frame.control(widget, name, ...)`` or ``frame.key(name)`` makes (whole or its literal start)."""
    names = node.args[1:2] if _frame_call(node, "control") else node.args[:1] if _frame_call(node, "key") else []
    found = _key(names[0]) if names else None
    return (controls.page_key(slug, found[0]), found[1]) if found else None


def widget_keys(source: str, slug: str) -> list[tuple[str, int, bool]]:
    """(key, line, whole) for every key a page makes or passes: each ``frame.control``'s and ``frame.key``'s,
    and each ``key=`` argument; a literal, or the literal start of an f-string."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            keys = [_derived(node, slug)] + [_key(k.value) for k in node.keywords if k.arg == "key"]
            found += [(key[0], node.lineno, key[1]) for key in keys if key]
    return found


def _texts(entry: Check) -> list[str]:
    return [entry.prompt, entry.explanation, entry.right, entry.wrong,
            *[t for c in entry.choices for t in (c.text, c.feedback)]]


def _entry_fields(lesson: Lesson, ask: Ask) -> set[str]:
    if ask.method == "exercise":
        ex = lesson.exercises[ask.item]
        return set().union(*map(fields, (ex.prompt, ex.right, ex.wrong))) - AUTOMATIC["exercise"]
    entry = lesson.check(ask.item) if ask.method == "check" else lesson.predictions[ask.item]
    found = set().union(*map(fields, _texts(entry)))
    return found - AUTOMATIC["predict_options"] if ask.options else found


def contract_problems(lesson: Lesson, source: str) -> list[str]:
    """What breaks the contract between one page's source and its lesson file (empty when none does)."""
    tables = {"notes": set(lesson.notes), "checks": {c.id for c in lesson.checks},
              "predictions": set(lesson.predictions), "exercises": set(lesson.exercises)}
    page_asks = asks(source)
    problems = [f"line {a.line}: frame.{a.method}({a.item!r}) but the lesson file has no {TABLES[a.method]} "
                f"entry {a.item!r}" for a in page_asks if a.item not in tables[TABLES[a.method]]]
    for table, ids in tables.items():
        asked = {a.item for a in page_asks if TABLES[a.method] == table}
        problems += [f"{table} entry {i!r} is in the lesson file but no page asks for it" for i in sorted(ids - asked)]
    for a in page_asks:
        if a.method in ("note", "revealed") or a.item not in tables[TABLES[a.method]]:
            continue
        wanted = _entry_fields(lesson, a)
        if wanted - a.values and not a.splat:
            problems.append(f"line {a.line}: {a.item!r} has fields {sorted(wanted - a.values)} the page never fills")
        if a.values - wanted:
            problems.append(f"line {a.line}: {a.item!r} is passed {sorted(a.values - wanted)}, which its text "
                            "never uses")
    return problems


def _source(slug: str) -> str:
    return (PAGES / f"{slug}.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("slug", LESSONS)
def test_each_page_and_its_lesson_file_ask_for_each_other(slug):
    assert contract_problems(load_lesson(slug), _source(slug)) == []


def test_home_reads_only_notes_its_file_has_and_uses_them_all():
    source, notes = _source("home"), set(load_lesson("home").notes)
    read = {_literal(n.slice) for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "notes"}
    assert read == notes


def test_the_contract_finds_an_entry_no_page_asks_for_and_a_field_nobody_fills():
    slug = "scaled_formula"
    lesson, source = load_lesson(slug), _source(slug)
    orphan = dataclasses.replace(lesson.check("softmax_needed"), id="orphan")
    widened = dataclasses.replace(lesson, checks=(*lesson.checks, orphan),
                                  notes={**lesson.notes, "spare": "An unused note."})
    problems = contract_problems(widened, source)
    assert any("'orphan'" in p and "no page asks" in p for p in problems)
    assert any("'spare'" in p and "no page asks" in p for p in problems)
    check = lesson.check("softmax_needed")
    unfilled = dataclasses.replace(check, prompt=check.prompt + " {missing_value}")
    problems = contract_problems(dataclasses.replace(lesson, checks=(unfilled,)), source)
    assert any("missing_value" in p and "never fills" in p for p in problems)
    renamed = source.replace('frame.check("softmax_needed")', 'frame.check("softmax_gone")')
    assert any("'softmax_gone'" in p for p in contract_problems(lesson, renamed))


def test_every_lesson_has_its_own_key_prefix():
    assert set(controls.PREFIXES) == set(LESSONS)
    prefixes = list(controls.PREFIXES.values())
    assert len(set(prefixes)) == len(prefixes)
    assert not any(a != b and b.startswith(a + "_") for a in prefixes for b in prefixes)


@pytest.mark.parametrize("slug", LESSONS)
def test_every_widget_key_of_a_page_carries_its_prefix(slug):
    prefix = controls.PREFIXES[slug] + "_"
    for key, line, _ in widget_keys(_source(slug), slug):
        if controls.is_lesson_control(key):
            assert key.startswith(prefix), f"pages/{slug}.py line {line}: key {key!r} lacks the prefix {prefix!r}"
        else:
            assert key.startswith(("_", prefix)), f"pages/{slug}.py line {line}: private key {key!r}"


def test_no_widget_key_is_used_by_two_pages():
    owner: dict[str, str] = {}
    for slug in LESSONS:
        for key, _line, whole in widget_keys(_source(slug), slug):
            if whole:
                assert owner.setdefault(key, slug) == slug, f"{key!r} is used by {owner[key]} and {slug}"


def test_keys_made_by_the_frame_are_never_lesson_controls():
    made = [controls.prediction_key("sqrt_dk", "spread"), controls.revealed_key("sqrt_dk", "spread"),
            controls.check_key("sqrt_dk", "x"), controls.exercise_key("sqrt_dk", "x"), controls.step_key("sqrt_dk")]
    assert not any(controls.is_lesson_control(k) for k in made)
    assert len(set(made)) == len(made)
    assert all(controls.is_lesson_control(controls.control(s, "x")) for s in controls.PREFIXES)
    with pytest.raises(ValueError):
        controls.control("sqrt_dk", "_x")


def _inputs() -> set[str]:
    """The names of what a page can draw that takes both ``key=`` and ``disabled=``: Streamlit's inputs, ours."""
    import streamlit as st

    from ui import inputs

    names = set()
    for module in (st, inputs):
        for name in dir(module):
            try:
                parameters = inspect.signature(getattr(module, name)).parameters
            except (TypeError, ValueError):
                continue
            if {"key", "disabled"} <= set(parameters):
                names.add(name)
    return names


def _made_by_hand(node: ast.Call, inputs: set[str]) -> str | None:
    """Why an input call makes a lesson control itself rather than through ``frame.control``, or None."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    if name not in inputs:
        return None
    kw = {k.arg: k.value for k in node.keywords}
    key = kw.get("key")
    written = _key(key) if key is not None else None
    derived = isinstance(key, ast.Call) and ast.unparse(key.func) in DERIVERS
    if derived or (written and written[0] and controls.is_lesson_control(written[0])):
        return f"{name}(key={ast.unparse(key)})"
    for own in ("disabled", "bind"):
        if own in kw and (own == "bind" or "locked" in ast.unparse(kw[own])):
            return f"{name}({own}={ast.unparse(kw[own])})"
    return None


DERIVERS = {"frame.key", "controls.control", "controls.page_key"}      # what makes a page's prefixed key


def hand_made_controls(source: str) -> list[str]:
    """Inputs that key, lock or bind a lesson control themselves: only ``frame.control`` may (a key made by
    hand can miss the URL or the lock). Dicts of widget arguments that carry ``bind`` or ``disabled`` too."""
    inputs, found = _inputs(), []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (why := _made_by_hand(node, inputs)):
            found.append(f"line {node.lineno}: {why}")
        if isinstance(node, ast.Dict) and {"bind", "disabled"} & {_literal(k) for k in node.keys if k}:
            found.append(f"line {node.lineno}: a dict of widget arguments with bind or disabled")
    return found


def _spells_a_prefix(text: str) -> bool:
    """True for a key spelled out with any lesson's prefix, whatever goes before it ("sd_x", "_pl_ctx_cut",
    "__sd_x"); a lesson's slug itself is not a key ("kv_cache" starts with kv_)."""
    bare = text.lstrip("_")
    return text not in controls.PREFIXES and any(bare.startswith(p + "_") for p in controls.PREFIXES.values())


def _raw_keys(tree: ast.AST) -> list[ast.AST]:
    """String literals used as a session-state key or a widget key, whatever they spell: every key of a page
    comes from ``frame.key``, ``frame.control`` or ``ui.controls``, never typed by hand."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and "session_state" in ast.unparse(node.value) \
                and _literal(node.slice) is not None:
            found.append(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "pop", "setdefault") and "session_state" in ast.unparse(node.func.value) \
                and node.args and _literal(node.args[0]) is not None:
            found.append(node.args[0])
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) \
                and "session_state" in ast.unparse(node.comparators[-1]) and _literal(node.left) is not None:
            found.append(node.left)
        elif isinstance(node, ast.keyword) and node.arg == "key" and _literal(node.value) is not None:
            found.append(node.value)
    return found


def hand_typed_prefixes(source: str, slug: str) -> list[str]:
    """String literals (f-strings' literal parts too) that spell out a lesson's prefix, whatever comes before it
    (``"_pl_ctx_cut"``), and any literal used as a key: ``frame.key`` and ``ui.controls`` make them."""
    tree = ast.parse(source)
    found = {id(n): n for n in ast.walk(tree) if _spells_a_prefix(_literal(n) or "")}
    found.update({id(n): n for n in _raw_keys(tree)})
    return [f"line {node.lineno}: {node.value!r}"
            for node in sorted(found.values(), key=lambda n: (n.lineno, n.col_offset))]


@pytest.mark.parametrize("slug", LESSONS)
def test_every_lesson_control_is_made_by_frame_control(slug):
    assert not hand_made_controls(_source(slug))


@pytest.mark.parametrize("slug", LESSONS)
def test_no_page_spells_out_its_prefix(slug):
    assert not hand_typed_prefixes(_source(slug), slug)


def test_the_checks_find_a_control_made_by_hand_and_a_prefix_spelled_out():
    assert _inputs() >= {"slider", "toggle", "text_input", "multiselect", "pills", "matrix_input"}
    source = """
a = frame.control(st.slider, "x", "x", 0, 1)
b = cols[0].toggle("y", key=f"sd_y{n}")
c = matrix_input("M", M, key="_m", disabled=square or frame.locked)
d = st.slider("z", key="_private")
st.container(key="sd_box")
e = st.selectbox("w", W, key=frame.key("w"))
f = st.number_input("v", bind="query-params")
box = {"step": 0.5, "bind": "query-params"}
st.session_state["sd_x"] = f"sd_{name}"
chart(fig, key=frame.key("fig_x"))
"""
    assert hand_made_controls(source) == [
        "line 3: toggle(key=f'sd_y{n}')", "line 4: matrix_input(disabled=square or frame.locked)",
        "line 7: selectbox(key=frame.key('w'))", "line 8: number_input(bind='query-params')",
        "line 9: a dict of widget arguments with bind or disabled"]
    assert hand_typed_prefixes(source, "sqrt_dk") == [
        "line 3: 'sd_y'", "line 4: '_m'", "line 5: '_private'", "line 6: 'sd_box'", "line 10: 'sd_x'",
        "line 10: 'sd_'"]
    # Whatever comes before the prefix, whichever lesson's prefix it is, and any literal used as a key.
    assert hand_typed_prefixes("""
st.session_state["_pl_ctx_cut"] = True
over = st.session_state.pop("_pl_ctx_cut", False)
seen = "__qkv_q1" in names
if "flag" in st.session_state:
    st.container(key="box")
x = st.session_state.get("plain")
""", "sqrt_dk") == ["line 2: '_pl_ctx_cut'", "line 3: '_pl_ctx_cut'", "line 4: '__qkv_q1'", "line 5: 'flag'",
                    "line 6: 'box'", "line 7: 'plain'"]
    keys = [(k, whole) for k, _, whole in widget_keys(source, "sqrt_dk")]
    assert ("sd_x", True) in keys and ("sd_w", True) in keys and ("sd_fig_x", True) in keys


def test_old_link_names_map_onto_controls_of_their_own_page():
    for slug, names in controls.LEGACY_PARAMS.items():
        keys = {k for k, _, whole in widget_keys(_source(slug), slug) if whole}
        assert set(names.values()) <= keys, slug
        assert not set(names) & keys, f"{slug}: an old name is still a key"

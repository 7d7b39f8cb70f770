"""Streamlit's AppTest over the real app: open a page through the real navigation, read what it shows,
and find every widget a learner can set, what values are legal for it, what messages the page shows,
and which elements render raw HTML.

Shared by the page tests (the ``open_page`` fixture in tests/conftest.py is this module's ``open_page``),
the fuzz and isolation tests, devtools/inventory.py and benchmarks/soak_lab.py, so every page in
ui.content.page_index() is covered without naming its widgets.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

import attention_core as core

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@contextlib.contextmanager
def as_the_server():
    """AppTest as the server runs pages: each script compiled once, installed components found once, and
    every rerun through app.py.

    Three differences from a server, all patched here for the duration:
    - ``AppTest.run()`` makes a fresh ``ScriptCache`` every time, so each timed rerun would also read the page,
      rewrite it for magic commands and compile it (docs/PERFORMANCE.md gives the cost per page); a
      running server keeps one cache per process. Patched in both modules that make one.
    - ``AppTest.run()`` also forgets, before every run, that the app uses ``st.navigation``. With a ``pages/``
      folder beside app.py, Streamlit then takes the app for an old-style multipage app and runs the page on
      its own, after listing and resolving every file in ``pages/`` (the cost of app.py, paid elsewhere). A
      server remembers it for the life of the process once app.py has run (``ui.entry.use_navigation_only``),
      so every rerun there runs app.py and its ``st.navigation``, which is what is timed here.
    - Every new ``AppTest`` looks for components by reading the metadata of every installed package (about
      0.4 s here, three quarters of the page tests' time); a server does it once, when it starts. Here one
      registry, found on first use, serves every AppTest of the process.
    """
    import streamlit.testing.v1.app_test as app_test
    import streamlit.testing.v1.local_script_runner as runner
    from streamlit.components.v2.component_manager import BidiComponentManager
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    class NavigationRemembered(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False           # what app.py leaves a server process with
            super().__init__(*args, **kwargs)

    class FoundOnce(BidiComponentManager):
        def discover_and_register_components(self, *args, **kwargs) -> None:
            if not getattr(self, "_found", False):
                super().discover_and_register_components(*args, **kwargs)
                self._found = True

    shared, registry = ScriptCache(), FoundOnce()
    saved = app_test.ScriptCache, runner.ScriptCache, app_test.PagesManager, app_test.BidiComponentManager
    app_test.ScriptCache = runner.ScriptCache = lambda: shared
    app_test.PagesManager = NavigationRemembered
    app_test.BidiComponentManager = lambda: registry
    try:
        yield
    finally:
        app_test.ScriptCache, runner.ScriptCache, app_test.PagesManager, app_test.BidiComponentManager = saved


def open_page(slug: str, /, check: bool = True, **params: str | list[str]) -> AppTest:
    """A fresh session that has run app.py and then the page ``slug``, with ``params`` as the URL's query.

    With ``check`` it fails at once if either run raised; the fuzz and isolation tests, and the scripts
    that walk every page, pass ``check=False`` and look at the exceptions themselves."""
    at = AppTest.from_file(APP, default_timeout=60)
    if "present" in params:                                # presenter mode is read when the session starts
        at.query_params["present"] = params["present"]
    at.run()
    assert not (check and at.exception), [e.value for e in at.exception]
    if slug != "home":
        for name, value in params.items():
            at.query_params[name] = value
        at.switch_page(f"pages/{slug}.py").run()
        assert not (check and at.exception), [e.value for e in at.exception]
    return at


def fresh(**params) -> AppTest:
    """A new session on the home page, with ``params`` in its URL from the start (a shared link)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def start_class(**params) -> tuple[AppTest, str, str]:
    """A presenter's session that pressed "Start a class": (session, room code, presenter key)."""
    at = fresh(**params)
    at.sidebar.button(key="_class_start").click().run()
    assert not at.exception
    return at, class_state(at).code, class_state(at).key


def class_state(at: AppTest):
    """The session's classroom state (``ui.classroom.ClassState``): a fresh one if it never met the classroom."""
    from ui.classroom.session import STATE_KEY, ClassState

    return at.session_state[STATE_KEY] if STATE_KEY in at.session_state else ClassState()


def texts(at: AppTest) -> str:
    """Everything a learner can read on the page, as one string, for assertions about what it says."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in (at.success, at.error, at.warning, at.info) for e in kind]
    parts += [str(x.value) for x in at.latex]
    return "\n".join(str(p) for p in parts)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def metric(at: AppTest, label: str) -> float:
    """The number a metric shows (its leading number: "0.4177 nats" → 0.4177, "2.95 × 10⁻⁵" → 2.95e-05)."""
    return leading_number(metrics(at)[label])


def leading_number(text: str) -> float:
    """The number ``text`` starts with, plain or as ui.numbers writes it ("2.95 × 10⁻⁵" → 2.95e-05)."""
    shown = re.match(r"([-+0-9.e]+)(?: × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?", text)
    mantissa, power = shown.groups()
    # Read as one literal, which stays exact at 5 × 10⁻³²⁴ (where m * 10.0 ** n underflows to 0).
    return float(mantissa if power is None else f"{mantissa}e{power.translate(_SUPERSCRIPT)}")


def answer(at: AppTest, key: str, text_start: str) -> AppTest:
    """Pick the option of radio ``key`` that starts with ``text_start``, and rerun."""
    radio = at.radio(key=key)
    radio.set_value(next(o for o in radio.options if o.startswith(text_start))).run()
    return at


def decoded(value):
    """Plotly sends numeric arrays as {"dtype", "bdata" (base64), "shape"}; lists and strings as they are."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    if isinstance(value, dict):
        return {k: decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


def figure(at, key: str) -> dict:
    """The plotly figure of the chart with this key, arrays decoded."""
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return decoded(json.loads(el.proto.spec))
    raise AssertionError(f"no chart {key}: {[el.proto.id for el in at.get('plotly_chart')]}")


def reveal(at: AppTest, slug: str, *prediction_ids: str) -> AppTest:
    """Answer (with the first option) and reveal the named predictions, or every one on the page: the
    trap and the check wait until then."""
    from ui import controls
    from ui.content import load_lesson

    for pid in prediction_ids or load_lesson(slug).predictions:
        key = controls.prediction_key(slug, pid)
        radio = next((r for r in at.radio if r.key == key), None)
        if radio is None or not any(b.key == f"{key}__button" for b in at.button):      # absent or revealed
            continue
        radio.set_value(radio.options[0]).run()
        at.button(key=f"{key}__button").click().run()
    return at


# --- Every widget of a page, found generically (the fuzz and isolation tests, the input inventory) ---

# Kinds a learner types into; every other widget picks from a fixed set or a bounded range.
TEXT_KINDS = ("text_input", "text_area", "chat_input")
CHOICE_KINDS = ("selectbox", "radio", "multiselect", "select_slider", "pills", "segmented_control")

LONG_TEXT = ("attention " * 1000)[:10_000]
HUGE_MATRIX = "\n".join([", ".join(["1"] * 64)] * 64)           # 64×64, about 12,000 characters
TALL_MATRIX = "\n".join(["1, 0, 1, 0"] * 40)                     # 40 rows, short enough to be read
HOSTILE_TEXT: dict[str, str] = {
    "empty": "",
    "whitespace": " \t\n  ",
    "10,000 characters": LONG_TEXT,
    "script tag": "<script>alert(1)</script>",
    "template": "{{7*7}}",
    "NaN": "NaN",
    "inf": "inf",
    "-inf": "-inf",
    "-0": "-0",
    "1e308": "1e308",
    "overflowing row": "1e308, 1e308, 1e308, 1e308",
    "right-to-left": "مرحبا بالعالم שלום עולם",
    "emoji": "🤖🧠✨ attention 👀",
    "NUL byte": "a\x00b",
    "wrong shape": "1,2\n3",
    "huge matrix": HUGE_MATRIX,
    "tall matrix": TALL_MATRIX,
    "html in a matrix": "1, 0, <b>1</b>, 0",
}
HOSTILE_NUMBERS: dict[str, float] = {
    "NaN": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0, "1e308": 1e308, "-1e308": -1e308,
}
# Substrings that must never reach an element rendering raw HTML.
MARKERS = ("alert(1)", "<b>1</b>")       # the presenter's own static <script> is allowed


@dataclass(frozen=True)
class WidgetInfo:
    kind: str
    key: str | None
    label: str
    value: Any
    min: Any = None
    max: Any = None
    step: Any = None
    options: tuple[str, ...] = ()
    max_chars: int | None = None
    max_selections: int | None = None
    accept_new_options: bool = False
    disabled: bool = False
    where: str = "main"

    @property
    def is_matrix(self) -> bool:
        """A text field whose default reads as a matrix: parse_matrix is the oracle for what it refuses."""
        return self.kind in TEXT_KINDS and bool(self.value) and refuses(self.value) is None


def refuses(text: str) -> str | None:
    """The message parse_matrix gives for ``text``, or None when it reads as a matrix."""
    try:
        core.parse_matrix(text, "x")
    except ValueError as err:
        return str(err)
    return None


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def widget_nodes(at: AppTest) -> list:
    """Every widget element in the tree (main area and sidebar), in page order."""
    return [n for n in _walk(at._tree) if isinstance(n, Widget)]


def _where(at: AppTest, node) -> str:
    return "sidebar" if any(node is n for n in _walk(at.sidebar)) else "main"


def describe(at: AppTest, node) -> WidgetInfo:
    proto = node.proto
    fields = {f.name for f in proto.DESCRIPTOR.fields}
    kind = node.type
    options = tuple(str(o) for o in getattr(node, "options", ()) or ())
    lo = hi = step = None
    if kind in ("slider", "number_input"):
        lo, hi, step = getattr(node, "min", None), getattr(node, "max", None), getattr(node, "step", None)
        if kind == "number_input":
            lo = lo if proto.has_min else None
            hi = hi if proto.has_max else None
    value = node.value if kind not in ("button", "form_submit_button", "download_button") else None
    return WidgetInfo(
        kind=kind, key=node.key, label=str(getattr(node, "label", "")), value=value, min=lo, max=hi, step=step,
        options=options, max_chars=(proto.max_chars or None) if "max_chars" in fields else None,
        max_selections=(proto.max_selections or None) if "max_selections" in fields else None,
        accept_new_options=bool(getattr(proto, "accept_new_options", False)),
        disabled=bool(getattr(proto, "disabled", False)), where=_where(at, node),
    )


def widgets(at: AppTest) -> list[tuple[Any, WidgetInfo]]:
    return [(n, describe(at, n)) for n in widget_nodes(at)]


def messages(at: AppTest, kinds: tuple[str, ...] = ("error", "warning")) -> list[str]:
    return [str(e.value) for kind in kinds for e in getattr(at, kind)]


def unsafe_html_bodies(at: AppTest) -> list[str]:
    """The text of every element that renders raw HTML: markdown with allow_html, and st.html."""
    bodies = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or not hasattr(proto, "DESCRIPTOR"):
            continue
        fields = {f.name for f in proto.DESCRIPTOR.fields}
        if getattr(node, "type", "") == "html" or any(
                getattr(proto, f, False) is True for f in ("allow_html", "unsafe_allow_html") if f in fields):
            bodies.append(str(getattr(proto, "body", "")))
    return bodies


def app_html_constants() -> frozenset[str]:
    """Every module-level string of the app's ``ui`` package that is HTML (a style or a script), stripped: what
    st.html may render (tests/test_safety_static.py checks that it renders nothing else)."""
    import importlib
    import pkgutil

    import ui

    found = set()
    for info in pkgutil.walk_packages(ui.__path__, "ui."):
        module = importlib.import_module(info.name)
        found |= {v.strip() for v in vars(module).values() if isinstance(v, str) and v.lstrip().startswith("<")}
    return frozenset(found)


def user_text_in_unsafe_html(at: AppTest, typed: list[str]) -> list[str]:
    """Typed text (or a hostile marker) found inside an element that renders raw HTML. The app's own constant
    styles are not typed text, whatever words they share with it (the CSS says "height")."""
    found = []
    needles = [t for t in typed if len(t.strip()) >= 6] + list(MARKERS)
    constants = app_html_constants()
    for body in unsafe_html_bodies(at):
        if body.strip() not in constants:
            found += [n[:40] for n in needles if n in body]
    return found


def feedback_follows_the_marked_answer(at: AppTest, slug: str, check_id: str) -> None:
    """Pick each option of a check in turn: exactly the one the lesson file marks right gives success, every
    other one an error. Judged by the file's mark, not by wording, which is the teachers' to edit."""
    from ui import controls
    from ui.content import load_lesson

    check = load_lesson(slug).check(check_id)
    key = controls.check_key(slug, check_id)
    options = at.radio(key=key).options
    assert len(options) == len(check.choices)
    base = len(at.success), len(at.error)                 # feedback already on the page (a revealed prediction)
    for i, option in enumerate(options):
        at.radio(key=key).set_value(option).run()
        right = check.choices[i].correct
        assert (len(at.success) - base[0], len(at.error) - base[1]) == ((1, 0) if right else (0, 1)), option


def choose(at: AppTest, slug: str, kind: str, item: str, right: bool = True) -> AppTest:
    """Pick, in the radio of a prediction (``kind="predict"``) or a check, the option the lesson file marks
    right, or with ``right=False`` the first it marks wrong; rerun. By the file's mark, not by wording."""
    from ui import controls
    from ui.content import load_lesson

    lesson = load_lesson(slug)
    entry = lesson.predictions[item] if kind == "predict" else lesson.check(item)
    index = entry.answer if right else next(i for i, c in enumerate(entry.choices) if not c.correct)
    key = controls.prediction_key(slug, item) if kind == "predict" else controls.check_key(slug, item)
    radio = at.radio(key=key)
    radio.set_value(radio.options[index]).run()
    return at

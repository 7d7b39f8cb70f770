"""Fuzzing: every page, every widget, random legal values and hostile ones.

Widgets are discovered from each page's AppTest tree (devtools/apptest.py), and pages come from
ui.content.page_index(), so a page that lands later is fuzzed without edits here.

Each case is one rerun after setting one widget. Every case must end with no exception and with no
typed text inside an element that renders raw HTML. Where the input was refused, the page must say
so: a matrix field (its default reads as a matrix) must show a new error or warning whenever
attention_core.parse_matrix refuses the text; a free-text field must show a message when it is
empty or blank, and when it is 10,000 characters long unless the widget itself caps its length.

A NumPy RuntimeWarning (overflow, invalid value) is turned into an error: it means a value got past
validation into the maths.

Number inputs get NaN, ±inf, -0 and ±1e308. A browser cannot type NaN or inf, and it clamps values
to min/max before they reach the server, so values outside min/max are not sent here.

The cases are counted per page, written to artifacts/fuzz/<slug>.<worker>.json, and summed into
artifacts/fuzz_report.json with one line printed at the end of the run (see tests/conftest.py).
Set FUZZ_EXAMPLES to run more random examples per page (default 8, 3 steps each).
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as hs
from streamlit.testing.v1.errors import AppTestError

from devtools.apptest import (
    CHOICE_KINDS,
    HOSTILE_NUMBERS,
    HOSTILE_TEXT,
    HUGE_MATRIX,
    ROOT,
    TEXT_KINDS,
    WidgetInfo,
    messages,
    open_page,
    refuses,
    user_text_in_unsafe_html,
    widgets,
)
from ui.content import page_index

# A NumPy overflow or invalid-value warning means a value got past validation into the maths.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SLUGS = [p.slug for p in page_index()]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
STEPS = 3
REPORT_DIR = ROOT / "artifacts" / "fuzz"
BUTTONS = ("button", "form_submit_button")
SETTABLE = (*TEXT_KINDS, *CHOICE_KINDS, *BUTTONS, "slider", "toggle", "checkbox", "number_input")

COUNTS: dict[str, dict[str, int]] = {}                   # test-only tally; never imported by the app


def count(slug: str, what: str, n: int = 1) -> None:
    page = COUNTS.setdefault(slug, {"hostile": 0, "random": 0, "url": 0, "examples": 0, "fresh_sessions": 0})
    page[what] += n
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")     # each worker keeps its own file; conftest sums them
    (REPORT_DIR / f"{slug}.{worker}.json").write_text(json.dumps(page), encoding="utf-8")


class Session:
    """One AppTest per page, reset between examples instead of rebuilt (reruns are cheaper than opens)."""

    def __init__(self, slug: str):
        self.slug = slug
        self.open()

    def open(self) -> None:
        self.at = open_page(self.slug, check=False)
        assert not self.at.exception, f"{self.slug} fails on opening: {self.at.exception}"
        count(self.slug, "fresh_sessions")
        self.defaults = self.fingerprint()
        self.offered = self.candidates()
        self.keys = set(self.at.session_state.keys())
        widget_keys = {i.key for _, i in widgets(self.at) if i.key}
        self.state = {k: copy.deepcopy(self.at.session_state[k]) for k in self.keys - widget_keys}
        self.progress = copy.deepcopy(self.at.session_state.get("_progress"))
        self.baseline = set(messages(self.at, ("error", "warning", "info")))
        self.log: list[str] = []

    def fingerprint(self) -> dict:
        return {(i.kind, i.key): i.value for _, i in widgets(self.at) if i.key and i.kind not in BUTTONS}

    def candidates(self) -> list[tuple]:
        """Every widget an example may pick, as the page offers it: kind, key or label, and whether it is
        disabled. A reset must bring back exactly these, or hypothesis, replaying an example, meets another
        page (FlakyStrategyDefinition: a reveal left three more controls enabled on positional_encoding)."""
        return [(i.kind, i.key or i.label, i.disabled) for _, i in widgets(self.at)]

    def reset(self) -> None:
        """Back to the page as first opened; if any trace of the last example survives, open afresh."""
        try:
            self._soft_reset()
        except (KeyError, ValueError, AssertionError, AppTestError):
            # A widget the defaults never saw, or one the last example left disabled (projection's q angle
            # while q is locked square to k; AppTest refuses to set it): start clean.
            self.open()
        self.log = []

    def _soft_reset(self) -> None:
        at = self.at
        for node, info in widgets(at):
            default = self.defaults.get((info.kind, info.key), info.value)
            if info.key and info.kind not in BUTTONS and info.value != default:
                node.set_value(default)
        for key in set(at.session_state.keys()) - self.keys:
            del at.session_state[key]
        for key, value in self.state.items():            # a step, a mode, a held answer: as first opened
            at.session_state[key] = copy.deepcopy(value)
        if self.progress is not None:
            at.session_state["_progress"] = copy.deepcopy(self.progress)
        for name in list(at.query_params):
            del at.query_params[name]
        at.run()
        if at.exception or self.fingerprint() != self.defaults or self.candidates() != self.offered \
                or set(at.session_state.keys()) != self.keys \
                or set(messages(at, ("error", "warning", "info"))) != self.baseline:
            self.open()

    def where(self) -> str:
        return f"{self.slug} after: " + " → ".join(self.log[-6:])


SESSIONS: dict[str, Session] = {}


def session(slug: str) -> Session:
    if slug not in SESSIONS:
        SESSIONS[slug] = Session(slug)
    return SESSIONS[slug]


def settle(s: Session, info: WidgetInfo, value, label: str) -> None:
    """Run the page after one widget was set, and check what every case must satisfy."""
    at = s.at
    s.log.append(f"{info.kind} {info.key or info.label!r} = {label}")
    at.run()
    assert not at.exception, f"{s.where()}: {at.exception}"
    typed = [v for (kind, _), v in s.fingerprint().items() if kind in TEXT_KINDS and isinstance(v, str)]
    leaked = user_text_in_unsafe_html(at, typed)
    assert not leaked, f"{s.where()}: typed text rendered as raw HTML: {leaked}"
    if info.kind not in TEXT_KINDS or not isinstance(value, str):
        return
    new = [m for m in messages(at, ("error", "warning", "info")) if m not in s.baseline]
    alarms = [m for m in messages(at) if m not in s.baseline]
    if info.is_matrix and refuses(value) is not None:
        assert alarms, f"{s.where()}: {info.label!r} refused {value[:40]!r} ({refuses(value)}) without a message"
    elif not info.is_matrix and not value.strip() and value != info.value \
            and str(s.defaults.get((info.kind, info.key)) or "").strip():
        # (a blank field left blank, such as "Join a class" before anything is typed, changed nothing; and a
        # field that opens blank, such as the glossary's search, is back where it started, refusing nothing)
        assert new, f"{s.where()}: {info.label!r} is blank and the page says nothing"
    elif not info.is_matrix and len(value) >= 10_000 and info.max_chars is None:
        assert alarms, f"{s.where()}: {info.label!r} took 10,000 characters without a message"


def hostile_numbers(node) -> dict[str, float]:
    """NaN, ±inf, -0 and ±1e308 for a float input. An integer input can only ever hold an integer (the
    browser sends none of those, and Streamlit's own int conversion is not ours to test): its extremes."""
    if node.proto.data_type != node.proto.INT:
        return HOSTILE_NUMBERS
    lo = int(node.proto.min) if node.proto.has_min else -(2**53)
    hi = int(node.proto.max) if node.proto.has_max else 2**53
    return {"min": lo, "max": hi, "-0": 0}


def find(s: Session, kind: str, key: str | None, label: str):
    for node, info in widgets(s.at):
        if info.kind == kind and info.key == key and info.label == label:
            return node, info
    return None, None


@pytest.mark.parametrize("slug", SLUGS)
def test_every_text_and_number_field_survives_every_hostile_value(slug):
    s = session(slug)
    s.reset()
    targets = [(i.kind, i.key, i.label) for _, i in widgets(s.at) if i.kind in (*TEXT_KINDS, "number_input")]
    for kind, key, label in targets:
        node, _ = find(s, kind, key, label)
        hostile = HOSTILE_TEXT if kind in TEXT_KINDS else hostile_numbers(node)
        for name, value in hostile.items():
            node, info = find(s, kind, key, label)
            if node is None or info.disabled:
                break                                       # the field went away with an earlier value
            node.set_value(value)
            # Whether a field is a matrix field is read from its default, not from the hostile value an
            # earlier case left in it ("-0" reads as a matrix; a sentence box holding it is still a sentence box).
            settle(s, replace(info, value=s.defaults.get((kind, key), info.value)), value, name)
            count(slug, "hostile")
        s.reset()


@pytest.mark.parametrize("slug", SLUGS)
def test_hostile_links_never_crash_or_inject(slug):
    """The same values arriving in a link: every keyed widget's query parameter set at once."""
    # "room" and "key": the live classroom's link parameters get the same values (tests/test_classroom_app.py
    # checks that such a code is refused before any lookup).
    keys = [i.key for _, i in widgets(session(slug).at) if i.key and i.kind not in BUTTONS] + ["present", "room",
                                                                                                "key"]
    links = {"script tag": HOSTILE_TEXT["script tag"], "huge matrix": HUGE_MATRIX,   # opening is the costly part:
             "NUL, right-to-left and NaN": "1, NaN\x00\n" + HOSTILE_TEXT["right-to-left"]}  # three links per page
    for name, value in links.items():
        at = open_page(slug, check=False, **dict.fromkeys(keys, value))
        assert not at.exception, f"{slug} with every parameter = {name}: {at.exception}"
        assert not user_text_in_unsafe_html(at, [value]), f"{slug}: {name} from a link rendered as HTML"
        count(slug, "url")


def matrix_text(default: str):
    """A matrix shaped like the default (or, now and then, any small shape), written as a learner would."""
    rows = [r for r in default.splitlines() if r.strip()]
    shape = hs.just((len(rows), len(rows[0].split(",")))) if rows else hs.just((1, 1))
    shape = hs.one_of(shape, shape, shape, hs.tuples(hs.integers(1, 4), hs.integers(1, 5)))
    entry = hs.one_of(hs.integers(-9, 9).map(str), hs.floats(-100, 100, allow_nan=False).map(lambda x: f"{x:.3g}"))
    return shape.flatmap(lambda rc: hs.lists(hs.lists(entry, min_size=rc[1], max_size=rc[1]),
                                             min_size=rc[0], max_size=rc[0])
                         ).map(lambda m: "\n".join(", ".join(r) for r in m))


def legal(info: WidgetInfo, node):
    """A strategy for a value the browser itself could send this widget (None: nothing to set)."""
    k = info.kind
    if k in ("toggle", "checkbox"):
        return hs.booleans()
    if k in BUTTONS:
        return None if info.disabled else hs.just("click")
    if k in ("selectbox", "radio", "pills", "segmented_control"):
        return hs.integers(0, len(info.options) - 1) if info.options else None
    if k == "multiselect":
        return hs.lists(hs.integers(0, len(info.options) - 1), unique=True) if info.options else None
    if k == "select_slider":
        n = len(info.options)
        if isinstance(info.value, tuple | list):
            return hs.tuples(hs.integers(0, n - 1), hs.integers(0, n - 1)).map(sorted)
        return hs.integers(0, n - 1)
    if k == "slider":
        if not isinstance(info.min, int | float) or not isinstance(info.step, int | float) or not info.step:
            return None                                     # date and time sliders: not fuzzed
        n = round((info.max - info.min) / info.step)
        to_value = (lambda i: info.min + i * info.step) if isinstance(info.value, int) and isinstance(info.step, int) \
            else (lambda i: min(round(info.min + i * info.step, 12), info.max))
        if isinstance(info.value, tuple | list):
            return hs.tuples(hs.integers(0, n), hs.integers(0, n)).map(lambda p: tuple(to_value(i) for i in sorted(p)))
        return hs.integers(0, n).map(to_value)
    if k == "number_input":
        lo = info.min if info.min is not None else -1e3
        hi = info.max if info.max is not None else 1e3
        if node.proto.data_type == node.proto.INT:
            return hs.integers(int(lo), int(hi))
        return hs.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if k in TEXT_KINDS:
        free = hs.text(max_size=120) if info.max_chars is None else hs.text(max_size=info.max_chars)
        return matrix_text(info.value) if info.is_matrix else free
    return None


def apply(node, info: WidgetInfo, drawn):
    """Set the widget from a drawn value; returns what was set (for the log)."""
    if info.kind in BUTTONS:
        node.click()
        return "click"
    if info.kind in ("selectbox", "radio", "pills", "segmented_control"):
        value = node.options[drawn]
        node.set_value(value) if info.kind != "selectbox" else node.select_index(drawn)
        return value
    if info.kind == "multiselect":
        value = [node.options[i] for i in drawn]
        node.set_value(value)
        return value
    if info.kind == "select_slider":
        value = [node.options[i] for i in drawn] if isinstance(drawn, list) else node.options[drawn]
        node.set_range(*value) if isinstance(value, list) else node.set_value(value)
        return value
    if info.kind == "slider" and isinstance(drawn, tuple):
        node.set_range(*drawn)
        return drawn
    node.set_value(drawn)
    return drawn


def _random_case(slug: str, data) -> None:
    s = session(slug)
    s.reset()
    count(slug, "examples")
    for _ in range(data.draw(hs.integers(1, STEPS), label="steps")):
        candidates = [(n, i) for n, i in widgets(s.at) if i.kind in SETTABLE and not i.disabled]
        candidates = [(n, i, st) for n, i in candidates if (st := legal(i, n)) is not None]
        if not candidates:
            return
        node, info, strategy = candidates[data.draw(hs.integers(0, len(candidates) - 1), label="widget")]
        if info.kind in TEXT_KINDS and data.draw(hs.booleans(), label="hostile"):
            name = data.draw(hs.sampled_from(sorted(HOSTILE_TEXT)), label="hostile value")
            value, shown = HOSTILE_TEXT[name], name
        elif info.kind == "number_input" and data.draw(hs.integers(0, 3), label="hostile") == 0:
            numbers = hostile_numbers(node)
            name = data.draw(hs.sampled_from(sorted(numbers)), label="hostile value")
            value, shown = numbers[name], name
        else:
            value = shown = data.draw(strategy, label=f"{info.kind} {info.key}")
        if info.kind in (*TEXT_KINDS, "number_input"):
            node.set_value(value)
        else:
            value = shown = apply(node, info, value)
        settle(s, info, value, repr(shown)[:40])
        count(slug, "random")


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=hs.data())
def test_random_legal_and_hostile_settings_never_break_a_page(slug, data):
    _random_case(slug, data)


def _html_script():
    import streamlit as st

    from ui.present import SITE_CSS

    st.html(SITE_CSS)                                      # the app's own constant style: says "height"
    st.html("<p>" + "typed by a learner" + "</p>")          # built from text: what the check is for


def test_the_raw_html_check_finds_typed_text_but_not_the_apps_own_styles():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_html_script).run()
    assert user_text_in_unsafe_html(at, ["typed by a learner"]) == ["typed by a learner"]
    assert user_text_in_unsafe_html(at, ["height"]) == []

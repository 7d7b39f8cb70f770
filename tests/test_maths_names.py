"""Maths names render as maths: no page shows W_Q, d_model or b_f with a raw underscore.

Markdown (text, captions, labels, help, options) writes them as inline KaTeX ($W_Q$, $d_{\\text{model}}$);
charts write W<sub>Q</sub> (tests/test_figures_readable.py checks those). A choice of a question writes
none: it also lands in the class poll's chart and in a Markdown-escaped "The answer: …" line, where
neither KaTeX nor <sub> would render, so it says the name in words ("the value matrix").
"""

from __future__ import annotations

import re
import tomllib

import pytest

from devtools.apptest import reveal
from ui.content import LESSONS_DIR, fields, load_lesson, page_index

SLUGS = [p.slug for p in page_index()]
RAW = re.compile(r"\b[A-Za-z]+_[A-Za-z{0-9]\w*")
# What may hold an underscore without showing one: maths ($…$, $$…$$), code spans, link targets, and a
# lesson file's {fields} (the page puts a number there).
_HIDDEN = [re.compile(r"\$\$.*?\$\$", re.S), re.compile(r"(?<!\\)\$[^$]*?(?<!\\)\$"), re.compile(r"`[^`]*`"),
           re.compile(r"\]\([^)]*\)")]
# States the defaults do not show: another way to choose the weights, W_O mixing the heads.
EXTRA_STATES = {"learned_projections": [("radio", "lp_mode", 1), ("radio", "lp_mode", 2)],
                "multi_head": [("toggle", "mh_mix", True)]}


def raw_names(text: str) -> list[str]:
    for pattern in _HIDDEN:
        text = pattern.sub(" ", text)
    return RAW.findall(text)


def shown_strings(at) -> list[tuple[str, str]]:
    """(where, text) for every string the page renders as Markdown: text, headings, captions, alerts,
    expander and tab labels, metric labels, and each widget's label, help and options."""
    out = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "success", "error", "warning", "info"):
        out += [(kind, str(e.value)) for e in getattr(at, kind)]
    out += [("expander", e.proto.label) for e in at.get("expandable")]
    out += [("tab", t.label) for t in at.tabs]
    out += [("metric", m.label) for m in at.metric]
    for kind in ("radio", "selectbox", "slider", "select_slider", "number_input", "text_input", "text_area",
                 "toggle", "checkbox", "button", "multiselect"):
        for w in getattr(at, kind):
            out += [(f"{kind} label", str(w.label or "")), (f"{kind} help", str(getattr(w, "help", "") or ""))]
            out += [(f"{kind} option", str(o)) for o in (getattr(w, "options", None) or [])]
    return [(where, text) for where, text in out if text]


def test_the_pattern_finds_raw_names_and_passes_rendered_ones():
    assert raw_names("Edit head 1's columns of W_V, then d_model / H") == ["W_V", "d_model"]
    assert raw_names("LSTM forget-gate bias b_f") == ["b_f"]
    assert not raw_names(r"$W_Q^\top W_K$ has rank at most dₖ; $d_{\text{model}}$ = 8; `scaled_dot`; [x](./a_b)")


@pytest.mark.parametrize("slug", SLUGS)
def test_no_page_shows_a_raw_underscore_in_its_text_labels_or_options(open_page, slug):
    states = [[]] + [[step] for step in EXTRA_STATES.get(slug, [])]
    raw = []
    for settings in states:
        at = open_page(slug)
        if slug != "home":
            reveal(at, slug)                               # some controls sit behind a prediction
        for kind, key, value in settings:
            widget = getattr(at, kind)(key=key)
            widget.set_value(widget.options[value] if kind == "radio" else value).run()
        if slug != "home":
            reveal(at, slug)
        raw += [(settings, where, text[:90]) for where, text in shown_strings(at) if raw_names(text)]
    assert not raw, raw


def _strings(node, path=""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in ("id", "icon", "slug", "lessons", "gives_away"):   # names of parts, never shown as text
                yield from _strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{path}[{i}]")
    elif isinstance(node, str):
        yield path, node


def test_no_lesson_file_writes_a_raw_underscore_outside_maths_code_or_a_field():
    """Every lesson string, including the ones only some states show (feedback, other branches)."""
    raw = []
    for path in sorted(LESSONS_DIR.glob("*.toml")):
        for where, text in _strings(tomllib.loads(path.read_text(encoding="utf-8"))):
            names = "|".join(map(re.escape, fields(text))) or "(?!)"
            shown = re.sub(r"\{(" + names + r")(:[^{}]*)?\}", " ", text)
            if raw_names(shown):
                raw.append((path.name, where, raw_names(shown)))
    assert not raw, raw


def test_no_question_choice_holds_maths_markup():
    """A choice is also a bar's label in the class poll (Plotly) and is Markdown-escaped in "The answer:"."""
    marked = []
    for slug in SLUGS:
        lesson = load_lesson(slug)
        for check in [*lesson.checks, *lesson.predictions.values()]:
            marked += [(slug, check.id, c.text) for c in check.choices if "$" in c.text or raw_names(c.text)]
    assert not marked, marked

"""The first look: short (its prose counted), every move's result waits for its prediction, every move links to its
full lesson, and every control moves what its chart and caption show."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from devtools.apptest import _walk, figure, open_page, reveal, texts
from ui.content import LESSONS_DIR, load_lesson

SLUG = "first_look"
LESSON = load_lesson(SLUG)
# Each prediction and the chart its reveal shows.
GATES = {"same": "fl_fig_pass", "where": "fl_fig_words", "inside": "fl_fig_blend", "looks": "fl_fig_query",
         "snap": "fl_fig_scale", "heads": "fl_fig_heads", "reach": "fl_fig_reach"}
# Each move's one control, the chart it drives, and a value other than its default.
CONTROLS = {"fl_context": ("radio", "fl_fig_words", "money words"), "fl_river": ("slider", "fl_fig_blend", 1.0),
            "fl_want": ("radio", "fl_fig_query", "something that can be wide"),
            "fl_dk": ("slider", "fl_fig_scale", 1), "fl_head": ("radio", "fl_fig_heads", None),
            "fl_length": ("slider", "fl_fig_reach", 200)}
# The lessons the moves summarise, and the ones the formula's "where next" points to.
DEEPER = ("polysemy", "convex_blending", "queries_keys_values", "sqrt_dk", "multi_head", "rnn_vs_attention")
MAX_WORDS = 1500
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def words(text: str) -> int:
    return len(WORD.findall(text))


def strings(value, skip=("id", "speaker_notes", "answer_phrases", "gives_away")):
    """Every string of a parsed TOML value, but ids, the presenter's private speaker notes and the marks of what gives
    an answer away (never on the page)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in skip:
                yield from strings(item, skip)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, skip)


def charts(at) -> set[str]:
    return {el.proto.id for el in at.get("plotly_chart")}


def shown(at, key: str) -> bool:
    return any(key in chart for chart in charts(at))


@pytest.fixture(scope="module")
def revealed():
    return reveal(open_page(SLUG), SLUG)


def test_the_prose_in_the_lesson_file_is_at_most_1500_words():
    raw = tomllib.loads((LESSONS_DIR / f"{SLUG}.toml").read_text(encoding="utf-8"))
    total = sum(words(s) for s in strings(raw))
    assert 300 < total <= MAX_WORDS, total                              # 300: the count found the text


def test_the_prose_the_revealed_page_shows_is_at_most_1500_words(revealed):
    at = revealed
    check = next(r for r in at.radio if "__check__" in (r.key or ""))
    at.radio(key=check.key).set_value(check.options[0]).run()
    prose = [texts(at), *(h.value for h in at.subheader), *(h.value for h in at.title)]
    prose += [f"{r.label} {' '.join(map(str, r.options))}" for r in at.radio]
    prose += [s.label for s in at.slider]
    prose += [frame["layout"]["title"]["text"] for frame in figure(at, "fl_fig_pass")["frames"]]   # the captions
    total = sum(words(p.replace("<br>", " ")) for p in prose)
    assert 600 < total <= MAX_WORDS, total
    assert words(texts(open_page(SLUG))) < total                         # revealing showed more: it was counted


def read_until(at, chart: str) -> str:
    """What the page says, in page order, up to the chart with this key."""
    said = []
    for node in _walk(at.main):
        if node.type == "plotly_chart" and chart in node.proto.id:
            return "\n".join(said)
        value = getattr(node, "value", None) if node.type in ("markdown", "caption", "alert", "heading") else None
        if isinstance(value, str):
            said.append(value)
    raise AssertionError(f"no chart {chart}")


def data(at, chart: str) -> str:
    return json.dumps(figure(at, chart)["data"], default=lambda a: a.tolist())


def test_no_formula_before_the_animation_and_the_formula_once_at_the_end(revealed):
    before = read_until(revealed, "fl_fig_pass")
    assert LESSON.question in before and "Predict first" not in before     # the walk read the page's top
    assert not {"softmax", "√", "Kᵀ", "QK"} & set(re.findall(r"softmax|√|Kᵀ|QK", before)), before
    page = [m.value for m in revealed.markdown]
    formula = [m for m in page if "softmax(" in m.replace(" ", "")]
    assert len(formula) == 1, formula
    for anchor in ("#a-question-meets-labels", "#why-divide-by-dk", "#a-blend-stays-among-what-it-blends"):
        assert anchor in formula[0]                                       # each part points back to its move
    anchors = {h.proto.anchor for h in revealed.subheader}
    assert {"a-question-meets-labels", "why-divide-by-dk", "a-blend-stays-among-what-it-blends"} <= anchors


def test_at_least_six_predictions_each_gate_its_chart_and_reveal_it():
    assert len(LESSON.predictions) >= 7 and set(GATES) == set(LESSON.predictions)     # the pass's and six moves'
    at = open_page(SLUG)
    assert [c for c in charts(at) if "fl_fig_start" not in c] == [], "a chart showed before its prediction"
    assert shown(at, "fl_fig_start")                                  # where the sentences start: the question's set-up
    assert "“bank” the same row in both" in read_until(at, "fl_fig_start") + texts(at)
    for pid, key in GATES.items():
        assert not shown(at, key)
        reveal(at, SLUG, pid)
        assert shown(at, key), f"revealing {pid} did not show {key}"
        assert not shown(at, "fl_fig_start"), "the still start stayed beside the animation"
        assert all(not shown(at, other) for p, other in GATES.items()
                   if list(GATES).index(p) > list(GATES).index(pid)), f"revealing {pid} showed a later chart"
    answers = at.session_state["_progress"]["answers"][SLUG]
    assert {f"predict:{p}" for p in GATES} <= set(answers)                # each recorded in the learner's progress


def test_each_move_links_to_its_full_lesson(revealed):
    links = {p.proto.label: p.proto.page for p in revealed.get("page_link")}
    for slug in DEEPER:
        label = f"Go deeper: {load_lesson(slug).title}"
        assert label in links and links[label].rstrip("/").endswith(slug), (label, links.get(label))


@pytest.mark.parametrize("key", list(CONTROLS))
def test_moving_each_control_changes_its_chart_and_caption(revealed, key):
    kind, chart, value = CONTROLS[key]
    at = revealed
    widget = getattr(at, kind)(key=key)
    if value is None:
        value = next(o for o in widget.options if o != widget.value)
    before, said = data(at, chart), texts(at)
    widget.set_value(value).run()
    assert not at.exception
    assert data(at, chart) != before, f"{key} did not move {chart}"
    assert texts(at) != said, f"{key} did not change what the page says"


def test_the_pass_caption_and_prediction_state_the_labs_numbers(revealed):
    from ui.lessons import first_look

    frames = first_look.pass_frames()
    said = texts(revealed)
    assert f"{frames.same.output:.3f} after the layer" in said
    fig = figure(revealed, "fl_fig_pass")
    assert len(fig["frames"]) == len(first_look.STAGES)
    last = fig["frames"][-1]["layout"]["title"]["text"].replace("<br>", " ")
    assert f"cosine {frames.same.output:.3f}" in last


def test_the_lesson_map_sends_a_newcomer_here_and_the_navigation_lists_it_right_after_the_map():
    from ui.content import page_index

    order = [p.slug for p in page_index()]
    assert order[:2] == ["home", SLUG] and page_index()[1].section == "Start here"
    home = open_page("home")
    links = {p.proto.label: p.proto.page for p in home.get("page_link")}
    start = next(label for label in links if label.startswith("New here?"))
    assert LESSON.title in start and links[start].rstrip("/").endswith(SLUG)
    assert LESSON.title in texts(home)                               # the "where to start" line names it


@pytest.mark.parametrize("pid", ["same", "reach"])
def test_a_live_class_is_asked_a_prediction_and_its_reveal_unlocks_the_result_on_a_followers_page(pid):
    from devtools.apptest import fresh, start_class
    from tests.test_class_polls import ask, vote
    from tests.test_classroom_app import go
    from ui import controls

    pres, code, _ = start_class()
    go(pres, SLUG)
    student = fresh(room=code)
    student.run()
    poll = f"{SLUG}:predict:{pid}"
    assert not shown(student, GATES[pid])
    ask(pres, poll, student)
    right = next(c.text for c in LESSON.predictions[pid].choices if c.correct)
    vote(student, poll, right)
    pres.button(key=f"_class_reveal__{poll}").click().run()
    student.run()
    assert not student.exception
    assert student.session_state[controls.revealed_key(SLUG, pid)]
    assert shown(student, GATES[pid]), f"the class reveal did not show {GATES[pid]} to the follower"
    assert student.session_state["_progress"]["answers"][SLUG][f"predict:{pid}"] is True

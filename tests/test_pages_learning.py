"""Every lesson page's learning loop: predictions, checks, progress, links that restore state (or refuse
tampered values with a notice), and presenter mode. Parametrised over the lesson index, so a page
that lands later is covered without edits."""

import pytest

from devtools.apptest import reveal, texts
from ui.content import lessons
from ui.controls import is_lesson_control

LESSONS = [p.slug for p in lessons()]                   # the glossary has no questions to answer


def lesson_controls(at, kind):
    """The page's own controls of one kind: keyed, and not one of the frame's questions."""
    return [w for w in getattr(at, kind) if is_lesson_control(w.key)]


def radios(at, marker):
    return [r for r in at.radio if r.key and marker in r.key]


@pytest.mark.parametrize("slug", LESSONS)
def test_each_check_gives_feedback_on_every_option(open_page, slug):
    at = reveal(open_page(slug), slug)                    # the checks wait for the predictions
    checks = radios(at, "__check__")
    assert checks, f"{slug} has no misconception check"
    base = len(at.success) + len(at.error)                # the revealed predictions' own feedback
    for check in checks:
        for option in check.options:
            at.radio(key=check.key).set_value(option).run()
            assert not at.exception
            assert len(at.success) + len(at.error) > base, f"{slug}: no feedback for {option!r}"


@pytest.mark.parametrize("slug", LESSONS)
def test_prediction_is_committed_before_the_reveal_and_recorded(open_page, slug):
    at = open_page(slug)
    predictions = radios(at, "__predict__")
    assert predictions, f"{slug} has no prediction"
    key = predictions[0].key
    assert at.button(key=f"{key}__button").disabled, "the reveal waits for a prediction"
    at.radio(key=key).set_value(at.radio(key=key).options[0]).run()
    at.button(key=f"{key}__button").click().run()
    assert not at.exception
    assert at.success or at.error, "the reveal says whether the prediction was right"
    answers = at.session_state["_progress"]["answers"][slug]
    assert f"predict:{key.split('__predict__')[1]}" in answers


@pytest.mark.parametrize("slug", LESSONS)
def test_home_shows_visits_and_results(open_page, slug):
    at = reveal(open_page(slug), slug)
    check = radios(at, "__check__")[0]
    at.radio(key=check.key).set_value(check.options[0]).run()
    at.switch_page("pages/home.py").run()
    shown = texts(at)
    assert shown.count("Progress: visited") == 1
    assert "questions right first time" in shown


@pytest.mark.parametrize("slug", LESSONS)
def test_every_slider_toggle_selectbox_and_radio_round_trips_through_the_url(open_page, slug):
    at = open_page(slug)
    targets = {}
    for s in lesson_controls(at, "slider"):
        lo, hi = s.min, s.max
        if isinstance(s.value, tuple):
            continue
        targets[s.key] = ("slider", hi if s.value != hi else lo)
    for t in lesson_controls(at, "toggle"):
        targets[t.key] = ("toggle", not t.value)
    for kind in ("selectbox", "radio"):
        for b in lesson_controls(at, kind):
            other = [o for o in b.options if o != b.value]
            if other:
                targets[b.key] = (kind, other[-1])
    if not targets:
        pytest.skip(f"{slug} has no slider, toggle, selectbox or radio")
    def as_param(kind, value):
        return str(value).lower() if kind == "toggle" else str(value)

    def check(restored, keys):
        """Assert the keys that are on the page; return those hidden by another restored control."""
        assert not restored.exception
        hidden = []
        for key in keys:
            kind, value = targets[key]
            widgets = [w for w in getattr(restored, kind) if w.key == key]
            if not widgets:
                hidden.append(key)
                continue
            got = widgets[0].value
            assert (got == pytest.approx(value) if kind == "slider" else str(got) == str(value)), (key, got, value)
        return hidden

    # All at once first; a control hidden by another one (e.g. a mode switch) is then checked on its own.
    hidden = check(open_page(slug, **{k: as_param(*v) for k, v in targets.items()}), list(targets))
    for key in hidden:
        assert not check(open_page(slug, **{key: as_param(*targets[key])}), [key]), f"{key} did not come back"


@pytest.mark.parametrize("slug", LESSONS)
def test_tampered_link_falls_back_with_a_notice(open_page, slug):
    at = open_page(slug)
    keys = [w.key for kind in ("slider", "toggle", "selectbox", "radio") for w in lesson_controls(at, kind)]
    if not keys:
        pytest.skip(f"{slug} has no slider, toggle, selectbox or radio")
    defaults = {k: at.session_state[k] for k in keys}
    bad = open_page(slug, **{k: "<script>alert(1)</script>" for k in keys})
    assert not bad.exception
    notice = " ".join(w.value for w in bad.warning)
    assert "could not use" in notice
    for k in keys:
        assert bad.session_state[k] == defaults[k], f"{k} did not fall back to its default"


@pytest.mark.parametrize("slug", LESSONS)
def test_presenter_mode_folds_prose_and_steps(open_page, slug):
    at = open_page(slug, present="1")
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert "Analogy and learning goal" in labels, "prose is folded for the projector"
    assert "Step 1 of" in texts(at), f"{slug} has no reveal steps for presenting"
    nxt = next(b for b in at.button if b.key and b.key.endswith("__step__next"))
    nxt.click().run()
    assert not at.exception and "Step 2 of" in texts(at)


def _param(at, name: str) -> str:
    value = at.query_params[name]
    return value if isinstance(value, str) else value[0]


@pytest.mark.parametrize("slug", ["projection", "scaled_formula"])
def test_a_presenter_link_opens_at_its_step_and_a_bad_step_is_named(open_page, slug):
    at = open_page(slug, present="1", step="2")
    assert "Step 2 of" in texts(at) and _param(at, "step") == "2"
    back = at.button(key=f"{slug}__step__back")
    back.click().run()
    assert _param(at, "step") == "1" and "Step 1 of" in texts(at)
    for bad in ("0", "99", "x", "-1"):
        tampered = open_page(slug, present="1", step=bad)
        assert "Step 1 of" in texts(tampered)
        assert any("Presenter step" in w.value for w in tampered.warning), bad


def test_the_step_is_in_the_link_to_this_view_when_presenting(open_page):
    at = open_page("projection", present="1")
    at.button(key="projection__step__next").click().run()
    at.session_state["projection__link"] = True
    link = at.run().code[-1].value
    assert "step=2" in link and "present=1" in link

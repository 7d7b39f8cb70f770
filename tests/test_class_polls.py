"""Class polls as the lesson's own questions (issue 28) with honest counts and true messages (issue 29), through
AppTest: a class answer becomes the student's own prediction or check answer, the class reveal unlocks the
page as their own reveal would and stays, nothing gives an open question away, results stay hidden until shown,
two rounds are charted side by side, each refused vote says why, and a store that is away says so.

AppTest sessions share the process's room store, as the sessions of one server do. A follower's heartbeat
(the watcher's job under a server) is beaten by hand before it votes, so a slow machine never lets it lapse.
"""

from __future__ import annotations

import json
import time

import pytest

from classroom import store as rs
from devtools.apptest import class_state, fresh, start_class, texts
from tests.test_classroom_app import go, snapshot
from tests.test_classroom_store import T0, _make, store, store_factory  # noqa: F401  (fixtures)
from ui import classroom, controls
from ui.classroom.polls import answer_key
from ui.content import load_lesson

PREDICT = "sqrt_dk:predict:spread"
CHECK = "sqrt_dk:check:why_sqrt"
LESSON = load_lesson("sqrt_dk")
SPREAD = LESSON.predictions["spread"]
WHY = LESSON.check("why_sqrt")
TRAP_START = "**Common trap.**"


def beat(*students) -> None:
    for st in students:
        s = class_state(st)
        classroom.room_store().heartbeat(s.code, s.me, time.time())


def class_chart(at) -> dict | None:
    chart = next((c for c in at.get("plotly_chart") if "_class_chart" in c.proto.id), None)
    return None if chart is None else json.loads(chart.proto.spec)


def vote(st, poll_id: str, option: str, number: int = 1):
    beat(st)
    st.radio(key=answer_key(poll_id, number)).set_value(option).run()
    assert not st.exception, [e.value for e in st.exception]
    return st


def class_of(n: int):
    pres, code, _ = start_class()
    go(pres, "sqrt_dk")
    students = [fresh(room=code) for _ in range(n)]
    for st in students:
        st.run()
    return pres, code, students


def ask(pres, poll_id: str, *students) -> None:
    pres.button(key=f"_class_ask__{poll_id}").click().run()
    assert not pres.exception
    for st in students:
        st.run()


def right_and_wrong(question) -> tuple[str, str]:
    right = next(c.text for c in question.choices if c.correct)
    return right, next(c.text for c in question.choices if not c.correct)


# --- a class answer is the student's own ---------------------------------------------------------------------------

def test_a_class_answer_becomes_the_students_prediction_at_the_reveal_and_stays():
    pres, code, (a, b) = class_of(2)
    ask(pres, PREDICT, a, b)
    right, wrong = right_and_wrong(SPREAD)
    vote(a, PREDICT, right)
    vote(b, PREDICT, wrong)
    revealed = controls.revealed_key("sqrt_dk", "spread")
    assert revealed not in a.session_state or not a.session_state[revealed]   # nothing before the reveal
    pres.button(key=f"_class_reveal__{PREDICT}").click().run()
    for st, mine in ((a, right), (b, wrong)):
        st.run()
        assert st.session_state[revealed]
        assert st.radio(key=controls.prediction_key("sqrt_dk", "spread")).value == mine
        answers = st.session_state["_progress"]["answers"]["sqrt_dk"]
        assert answers["predict:spread"] is (mine == right)            # recorded as their own first answer
        feedback = next(c.feedback for c in SPREAD.choices if c.text == mine)
        assert feedback in texts(st)                                    # the verdict on their own answer
    pres.button(key=f"_class_stop__{PREDICT}").click().run()
    for st in (a, b):
        st.run()
        assert snapshot(code).poll is None
        assert st.session_state[revealed] and TRAP_START in texts(st)   # still unlocked: the trap shows
    b.button(key="_class_explore").click().run()                       # on their own, it stays theirs
    assert b.session_state[revealed] and b.radio(key=controls.prediction_key("sqrt_dk", "spread")).value == wrong


def test_a_check_poll_reaches_a_follower_who_never_revealed_the_prediction():
    pres, _, (st,) = class_of(1)
    assert f"_class_answer__{CHECK}" not in {r.key for r in st.radio}
    assert controls.check_key("sqrt_dk", "why_sqrt") not in {r.key for r in st.radio}   # held back on their own
    ask(pres, CHECK, st)
    right, _ = right_and_wrong(WHY)
    vote(st, CHECK, right)
    pres.run()
    assert "**1 of 1 answered**" in [m.value for m in pres.markdown]
    pres.button(key=f"_class_reveal__{CHECK}").click().run()
    st.run()
    assert st.radio(key=controls.check_key("sqrt_dk", "why_sqrt")).value == right
    assert st.session_state["_progress"]["answers"]["sqrt_dk"]["check:why_sqrt"] is True
    pres.button(key=f"_class_stop__{CHECK}").click().run()
    st.run()
    assert st.radio(key=controls.check_key("sqrt_dk", "why_sqrt")).value == right   # kept after Stop asking


def test_nothing_gives_an_open_question_away():
    pres, _, (st,) = class_of(1)
    before = texts(st)
    assert "### Takeaways" in before                                   # (the trap waits for the prediction)
    ask(pres, PREDICT, st)
    now = texts(st)
    assert "### Takeaways" not in now and TRAP_START not in now
    assert controls.check_key("sqrt_dk", "why_sqrt") not in {r.key for r in st.radio}
    assert "The class is answering a question" in now
    assert not any(c.proto.id and "fig_raw" in c.proto.id for c in st.get("plotly_chart"))   # gated by predict
    vote(st, PREDICT, SPREAD.choices[0].text)
    assert "The class is answering a question" not in texts(st)        # the notice goes once they answered


# --- the presenter's view ------------------------------------------------------------------------------------------

def test_results_stay_hidden_until_shown_and_the_right_option_is_marked_with_no_votes():
    pres, _, (st,) = class_of(1)
    ask(pres, PREDICT, st)
    assert class_chart(pres) is None and "**0 of 1 answered**" in [m.value for m in pres.markdown]
    pres.button(key=f"_class_show__{PREDICT}").click().run()
    shown = class_chart(pres)
    assert shown is not None and "✓" not in json.dumps(shown["data"])      # shown, no answer hinted
    pres.button(key=f"_class_reveal__{PREDICT}").click().run()
    spec = class_chart(pres)
    right = SPREAD.choices[SPREAD.answer].text
    labels = spec["data"][0]["y"]
    marked = [y for y in labels if "(the answer)" in y]
    assert len(marked) == 1 and right[:20] in marked[0] and sum(spec["data"][0]["x"]) == 0
    assert f"_class_show__{PREDICT}" not in {b.key for b in pres.button}


def test_hiding_can_be_turned_off():
    pres, _, (st,) = class_of(1)
    ask(pres, PREDICT, st)
    pres.toggle(key="_class_hide_results").set_value(False).run()
    assert class_chart(pres) is not None


def test_ask_again_starts_a_fresh_round_charted_beside_the_first():
    pres, code, (a, b) = class_of(2)
    ask(pres, PREDICT, a, b)
    right, wrong = right_and_wrong(SPREAD)
    vote(a, PREDICT, wrong)
    vote(b, PREDICT, wrong)
    pres.button(key=f"_class_again__{PREDICT}").click().run()
    assert snapshot(code).poll.round == 2 and not snapshot(code).poll.revealed
    for st in (a, b):
        st.run()
        assert f"_class_answer__{PREDICT}" not in {r.key for r in st.radio}
        radio = st.radio(key=answer_key(PREDICT, 2))
        assert radio.value is None                                      # their first answer is not shown
        assert "After discussion" in texts(st) and "The answer:" not in texts(st)
        assert next(c.feedback for c in SPREAD.choices if c.text == wrong) not in texts(st)
    vote(a, PREDICT, right, 2)
    vote(b, PREDICT, right, 2)
    pres.run()
    assert "**2 of 2 answered** · After discussion" in [m.value for m in pres.markdown]
    pres.button(key=f"_class_reveal__{PREDICT}").click().run()
    spec = class_chart(pres)
    assert [t["name"] for t in spec["data"]] == ["First vote", "After discussion"]
    index = [o for o in snapshot(code).poll.options]
    first, second = (dict(zip(index, t["x"], strict=True)) for t in spec["data"])
    assert first[wrong] == 2 and second[right] == 2
    assert pres.button(key=f"_class_again__{PREDICT}").disabled          # two rounds at most
    a.run()
    assert a.radio(key=controls.prediction_key("sqrt_dk", "spread")).value == right


def test_two_questions_each_get_two_rounds():
    pres, code, (st,) = class_of(1)
    for poll_id in (PREDICT, CHECK):
        ask(pres, poll_id, st)
        pres.button(key=f"_class_again__{poll_id}").click().run()
        assert snapshot(code).poll == rs.Poll(poll_id, snapshot(code).poll.options, False, 2)
        pres.button(key=f"_class_stop__{poll_id}").click().run()
    rounds = {q.poll_id: len(q.rounds) for q in
              classroom.room_store().results(code, class_state(pres).key, time.time()).questions}
    assert rounds == {PREDICT: 2, CHECK: 2}


# --- honest votes, true messages -------------------------------------------------------------------------------------

@pytest.mark.parametrize("refusal", [rs.NotOpen, rs.NoSuchOption, rs.NotFollowing, rs.VotersFull])
def test_each_refused_vote_says_its_own_reason(monkeypatch, refusal):
    pres, _, (st,) = class_of(1)
    ask(pres, PREDICT, st)

    def refuse(*args, **kwargs):
        raise refusal()

    monkeypatch.setattr(classroom.room_store(), "vote", refuse)
    st.radio(key=f"_class_answer__{PREDICT}").set_value(SPREAD.choices[0].text).run()
    assert refusal.message in texts(st)
    assert "The class is answering a question" in texts(st)            # not counted: the notice stays


def test_a_vote_after_stop_asking_is_told_the_question_closed():
    pres, code, (st,) = class_of(1)
    ask(pres, PREDICT, st)
    pres.button(key=f"_class_stop__{PREDICT}").click().run()
    beat(st)
    st.radio(key=f"_class_answer__{PREDICT}").set_value(SPREAD.choices[0].text).run()   # its page is a run behind
    assert rs.NotOpen.message in texts(st)
    assert classroom.room_store().tally(code, PREDICT, time.time()).answered == 0


def test_a_store_away_shows_reconnecting_and_disables_reveal_and_ask(monkeypatch):
    pres, _, (st,) = class_of(1)
    ask(pres, PREDICT, st)

    def away(*args, **kwargs):
        raise rs.StoreUnavailable("Reconnecting to the class…")

    for name in ("snapshot", "tally"):
        monkeypatch.setattr(classroom.room_store(), name, away)
    pres.run()
    assert not pres.exception
    page = texts(pres)
    assert "Reconnecting to the class…" in page and "answered" not in page
    assert pres.button(key=f"_class_reveal__{PREDICT}").disabled
    assert pres.button(key=f"_class_again__{PREDICT}").disabled
    assert class_chart(pres) is None


# --- the store's round, in both backends ------------------------------------------------------------------------------

def test_the_snapshot_tells_the_round(store):  # noqa: F811  (the fixture)
    code, key = store.create_room(T0)
    store.open_poll(code, key, "q", ("a", "b"), T0)
    assert store.snapshot(code, T0).poll == rs.Poll("q", ("a", "b"), False, 1)
    store.reveal_poll(code, key, "q", T0)
    store.ask_again(code, key, "q", T0 + 1)
    assert store.snapshot(code, T0 + 1).poll == rs.Poll("q", ("a", "b"), False, 2)
    store.close_poll(code, key, T0 + 2)
    store.open_poll(code, key, "q", ("a", "b"), T0 + 3)
    assert store.snapshot(code, T0 + 3).poll.round == 2

"""A check: several questions open at once on one form (the concept check), in both store backends.

The pre-class check is round 1 of each question, the exit check round 2, so the results give each question's
score before and after, and Hake's gain (classroom/results.py). Expected counts are the votes cast here, counted
by hand; nothing is copied from the store.
"""

from __future__ import annotations

import pytest

from classroom import results as cr, store as rs
from tests.test_classroom_store import BACKENDS, T0, _make

A, B, C = ("yes", "no", "maybe"), ("one", "two", "three"), ("red", "blue")
QUESTIONS = (("cc:a", A, rs.QuestionInfo("concept_check", "Question a?", "yes")),
             ("cc:b", B, rs.QuestionInfo("concept_check", "Question b?", "three")),
             ("cc:c", C, rs.QuestionInfo("concept_check", "Question c?", "blue")))
IDS = tuple(q[0] for q in QUESTIONS)


@pytest.fixture(params=BACKENDS)
def store_factory(request):
    return lambda **limits: _make(request.param, request, **limits)


@pytest.fixture
def store(store_factory):
    return store_factory()


def _class(store, followers="abcd", now=T0):
    code, key = store.create_room(now)
    for f in followers:
        store.heartbeat(code, f, now)
    return code, key


def test_a_check_opens_every_question_at_once_and_counts_each(store):
    code, key = _class(store)
    version = store.open_check(code, key, "concept_check", QUESTIONS, T0 + 1)
    snap = store.snapshot(code, T0 + 1)
    assert version == snap.version > 1
    assert snap.check == rs.Check("concept_check", IDS, 1, False) and snap.poll is None
    for f, (a, b) in zip("abc", (("yes", "one"), ("no", "three"), ("yes", "three")), strict=True):
        store.vote(code, "cc:a", f, a, T0 + 2)
        store.vote(code, "cc:b", f, b, T0 + 2)
    store.vote(code, "cc:a", "c", "maybe", T0 + 3)                          # a changed answer moves one count
    store.vote(code, "cc:c", "d", "blue", T0 + 3)                           # d answered one question only
    assert store.tally(code, "cc:a", T0 + 3) == rs.Tally({"yes": 1, "no": 1, "maybe": 1}, 3, 4)
    assert store.tally(code, "cc:b", T0 + 3) == rs.Tally({"one": 1, "two": 0, "three": 2}, 3, 4)
    with pytest.raises(rs.NoSuchOption):
        store.vote(code, "cc:c", "a", "green", T0 + 3)
    with pytest.raises(rs.NotOpen):
        store.vote(code, "not asked", "a", "yes", T0 + 3)
    assert store.close_check(code, key, T0 + 4) > snap.version
    assert store.snapshot(code, T0 + 4).check is None
    with pytest.raises(rs.NotOpen):
        store.vote(code, "cc:a", "d", "yes", T0 + 5)
    got = {q.poll_id: q for q in store.results(code, key, T0 + 5).questions}
    assert [r.counts for r in got["cc:a"].rounds] == [{"yes": 1, "no": 1, "maybe": 1}]
    assert [r.counts for r in got["cc:c"].rounds] == [{"red": 0, "blue": 1}]
    assert (got["cc:b"].lesson, got["cc:b"].text, got["cc:b"].right) == ("concept_check", "Question b?", "three")


def test_the_exit_check_is_a_second_round_and_the_gain_follows(store):
    code, key = _class(store)
    store.open_check(code, key, "concept_check", QUESTIONS, T0 + 1)
    for f, a in zip("abcd", ("yes", "no", "no", "no"), strict=True):       # a: 1 of 4 right before
        store.vote(code, "cc:a", f, a, T0 + 2)
    store.close_check(code, key, T0 + 3)
    for f in "abcd":
        store.heartbeat(code, f, T0 + 100)
    store.open_check(code, key, "concept_check", QUESTIONS, T0 + 100, round=2)
    assert store.snapshot(code, T0 + 100).check == rs.Check("concept_check", IDS, 2, False)
    assert store.tally(code, "cc:a", T0 + 100).answered == 0                # a new round starts at zero
    for f, a in zip("abc", ("yes", "yes", "no"), strict=True):             # 2 of 3 right after
        store.vote(code, "cc:a", f, a, T0 + 101)
    store.reveal_check(code, key, T0 + 102)
    assert store.snapshot(code, T0 + 102).check.revealed
    with pytest.raises(rs.NotOpen):
        store.vote(code, "cc:a", "d", "yes", T0 + 103)
    assert store.tally(code, "cc:a", T0 + 500).final                      # frozen at the reveal
    store.end_room(code, key)
    kept = store.results(code, key, T0 + 600)
    (a,) = [q for q in kept.questions if q.poll_id == "cc:a"]
    assert [(r.number, r.asked_at, r.counts["yes"], r.answered) for r in a.rounds] == [(1, T0 + 1, 1, 4),
                                                                                         (2, T0 + 100, 2, 3)]
    gain = cr.hake_gain(cr.scores(kept, 1), cr.scores(kept, 2))
    assert gain.per_question["cc:a"].g == pytest.approx((200 / 3 - 25) / 75)
    assert gain.per_question["cc:b"].status is cr.GainStatus.UNDEFINED     # no one answered b at all


def test_opening_the_same_round_again_keeps_its_answers(store):
    code, key = _class(store)
    store.open_check(code, key, "concept_check", QUESTIONS, T0)
    store.vote(code, "cc:a", "a", "yes", T0)
    store.close_check(code, key, T0 + 1)
    store.open_check(code, key, "concept_check", QUESTIONS, T0 + 2)
    store.vote(code, "cc:a", "b", "no", T0 + 2)
    assert store.tally(code, "cc:a", T0 + 2).counts == {"yes": 1, "no": 1, "maybe": 0}


def test_an_exit_check_without_a_pre_check_has_an_empty_first_round(store):
    code, key = _class(store)
    store.open_check(code, key, "concept_check", QUESTIONS[:1], T0 + 5, round=2)
    store.vote(code, "cc:a", "a", "yes", T0 + 6)
    (a,) = store.results(code, key, T0 + 7).questions
    assert [r.counts for r in a.rounds] == [{"yes": 0, "no": 0, "maybe": 0}, {"yes": 1, "no": 0, "maybe": 0}]


def test_a_check_and_a_poll_are_open_side_by_side(store):
    code, key = _class(store)
    store.open_poll(code, key, "p", ("x", "y"), T0)
    store.open_check(code, key, "concept_check", QUESTIONS, T0)
    store.vote(code, "p", "a", "x", T0)
    store.vote(code, "cc:a", "a", "yes", T0)
    snap = store.snapshot(code, T0)
    assert snap.poll == rs.Poll("p", ("x", "y"), False) and snap.check.poll_ids == IDS


@pytest.mark.parametrize("questions, round_", [
    ((), 1), (QUESTIONS, 0), (QUESTIONS, 3), (QUESTIONS, True), ((QUESTIONS[0], QUESTIONS[0]), 1),
    ((("cc:a", ("only",), None),), 1), ((("cc:a", A, rs.QuestionInfo(right="nope")),), 1),
    (tuple((f"q{i}", A, None) for i in range(rs.MAX_CHECK_QUESTIONS + 1)), 1), (("cc:a", A, None), 1)])
def test_a_malformed_check_is_refused_and_changes_nothing(store, questions, round_):
    code, key = _class(store)
    before = store.snapshot(code, T0)
    with pytest.raises(ValueError):
        store.open_check(code, key, "concept_check", questions, T0, round=round_)
    assert store.snapshot(code, T0) == before


def test_a_check_that_clashes_with_what_was_asked_is_refused_whole(store):
    code, key = _class(store)
    store.open_poll(code, key, "cc:c", ("red", "green"), T0)                # same id, other options
    with pytest.raises(ValueError):
        store.open_check(code, key, "concept_check", QUESTIONS, T0)
    store.open_check(code, key, "concept_check", QUESTIONS[:2], T0 + 1, round=2)
    with pytest.raises(ValueError):                                          # back to the pre-check: too late
        store.open_check(code, key, "concept_check", QUESTIONS[:2], T0 + 2, round=1)
    assert store.snapshot(code, T0 + 2).check.round == 2
    assert {q.poll_id for q in store.results(code, key, T0 + 2).questions} == {"cc:a", "cc:b", "cc:c"}


def test_a_check_past_the_poll_limit_is_refused_whole(store_factory):
    store = store_factory(max_polls=4)
    code, key = _class(store)
    store.open_poll(code, key, "p", ("x", "y"), T0)
    store.open_poll(code, key, "q", ("x", "y"), T0)
    with pytest.raises(rs.RoomFull):
        store.open_check(code, key, "concept_check", QUESTIONS, T0)
    assert store.snapshot(code, T0).check is None
    assert len(store.results(code, key, T0).questions) == 2


def test_only_the_presenter_opens_reveals_or_closes_a_check(store):
    code, key = _class(store)
    for act in (lambda k: store.open_check(code, k, "concept_check", QUESTIONS, T0),
                lambda k: store.reveal_check(code, k, T0), lambda k: store.close_check(code, k, T0)):
        with pytest.raises(rs.NotPresenter):
            act(key + "x")
    with pytest.raises(rs.UnknownRoom):                                      # nothing open to reveal
        store.reveal_check(code, key, T0)
    assert store.snapshot(code, T0).check is None

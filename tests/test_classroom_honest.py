"""Only present students count (issue 45), on every backend: a student who joins, answers and leaves, over
and over, moves neither the counts, nor the results, nor the CSV, nor the concept check's gain.

Each test plays one class twice, once with real students alone and once with a churn of fresh ids joining,
answering and leaving between them, and asks that the two agree: the tally the presenter sees, the results
(while live, and kept after the end), the CSV and ⟨g⟩. The expected numbers are also counted by hand from the
real students' votes, so agreement between two empty results cannot pass.
"""

from __future__ import annotations

from collections import Counter

import pytest

from classroom import results as cr, store as rs
from tests.test_classroom_store import BACKENDS, OPTIONS, T0, _make

STUDENTS = [f"s{i}" for i in range(6)]
REAL_FIRST = dict(zip(STUDENTS, (0, 0, 1, 1, 1, 2), strict=True))      # option index per student, round 1
REAL_AGAIN = dict(zip(STUDENTS, (1, 1, 1, 1, 2, 1), strict=True))      # round 2, after discussion
CHECK = (("cc:a", ("yes", "no"), rs.QuestionInfo(cr.CHECK_LESSON, "Question a?", "yes")),
         ("cc:b", ("one", "two", "three"), rs.QuestionInfo(cr.CHECK_LESSON, "Question b?", "three")))
PRE = {"s0": ("yes", "one"), "s1": ("no", "one"), "s2": ("no", "three"), "s3": ("no", "two")}
EXIT = {"s0": ("yes", "three"), "s1": ("yes", "one"), "s2": ("no", "three"), "s3": ("yes", "three")}


@pytest.fixture(params=BACKENDS)
def store_factory(request):
    return lambda **limits: _make(request.param, request, **limits)


class _Class:
    """A class in ``store``: the real students beat every 5 s of the clock; ``churn`` joins, answers and leaves."""

    def __init__(self, store, churning: bool):
        self.store, self.churning, self.t, self.fresh = store, churning, T0, 0
        self.code, self.key = store.create_room(T0)
        self.beat()

    def beat(self):
        for s in STUDENTS:
            self.store.heartbeat(self.code, s, self.t)

    def wait(self, seconds: float):
        end = self.t + seconds
        while self.t < end:
            self.t = min(end, self.t + 5)
            self.beat()

    def churn(self, votes: list[tuple[str, str]]):
        """Each of 25 fresh ids joins, casts ``votes`` and is never heard from again (over 5 s, which pass on
        the clock whether anyone churns or not, so both plays keep the same times)."""
        for i in range(25 if self.churning else 0):
            self.fresh += 1
            who = f"churn{self.fresh}"
            self.store.heartbeat(self.code, who, self.t + i * 0.2)
            for poll_id, option in votes:
                self.store.vote(self.code, poll_id, who, option, self.t + i * 0.2)
        self.t += 5

    def vote(self, poll_id: str, chosen: dict[str, str]):
        for s, option in chosen.items():
            self.store.vote(self.code, poll_id, s, option, self.t)


def _play(store, churning: bool) -> dict:
    """One class: a poll voted twice (closed, asked again, revealed), a question left open, and a concept
    check before and after. Returns what the presenter saw and the results, at each moment that matters."""
    c, seen = _Class(store, churning), {}
    c.store.open_poll(c.code, c.key, "p", OPTIONS, c.t, info=rs.QuestionInfo("sqrt_dk", "What happens?", OPTIONS[1]))
    c.vote("p", {s: OPTIONS[i] for s, i in REAL_FIRST.items()})
    c.churn([("p", OPTIONS[2])])
    c.wait(rs.FOLLOWER_TTL_S + 5)                                        # the churn has left
    seen["open"] = c.store.tally(c.code, "p", c.t)
    seen["live results"] = c.store.results(c.code, c.key, c.t).questions
    c.store.close_poll(c.code, c.key, c.t)
    c.wait(10)
    seen["closed"] = c.store.tally(c.code, "p", c.t)
    c.store.ask_again(c.code, c.key, "p", c.t)
    c.vote("p", {s: OPTIONS[i] for s, i in REAL_AGAIN.items()})
    c.churn([("p", OPTIONS[0])])
    c.wait(rs.FOLLOWER_TTL_S + 5)
    c.store.reveal_poll(c.code, c.key, "p", c.t)
    seen["revealed"] = c.store.tally(c.code, "p", c.t)

    c.store.open_poll(c.code, c.key, "q", ("yes", "no"), c.t)            # left open until the end
    c.vote("q", {s: "no" for s in STUDENTS[:2]})
    c.churn([("q", "yes")])

    c.store.open_check(c.code, c.key, "concept_check", CHECK, c.t, round=1)
    c.vote("cc:a", {s: a for s, (a, _) in PRE.items()})
    c.vote("cc:b", {s: b for s, (_, b) in PRE.items()})
    c.churn([("cc:a", "yes"), ("cc:b", "three")])                        # every churned pre-check right...
    c.wait(rs.FOLLOWER_TTL_S + 5)
    c.store.close_check(c.code, c.key, c.t)
    c.wait(5)
    c.store.open_check(c.code, c.key, "concept_check", CHECK, c.t, round=2)
    c.vote("cc:a", {s: a for s, (a, _) in EXIT.items()})
    c.vote("cc:b", {s: b for s, (_, b) in EXIT.items()})
    c.churn([("cc:a", "no"), ("cc:b", "one")])                           # ...and every churned exit check wrong
    c.wait(rs.FOLLOWER_TTL_S + 5)
    c.store.reveal_check(c.code, c.key, c.t)
    seen["before the end"] = c.store.results(c.code, c.key, c.t).questions
    c.store.end_room(c.code, c.key)
    kept = c.store.results(c.code, c.key, c.t + 60)
    seen["kept"] = kept.questions
    seen["csv"] = cr.csv_bytes([*cr.rows(kept), *cr.gain_rows(kept)])
    seen["gain"] = cr.check_gain(kept)
    return seen


def _counted(chosen: dict[str, object], options) -> dict[str, int]:
    got = Counter(chosen.values())
    return {o: got[o] for o in options}


def test_join_vote_leave_churn_changes_no_count_no_result_no_csv_and_no_gain(store_factory):
    real, churned = _play(store_factory(), churning=False), _play(store_factory(), churning=True)
    assert churned == real
    first = _counted({s: OPTIONS[i] for s, i in REAL_FIRST.items()}, OPTIONS)
    again = _counted({s: OPTIONS[i] for s, i in REAL_AGAIN.items()}, OPTIONS)
    assert churned["open"] == rs.Tally(first, len(STUDENTS), len(STUDENTS))
    assert churned["closed"] == churned["open"]
    assert churned["revealed"] == rs.Tally(again, len(STUDENTS), len(STUDENTS), final=True)
    questions = {q.poll_id: q for q in churned["kept"]}
    assert [r.counts for r in questions["p"].rounds] == [first, again]
    assert [r.counts for r in questions["q"].rounds] == [{"yes": 0, "no": 2}]
    for poll_id, index, options in (("cc:a", 0, ("yes", "no")), ("cc:b", 1, ("one", "two", "three"))):
        assert [r.counts for r in questions[poll_id].rounds] == [
            _counted({s: v[index] for s, v in PRE.items()}, options),
            _counted({s: v[index] for s, v in EXIT.items()}, options)]
    right = {"cc:a": "yes", "cc:b": "three"}
    pre = sum(v[i] == right[q] for v in PRE.values() for i, q in enumerate(right)) / (2 * len(PRE))
    post = sum(v[i] == right[q] for v in EXIT.values() for i, q in enumerate(right)) / (2 * len(EXIT))
    assert churned["gain"].overall.g == pytest.approx((post - pre) / (1 - pre))


def test_a_seat_held_by_an_answer_that_left_is_free_at_once(store_factory):
    store = store_factory(max_followers=2)
    code, key = store.create_room(T0)
    store.open_poll(code, key, "p", OPTIONS, T0)
    for who in ("gone1", "gone2"):
        store.heartbeat(code, who, T0)
        store.vote(code, "p", who, OPTIONS[0], T0)
    later = T0 + rs.FOLLOWER_TTL_S + 1                                   # both left without a word
    for who in ("new1", "new2"):
        store.heartbeat(code, who, later)
        store.vote(code, "p", who, OPTIONS[1], later)                    # no VotersFull
    assert store.tally(code, "p", later) == rs.Tally({OPTIONS[0]: 0, OPTIONS[1]: 2, OPTIONS[2]: 0}, 2, 2)


def test_a_student_who_leaves_takes_their_answer_and_brings_it_back(store_factory):
    store = store_factory()
    code, key = store.create_room(T0)
    store.open_poll(code, key, "p", OPTIONS, T0)
    for who, option in (("a", OPTIONS[0]), ("b", OPTIONS[1])):
        store.heartbeat(code, who, T0)
        store.vote(code, "p", who, option, T0)
    away = T0 + rs.FOLLOWER_TTL_S + 1
    store.heartbeat(code, "a", away)
    assert store.tally(code, "p", away).counts == {OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}
    assert store.results(code, key, away).questions[0].rounds[0].counts == store.tally(code, "p", away).counts
    store.heartbeat(code, "b", away + 1)                                 # b's phone is back within the grace
    assert store.tally(code, "p", away + 1).counts == {OPTIONS[0]: 1, OPTIONS[1]: 1, OPTIONS[2]: 0}


def test_a_closed_round_holds_those_present_at_the_close_and_the_reveal_freezes_those_present_then(store_factory):
    store = store_factory()
    code, key = store.create_room(T0)
    store.open_poll(code, key, "p", OPTIONS, T0)
    for who, option in (("a", OPTIONS[0]), ("b", OPTIONS[1]), ("c", OPTIONS[2])):
        store.heartbeat(code, who, T0)
        store.vote(code, "p", who, option, T0)
    store.heartbeat(code, "a", T0 + 10)
    store.heartbeat(code, "b", T0 + 10)
    store.close_poll(code, key, T0 + 20)                                 # c left at T0 + 15
    closed = store.tally(code, "p", T0 + 100)                            # a and b have left too by now
    assert closed == rs.Tally({OPTIONS[0]: 1, OPTIONS[1]: 1, OPTIONS[2]: 0}, 2, 2)
    assert store.results(code, key, T0 + 100).questions[0].rounds[0].counts == closed.counts
    store.heartbeat(code, "a", T0 + 100)
    store.open_poll(code, key, "p", OPTIONS, T0 + 100)                  # asked again as it was
    store.reveal_poll(code, key, "p", T0 + 101)                          # only a is present now
    final = store.tally(code, "p", T0 + 500)
    assert final == rs.Tally({OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}, 1, 1, final=True)
    store.end_room(code, key)
    assert store.results(code, key, T0 + 600).questions[0].rounds[0].counts == final.counts

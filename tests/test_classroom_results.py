"""classroom/results.py on hand-checked fixtures: the table, shares right, change between rounds, CSV, and
Hake's normalized gain (a normal case, no room to gain, undefined, a question only some answered)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, strategies as hs

from classroom import results as cr
from tests.conftest import room_store_of

T = 1_700_000_000.0


def _q(poll_id, right, *rounds, options=("A", "B", "C"), text=None):
    return cr.Question(poll_id, "sqrt_dk", text or f"Question {poll_id}?", options, right,
                       tuple(cr.Round(i + 1, T + 60 * i, dict(zip(options, c, strict=True)))
                             for i, c in enumerate(rounds)))


# Asked in this order. Shares right (by hand): q1 3/10 then 8/10; q2 9/10; q3 has no right option; q4 no answers.
Q1 = _q("q1", "B", (6, 3, 1), (1, 8, 1))
Q2 = _q("q2", "X", (9, 1), options=("X", "Y"))
Q3 = _q("q3", None, (2, 2, 2))
Q4 = _q("q4", "A", (0, 0, 0))
CLASS = cr.ClassResults("K7MQ2P", T + 3600, (Q3, Q2, Q4, Q1))


def test_share_right_and_change():
    assert cr.share_right(Q1, Q1.rounds[0]) == pytest.approx(0.3)
    assert cr.share_right(Q1, Q1.rounds[1]) == pytest.approx(0.8)
    assert cr.change(Q1) == pytest.approx(0.5)
    assert cr.share_right(Q2, Q2.rounds[0]) == pytest.approx(0.9) and cr.change(Q2) is None
    assert cr.share_right(Q3, Q3.rounds[0]) is None                    # no right option
    assert cr.share_right(Q4, Q4.rounds[0]) is None                    # no answers: not 0 %
    assert [r.label for r in Q1.rounds] == ["First vote", "After discussion"]


def test_the_table_has_a_row_per_question_round_and_option_most_missed_first():
    table = cr.rows(CLASS)
    assert len(table) == 3 * 2 + 2 + 3 + 3
    assert [r.question for r in table][::1] == ["Question q1?"] * 6 + ["Question q2?"] * 2 + \
        ["Question q3?"] * 3 + ["Question q4?"] * 3                  # 30 %, 90 %, then the shareless in order
    first = table[0]
    assert (first.lesson, first.round, first.option, first.count, first.right, first.asked_at) == \
        ("sqrt_dk", "First vote", "A", 6, False, T)
    assert [(r.round, r.option, r.count, r.right) for r in table[3:6]] == \
        [("After discussion", "A", 1, False), ("After discussion", "B", 8, True), ("After discussion", "C", 1, False)]
    assert {r.right for r in table if r.question == "Question q3?"} == {None}


def _parsed(data: bytes) -> list[list[str]]:
    assert data.startswith("\ufeff".encode())                         # a byte-order mark: a spreadsheet reads UTF-8
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def test_the_csv_is_utf8_with_a_bom_a_header_and_cells_a_spreadsheet_will_not_run():
    odd = _q("odd", "=1+1", (1, 0), options=("=1+1", "élan ✓"), text='He said "hi", then left')
    results = cr.ClassResults("K7MQ2P", None, (odd, Q2))
    parsed = _parsed(cr.csv_bytes(cr.rows(results, {"sqrt_dk": "Why √dₖ?"}), cr.class_date(results)))
    assert parsed[0] == list(cr.CSV_HEADER)
    column = {name: i for i, name in enumerate(parsed[0])}
    assert [row[column["option"]] for row in parsed[1:3]] == ["X", "Y"]      # q2 (90 % right) before odd (100 %)
    # T is 2023-11-14 22:13:20 UTC (1_700_000_000 s after 1970-01-01)
    assert dict(zip(parsed[0], parsed[3], strict=True)) == {
        "kind": "lesson question", "lesson": "sqrt_dk", "lesson_title": "Why √dₖ?",
        "question": 'He said "hi", then left', "round": "First vote", "option": "'=1+1", "count": "1",
        "right": "yes", "percent": "100.0", "present": "", "asked_at": "2023-11-14T22:13:20Z",
        "class_date": "2023-11-14T22:13:20Z", "gain": "", "note": ""}
    assert parsed[4][column["option"]] == "élan ✓" and parsed[4][column["right"]] == "no"
    assert len(parsed) == 1 + 2 + 2


def test_results_survive_json_unchanged():
    assert cr.from_json(cr.to_json(CLASS)) == CLASS


# --- Hake's normalized gain -------------------------------------------------------------------------------

def test_gain_in_the_ordinary_case():
    gain = cr.normalized_gain(cr.Score(4, 10), cr.Score(7, 10))      # 40 % -> 70 %: 30 of the 60 possible
    assert gain.status is cr.GainStatus.GAIN and gain.g == pytest.approx(0.5)
    assert (gain.pre, gain.post, gain.pre_answered, gain.post_answered) == (40.0, 70.0, 10, 10)
    assert "0.50" in gain.describe()
    assert cr.normalized_gain(cr.Score(5, 10), cr.Score(1, 4)).g == pytest.approx(-0.5)   # 50 % -> 25 %


def test_a_perfect_pre_check_has_no_room_to_gain():
    gain = cr.normalized_gain(cr.Score(12, 12), cr.Score(11, 12))
    assert gain.status is cr.GainStatus.NO_ROOM and gain.g is None and gain.pre == 100.0
    assert gain.describe().startswith("No room to gain")


def test_no_answers_is_undefined_and_says_which_check():
    before = cr.normalized_gain(cr.Score(0, 0), cr.Score(3, 4))
    after = cr.normalized_gain(cr.Score(3, 4), cr.Score(0, 0))
    assert before.status is after.status is cr.GainStatus.UNDEFINED and before.g is after.g is None
    assert "pre-check" in before.describe() and "exit check" in after.describe()


def test_a_question_only_some_answered_weighs_what_they_gave():
    pre = {"a": cr.Score(5, 10), "b": cr.Score(1, 2), "only_pre": cr.Score(0, 3)}
    post = {"a": cr.Score(8, 10), "b": cr.Score(2, 2)}
    report = cr.hake_gain(pre, post)
    assert set(report.per_question) == {"a", "b"}                     # asked in both checks only
    assert report.per_question["a"].g == pytest.approx((80 - 50) / 50)
    assert report.per_question["b"].g == pytest.approx(1.0)
    # overall: 6 of 12 right before (50 %), 10 of 12 after (83.3 %): (83.3 − 50) / 50
    assert report.overall.pre == pytest.approx(50.0) and report.overall.post == pytest.approx(100 * 10 / 12)
    assert report.overall.g == pytest.approx((100 * 10 / 12 - 50) / 50)
    assert (report.overall.pre_answered, report.overall.post_answered) == (12, 12)


def test_scores_come_from_a_round_and_the_right_option():
    pre_post = cr.ClassResults("K7MQ2P", None, (Q1, Q3))
    assert cr.scores(pre_post, 1) == {"q1": cr.Score(3, 10)}          # q3 has no right option
    assert cr.scores(pre_post, 2) == {"q1": cr.Score(8, 10)}
    assert cr.hake_gain(cr.scores(pre_post, 1), cr.scores(pre_post, 2)).overall.g == pytest.approx((80 - 30) / 70)


@given(hs.integers(0, 50), hs.integers(0, 50), hs.integers(0, 50), hs.integers(0, 50))
def test_gain_never_divides_by_zero_and_matches_the_formula(right_pre, extra_pre, right_post, extra_post):
    pre, post = cr.Score(right_pre, right_pre + extra_pre), cr.Score(right_post, right_post + extra_post)
    gain = cr.normalized_gain(pre, post)
    if pre.answered == 0 or post.answered == 0:
        assert gain.status is cr.GainStatus.UNDEFINED
    elif extra_pre == 0:
        assert gain.status is cr.GainStatus.NO_ROOM
    else:
        p, q = 100 * right_pre / pre.answered, 100 * right_post / post.answered
        assert gain.g == pytest.approx((q - p) / (100 - p)) and -1e9 < gain.g <= 1.0 + 1e-12


# --- the concept check: pre-class check (round 1) and exit check (round 2) --------------------------------------

def _c(poll_id, right, *rounds, options=("A", "B", "C")):
    return cr.Question(poll_id, cr.CHECK_LESSON, f"Concept {poll_id}?", options, right,
                       tuple(cr.Round(i + 1, T + 3600 * i, dict(zip(options, c, strict=True)))
                             for i, c in enumerate(rounds)))


# By hand: c1 2 of 4 right before, 3 of 4 after; c2 4 of 4 before (no room), 3 of 4 after; c3 only 2 answered
# before (0 right), 1 of 1 after; c4 asked only before. Overall over c1..c3: 6 of 10 before, 7 of 9 after.
C1 = _c("c1", "A", (2, 1, 1), (3, 1, 0))
C2 = _c("c2", "B", (0, 4, 0), (1, 3, 0))
C3 = _c("c3", "C", (1, 1, 0), (0, 0, 1))
C4 = _c("c4", "A", (1, 0, 0))
WITH_CHECK = cr.ClassResults("K7MQ2P", None, (Q1, C1, C2, C3, C4))


def test_check_questions_are_labelled_as_the_checks_and_kept_apart_from_the_polls():
    assert [r.round for r in cr.rows(WITH_CHECK) if r.question == "Concept c1?"] == \
        ["Pre-class check"] * 3 + ["Exit check"] * 3
    assert [q.poll_id for q in cr.lesson_questions(WITH_CHECK).questions] == ["q1"]
    assert [q.poll_id for q in cr.check_results(WITH_CHECK).questions] == ["c1", "c2", "c3", "c4"]


def test_the_check_gain_per_question_and_overall():
    report = cr.check_gain(WITH_CHECK)
    assert set(report.per_question) == {"c1", "c2", "c3"}                  # c4 had no exit check
    assert report.per_question["c1"].g == pytest.approx((75 - 50) / 50)
    assert report.per_question["c2"].status is cr.GainStatus.NO_ROOM
    assert report.per_question["c3"].g == pytest.approx(1.0)               # 0 % -> 100 %
    assert (report.overall.pre_answered, report.overall.post_answered) == (10, 9)
    assert report.overall.g == pytest.approx((700 / 9 - 60) / 40)
    assert cr.check_gain(cr.ClassResults("K7MQ2P", None, (Q1, C4))).overall.status is cr.GainStatus.UNDEFINED


def test_the_gain_rows_go_into_the_csv():
    table = cr.gain_rows(WITH_CHECK)
    assert [(r.question, r.round) for r in table[:3]] == [("Concept c1?", "Pre-class check score"),
                                                          ("Concept c1?", "Exit check score"),
                                                          ("Concept c1?", "Normalized gain")]
    assert table[-3].question == cr.OVERALL and len(table) == 3 * 4
    parsed = list(csv.DictReader(io.StringIO(cr.csv_bytes(cr.rows(WITH_CHECK) + table).decode("utf-8"))))
    scores = [r for r in parsed if r["round"].endswith("score")]
    assert [(r["count"], r["percent"]) for r in scores[:2]] == [("4", "50.0"), ("4", "75.0")]
    gains = {r["question"]: (r["gain"], r["note"]) for r in parsed if r["round"] == "Normalized gain"}
    assert gains["Concept c1?"] == ("0.500", "")
    assert gains["Concept c2?"] == ("", "no room to gain (100 % before)")
    assert gains[cr.OVERALL][0] == f"{(700 / 9 - 60) / 40:.3f}"
    assert cr.gain_rows(cr.ClassResults("K7MQ2P", None, (Q1,))) == []    # no check: no rows


# --- the students present in each round, as both stores record it ------------------------------------------------

@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_each_round_records_the_students_present_when_it_was_counted(backend, request):
    from classroom import store as rs

    store = room_store_of(backend, request)
    now = 1_000_000.0
    code, key = store.create_room(now)
    first, second = [f"s{i}" for i in range(5)], [f"s{i}" for i in range(3)]
    for s in first:
        store.heartbeat(code, s, now)
    store.open_poll(code, key, "p", ("A", "B"), now, info=rs.QuestionInfo("sqrt_dk", "Which?", "B"))
    for s in first[:4]:
        store.vote(code, "p", s, "A", now)
    store.close_poll(code, key, now)                                     # the first round holds as it stood
    later = now + rs.FOLLOWER_TTL_S + 5                                  # s3 and s4 have left by then
    for s in second:
        store.heartbeat(code, s, later)
    store.ask_again(code, key, "p", later)
    store.vote(code, "p", "s0", "B", later)
    (question,) = store.results(code, key, later).questions
    assert [(r.present, r.answered) for r in question.rounds] == [(len(first), 4), (len(second), 1)]
    store.end_room(code, key)
    kept = store.results(code, key, later + 60).questions[0]                     # the ended class keeps them
    assert [r.present for r in kept.rounds] == [r.present for r in question.rounds]
    assert cr.from_json(cr.to_json(cr.ClassResults(code, None, (kept,)))).questions[0] == kept


# --- the CSV a spreadsheet opens: kinds grouped, titles, share right per round, date, students present -----------

OWN = cr.Question(cr.OWN_PREFIX + "1", "sqrt_dk", "Ready for the quiz?", ("Yes", "No"), "Yes",
                  (cr.Round(1, T + 30, {"Yes": 3, "No": 1}, present=5),))
MIXED = cr.ClassResults("K7MQ2P", None, (C1, Q1, OWN, C2, Q2, C4))


def test_the_csv_groups_each_kind_in_order_and_gives_the_share_right_of_each_round():
    parsed = list(csv.DictReader(io.StringIO(cr.csv_bytes(cr.table(MIXED), cr.class_date(MIXED)).decode("utf-8-sig"))))
    kinds = [r["kind"] for r in parsed]
    assert set(kinds) == set(cr.KINDS)
    assert kinds == sorted(kinds, key=cr.KINDS.index)                          # each kind in one block, in order
    assert [r["question"] for r in parsed if r["kind"] == cr.PRE_CHECK][::3] == ["Concept c1?", "Concept c2?",
                                                                                  "Concept c4?"]  # as asked
    for q in (Q1, Q2, OWN, C1, C2):
        for round_ in q.rounds:
            mine = [r for r in parsed if r["question"] == q.text and r["round"] == cr.round_label(round_.number,
                                                                                                  q.lesson)]
            assert len(mine) == len(q.options)
            expected = round_.counts[q.right] / round_.answered * 100
            assert [float(r["percent"]) for r in mine] == [pytest.approx(expected, abs=0.05)] * len(mine)
    assert {r["present"] for r in parsed if r["kind"] == cr.OWN_QUESTION} == {"5"}
    assert {r["present"] for r in parsed if r["kind"] == cr.LESSON_QUESTION} == {""}      # not recorded: blank
    first = min(q.rounds[0].asked_at for q in MIXED.questions)
    assert {r["class_date"] for r in parsed} == {cr._when(first)}


def test_a_question_the_presenter_typed_is_an_own_question_and_the_check_splits_by_round():
    assert cr.kind(OWN) == cr.OWN_QUESTION and cr.kind(Q1, 2) == cr.LESSON_QUESTION
    assert (cr.kind(C1, 1), cr.kind(C1, 2)) == (cr.PRE_CHECK, cr.EXIT_CHECK)
    titled = cr.table(MIXED, {"sqrt_dk": "Why scale by √dₖ", cr.CHECK_LESSON: "Concept check"})
    assert {(r.lesson, r.title) for r in titled} == {("sqrt_dk", "Why scale by √dₖ"),
                                                     (cr.CHECK_LESSON, "Concept check")}


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_an_own_questions_text_reaches_the_students_snapshot_and_a_lessons_does_not(backend, request):
    from classroom import store as rs

    store = room_store_of(backend, request)
    now = 1_000_000.0
    code, key = store.create_room(now)
    typed = "Which <b>way</b>? ⟨g⟩ √dₖ"
    own = rs.QuestionInfo("sqrt_dk", typed, "Up")
    store.open_poll(code, key, cr.OWN_PREFIX + "ab12", ("Up", "Down"), now, info=own)
    assert store.snapshot(code, now).poll.text == typed
    assert store.snapshot(code, now).poll.right == ""                  # the answer waits for the reveal
    store.reveal_poll(code, key, cr.OWN_PREFIX + "ab12", now)
    assert store.snapshot(code, now).poll.right == own.right
    store.open_poll(code, key, "sqrt_dk:predict:spread", ("A", "B"), now, info=rs.QuestionInfo("sqrt_dk", "Lesson?"))
    assert (store.snapshot(code, now).poll.text, store.snapshot(code, now).poll.right) == ("", "")   # on its page

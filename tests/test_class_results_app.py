"""Class results and the concept check in the app, through AppTest (sessions here share one room store, as the
sessions of one server do): the pre-class and exit checks on students' screens, the presenter's results view
and CSV, the results kept after "End the class", and the solo check kept in the learner's progress.

Expected counts are what the students here chose, counted by hand; nothing is read back from the view's code.
"""

from __future__ import annotations

import csv
import io
import time

import pytest

from classroom import results as cr
from classroom.concept_check import load_concept_check
from devtools.apptest import class_state, fresh, open_page, start_class, texts
from tests.test_classroom_app import button_keys, go, snapshot
from ui import classroom

QUESTIONS = load_concept_check()
RESULTS_ONLY = {"_class_results", "_class_results_after", "_class_results_csv"}


def _wrong(q) -> str:
    return next(o for o in q.options if o != q.right)


def _answer(st, round_: int, picks: list[str | None]) -> None:
    st.run()
    for q, pick in zip(QUESTIONS, picks, strict=True):
        if pick is not None:
            st.radio(key=f"_class_check__{round_}__{q.id}").set_value(pick)
    st.button(key=next(b.key for b in st.button if b.label == "Send my answers")).click().run()
    assert not st.exception, [e.value for e in st.exception]


def _press(at, key: str) -> None:
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]


def _run_class():
    """A presenter and three students through the pre-class check and the exit check; checked on the way."""
    pres, code, key = start_class()
    students = [fresh(room=code) for _ in range(3)]
    go(pres, "concept_check")
    for st in students:
        st.run()
        assert "When the presenter opens the check" in texts(st)
    _press(pres, "_class_check_pre")
    assert snapshot(code).check.round == 1 and snapshot(code).check.poll_ids == tuple(q.poll_id for q in QUESTIONS)
    # Pre-check by hand: student 0 all right, 1 all wrong, 2 answers only the first question (right).
    _answer(students[0], 1, [q.right for q in QUESTIONS])
    _answer(students[1], 1, [_wrong(q) for q in QUESTIONS])
    _answer(students[2], 1, [QUESTIONS[0].right] + [None] * (len(QUESTIONS) - 1))
    assert "Sent: 1 of 10 answers" in texts(students[2])
    for st in students:                                       # no answer shown by the pre-check, even after
        assert not any(q.explanation in texts(st) for q in QUESTIONS)
    pres.run()
    assert "**3 of 3 answered**" in [m.value for m in pres.markdown]
    assert "_class_check_reveal" not in button_keys(pres)      # the pre-check has no reveal
    _press(pres, "_class_check_close")
    assert snapshot(code).check is None
    assert pres.button(key="_class_check_pre").disabled is False
    _press(pres, "_class_check_exit")
    assert pres.button(key="_class_check_reveal").disabled is False
    # Exit check: students 0 and 1 all right, student 2 all wrong.
    _answer(students[0], 2, [q.right for q in QUESTIONS])
    _answer(students[1], 2, [q.right for q in QUESTIONS])
    _answer(students[2], 2, [_wrong(q) for q in QUESTIONS])
    _press(pres, "_class_check_reveal")
    for st, score in zip(students, (10, 10, 0), strict=True):
        st.run()
        shown = texts(st)
        assert f"You got {score} of 10 right" in shown and QUESTIONS[3].explanation in shown
        assert not button_keys(st) & RESULTS_ONLY and "Normalized gain" not in shown
    found = classroom.room_store().results(code, key, time.time())
    first = next(q for q in found.questions if q.poll_id == QUESTIONS[0].poll_id)
    assert [r.counts[QUESTIONS[0].right] for r in first.rounds] == [2, 2] and \
        [r.answered for r in first.rounds] == [3, 3]
    # ⟨g⟩ overall, by hand: before 10 + 0 + 1 = 11 right of 21 answers; after 20 of 30.
    g = cr.check_gain(found).overall
    assert g.pre == 100 * 11 / 21 and g.post == 100 * 20 / 30
    return pres, students, code


def test_a_class_takes_the_pre_and_exit_checks_and_its_presenter_alone_sees_the_gain():
    pres, _, _ = _run_class()
    _press(pres, "_class_results")                            # the presenter's dialog: the check's gain
    assert [m.label for m in pres.metric] == ["Before (pre-class check)", "After (exit check)",
                                              "Normalized gain ⟨g⟩"]
    assert [m.value for m in pres.metric] == [f"{100 * 11 / 21:.0f} %", f"{100 * 20 / 30:.0f} %",
                                              f"{(200 / 3 - 1100 / 21) / (100 - 1100 / 21):.2f}"]


def test_after_the_end_the_presenter_still_reads_the_results_and_the_csv():
    pres, students, code = _run_class()
    _press(pres, "_class_results")                            # while live: the dialog opens
    assert "Download results (CSV)" in [b.label for b in pres.get("download_button")]
    pres.sidebar.button(key="_class_end").click().run()
    assert class_state(pres).role is None
    assert f"Class {code} has ended" in texts(pres)
    _press(pres, "_class_results_after")
    shown = texts(pres)
    assert "Concept check" in shown and "Normalized gain ⟨g⟩" in [m.label for m in pres.metric]
    for st in students:
        st.run()
        assert not button_keys(st) & RESULTS_ONLY and f"Class {code} has ended" not in texts(st)


def test_the_results_csv_counts_what_the_students_chose(monkeypatch):
    pres, _, code = _run_class()
    key = class_state(pres).key
    made = []                                         # the bytes the view hands to "Download results (CSV)"
    real = cr.csv_bytes
    monkeypatch.setattr(cr, "csv_bytes", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    _press(pres, "_class_results")
    table = made[-1]
    assert table.startswith("\ufeff".encode())                       # a spreadsheet opens it as UTF-8
    rows = list(csv.DictReader(io.StringIO(table.decode("utf-8-sig"))))
    right_first = [r for r in rows if r["question"] == QUESTIONS[0].prompt and r["right"] == "yes"]
    assert [(r["kind"], r["round"], r["count"], r["present"]) for r in right_first] == \
        [(cr.PRE_CHECK, "Pre-class check", "2", "3"), (cr.EXIT_CHECK, "Exit check", "2", "3")]
    assert float(right_first[0]["percent"]) == round(100 * 2 / 3, 1)    # 2 of the 3 answers right
    assert {r["lesson_title"] for r in rows} == {"Concept check"}
    kinds = [r["kind"] for r in rows]
    assert kinds == sorted(kinds, key=cr.KINDS.index) and cr.CHECK_GAIN in kinds
    began = min(q.rounds[0].asked_at for q in classroom.room_store().results(code, key, time.time()).questions)
    assert {r["class_date"] for r in rows} == {time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(began))}


def test_a_solo_learner_takes_the_check_twice_and_sees_their_gain():
    at = open_page("concept_check")
    assert not at.exception and len(at.radio) == len(QUESTIONS)
    at.button(key=next(b.key for b in at.button if b.label == "Send my answers")).click().run()
    assert "Answer every question before sending: 10 left." in [w.value for w in at.warning]
    half = len(QUESTIONS) // 2
    for i, (radio, q) in enumerate(zip(at.radio, QUESTIONS, strict=True)):
        radio.set_value(q.right if i < half else _wrong(q))
    at.button(key=next(b.key for b in at.button if b.label == "Send my answers")).click().run()
    assert f"Your first try: {half} of 10 (50 %) right" in texts(at)
    assert not any(q.explanation in texts(at) for q in QUESTIONS)     # the first try shows no answers
    for radio, q in zip(at.radio, QUESTIONS, strict=True):
        radio.set_value(q.right if q is not QUESTIONS[-1] else _wrong(q))
    at.button(key=next(b.key for b in at.button if b.label == "Send my answers")).click().run()
    assert [m.value for m in at.metric] == ["50 %", "90 %", f"{(90 - 50) / 50:.2f}"]
    first = QUESTIONS[0]
    assert at.session_state["_progress"]["concept"]["pre"]["picked"][0] == first.options.index(first.right)
    at.button(key="_cc_solo_retake").click().run()
    assert "concept" not in at.session_state["_progress"] and len(at.radio) == len(QUESTIONS)


def test_a_solo_learner_with_every_answer_right_first_has_no_room_to_gain():
    at = open_page("concept_check")
    for _ in range(2):
        for radio, q in zip(at.radio, QUESTIONS, strict=True):
            radio.set_value(q.right)
        at.button(key=next(b.key for b in at.button if b.label == "Send my answers")).click().run()
    assert "No room to gain" in texts(at) and [m.value for m in at.metric][2] == "–"


def test_a_question_asked_twice_shows_both_rounds_and_the_change():
    from tests.test_classroom_app import POLL, classroom_question

    pres, code, key = start_class()
    students = [fresh(room=code) for _ in range(2)]
    go(pres, "sqrt_dk")
    _press(pres, f"_class_ask__{POLL}")
    question = classroom_question()
    right = next(c.text for c in question.choices if c.correct)
    wrong = next(c.text for c in question.choices if not c.correct)
    store, now = classroom.room_store(), time.time()
    for st in students:                               # first vote: both wrong; after discussion: both right
        store.vote(code, POLL, class_state(st).me, wrong, now)
    store.ask_again(code, key, POLL, now + 1)          # the second round, as "Ask again after discussion" does
    for st in students:
        store.vote(code, POLL, class_state(st).me, right, now + 2)
    _press(pres, "_class_results")
    charts = [c for c in pres.get("plotly_chart") if "_class_results_chart" in c.proto.id]
    import json

    data = json.loads(charts[0].proto.spec)["data"]
    assert [(t["name"], t["x"]) for t in data] == [("First vote", [0.0]), ("After discussion", [100.0])]
    (row,) = pres.dataframe[0].value.to_dict("records")
    assert (row["Lesson"], row["Right, first vote"], row["Right, after discussion"], row["Change"]) == \
        ("Why divide by √dₖ", "0 %", "100 %", "+100 points")
    assert row["Question"] == question.prompt.strip()
    counts = {r["Option"]: (r["First vote"], r["After discussion"], r["Right"])          # one count per cell
              for r in pres.dataframe[1].value.to_dict("records")}
    assert counts == {c.text: (2 if c.text == wrong else 0, 2 if c.text == right else 0, "✓" if c.correct else "")
                      for c in question.choices}
    labels = [a["text"].replace("<br>", " ") for a in json.loads(charts[0].proto.spec)["layout"]["annotations"]]
    (label,) = labels                                        # named by its number and text, not "Q1"
    assert label.startswith("1. ") and question.prompt.strip().startswith(label[3:].rstrip("…"))
    _press(pres, "_class_results_full_open")                 # full screen: the charts and counts, larger
    full = [c.proto.id for c in pres.get("plotly_chart")]
    assert any("_class_results_full_chart" in i for i in full) and any("_class_results_full_counts" in i for i in full)
    spec = json.loads(next(c for c in pres.get("plotly_chart") if "_class_results_full_chart" in c.proto.id).proto.spec)
    assert min(a["font"]["size"] for a in spec["layout"]["annotations"]) >= 18
    pres.run()                                               # another run of the page keeps it open
    assert any("_class_results_full_chart" in c.proto.id for c in pres.get("plotly_chart"))
    _press(pres, "_class_results_full_back")
    assert not any("_class_results_full" in c.proto.id for c in pres.get("plotly_chart"))


def test_after_the_end_each_student_keeps_their_revealed_exit_check():
    """Issue 46: "End the class" once replaced a student's reviewed exit check ("You got 10 of 10 right" and the
    explanations) by a blank solo form. Their score, their answers and the explanations stay, until they choose
    to take the check alone."""
    pres, students, _ = _run_class()
    before = [texts(st) for st in students]
    pres.sidebar.button(key="_class_end").click().run()
    for st, shown, score in zip(students, before, (10, 10, 0), strict=True):
        st.run()
        assert not st.exception, [e.value for e in st.exception]
        assert class_state(st).role is None
        now = texts(st)
        assert f"You got {score} of 10 right" in now
        assert all(q.explanation in now for q in QUESTIONS)
        chosen = [line for line in shown.splitlines() if line.startswith("You chose:")]
        assert len(chosen) == len(QUESTIONS) and all(line in now for line in chosen), "an answer went"
        assert "Send my answers" not in [b.label for b in st.button], "a blank form replaced the review"
    alone = students[2]
    alone.button(key="_cc_class_review_done").click().run()     # the student's own choice: the check alone
    assert "Send my answers" in [b.label for b in alone.button] and "You got 0 of 10 right" not in texts(alone)


# --- the presenter's own quick question ---------------------------------------------------------------------------

def test_an_own_question_is_parsed_from_lines_with_the_right_one_marked():
    from ui.classroom.own_question import OWN_OPTIONS, parse_own

    assert parse_own("  Which   way? ", "It halves\n\n*It doubles \n It stays") == \
        ("Which way?", ("It halves", "It doubles", "It stays"), "It doubles")
    assert parse_own("Ready?", "Yes\nNo")[2] is None                       # no right option: none marked
    low, high = OWN_OPTIONS
    for lines in ("Only one", "\n".join(f"o{i}" for i in range(high + 1)), "*a\n*b", "a\na", ""):
        with pytest.raises(ValueError):
            parse_own("Q?", lines)
    with pytest.raises(ValueError):
        parse_own("   ", "a\nb")
    assert len(parse_own("Q?", "\n".join(f"o{i}" for i in range(low)))[1]) == low


def test_the_presenters_own_question_goes_through_two_rounds_into_the_results_and_csv(monkeypatch):
    from tests.test_class_polls import class_chart, class_of, vote
    from ui.classroom.own_question import OWN_ASK
    from ui.classroom.polls import answer_key
    from ui.inputs import literal

    pres, code, students = class_of(2)                        # the presenter on sqrt_dk, two students following
    asked = "Which <b>way</b> does it go? *really*"
    pres.text_area(key="_class_own_text").set_value(asked)
    pres.text_area(key="_class_own_options").set_value("It halves\n*It doubles\nIt stays")
    pres.button(key=next(b.key for b in pres.button if b.label == OWN_ASK)).click().run()
    assert not pres.exception, [e.value for e in pres.exception]
    poll = snapshot(code).poll
    assert poll.poll_id.startswith(cr.OWN_PREFIX) and poll.text == asked and poll.options == \
        ("It halves", "It doubles", "It stays")
    for st, pick in zip(students, ("It halves", "It stays"), strict=True):
        st.run()
        assert literal(asked, 600) in texts(st) and "<b>" not in texts(st)   # escaped: shown as typed
        vote(st, poll.poll_id, pick)
    pres.run()
    assert "**2 of 2 answered**" in [m.value for m in pres.markdown]
    assert class_chart(pres) is None                                    # hidden until shown or revealed
    pres.button(key=f"_class_again__{poll.poll_id}").click().run()
    for st in students:
        st.run()
        assert st.radio(key=answer_key(poll.poll_id, 2)).value is None    # a fresh round
        vote(st, poll.poll_id, "It doubles", 2)
    pres.button(key=f"_class_reveal__{poll.poll_id}").click().run()
    spec = class_chart(pres)
    assert [t["name"] for t in spec["data"]] == ["First vote", "After discussion"]
    assert [y for y in spec["data"][0]["y"] if "(the answer)" in y] == ["<b>✓ It doubles (the answer)</b>"]
    for st in students:
        st.run()
        assert not st.exception and class_chart(st) is not None                  # the class's counts...
        assert f"**The answer:** {literal('It doubles', 200)}" in texts(st)         # ...and the marked answer
        assert not {r.key for r in st.radio} & {answer_key(poll.poll_id, 1), answer_key(poll.poll_id, 2)}  # no radio
    (question,) = classroom.room_store().results(code, class_state(pres).key, time.time()).questions
    assert [r.counts for r in question.rounds] == [{"It halves": 1, "It doubles": 0, "It stays": 1},
                                                   {"It halves": 0, "It doubles": 2, "It stays": 0}]
    made = []
    real = cr.csv_bytes
    monkeypatch.setattr(cr, "csv_bytes", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    _press(pres, "_class_results")
    rows = list(csv.DictReader(io.StringIO(made[-1].decode("utf-8-sig"))))
    assert {r["kind"] for r in rows} == {cr.OWN_QUESTION} and {r["question"] for r in rows} == {asked}
    assert {(r["lesson"], r["lesson_title"]) for r in rows} == {("sqrt_dk", "Why divide by √dₖ")}
    right = [(r["round"], r["count"], r["right"], r["percent"]) for r in rows if r["option"] == "It doubles"]
    assert right == [("First vote", "0", "yes", "0.0"), ("After discussion", "2", "yes", "100.0")]   # 0 of 2, 2 of 2


def test_a_reloaded_presenter_still_runs_the_own_question_it_asked():
    from tests.test_class_polls import class_chart, class_of, vote
    from ui.classroom.own_question import OWN_ASK, OWN_KEY

    pres, code, (student,) = class_of(1)
    pres.text_area(key="_class_own_text").set_value("Ready?")
    pres.text_area(key="_class_own_options").set_value("*Yes\nNo")
    pres.button(key=next(b.key for b in pres.button if b.label == OWN_ASK)).click().run()
    poll_id = snapshot(code).poll.poll_id
    student.run()
    vote(student, poll_id, "Yes")
    del pres.session_state[OWN_KEY]                     # what a reload forgets: the question as typed here
    pres.button(key=f"_class_reveal__{poll_id}").click().run()
    assert not pres.exception and snapshot(code).poll.revealed
    assert [y for y in class_chart(pres)["data"][0]["y"] if "(the answer)" in y] == ["<b>✓ Yes (the answer)</b>"]

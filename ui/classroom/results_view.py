"""A class's results, for its presenter only: every question asked, its counts per round, the share right and
its change, the concept check's scores and gain, a chart, and "Download results (CSV)".

Shown from the presenter's panel ("Class results") while the class runs, and after "End the class" from the
top of the page for RESULTS_TTL_S: the ended class's code and presenter key stay in this tab's session, and in
the presenter's browser (``ui.progress``, so a reload still finds them) only if they ticked "Keep results on this
computer": the next person at a shared computer finds nothing. The presenter link opens them again for the day.
Students never reach any of it: every read takes the presenter key. Counts only, no names.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from classroom import results as cr
from classroom.store import RESULTS_TTL_S, RoomError
from figures.class_results import share_right_figure
from ui import navigation, progress
from ui.classroom.rooms import room_store
from ui.classroom.session import state
from ui.content import page_index

ORDERS = ("Most missed first", "As asked")
KEEP_LABEL = "Keep results on this computer"
KEEP_KEY = "_class_results_keep"
_HERE = "_class_results_here"          # an ended class's [code, key, until], in this session only


def keep_choice() -> None:
    """In "End the class": whether this browser keeps the results (off: a projector's computer is shared)."""
    st.checkbox(KEEP_LABEL, key=KEEP_KEY, help="Off: the results stay in this tab only, and your presenter link "
                "opens them again for 24 hours. On: this browser keeps them for 24 hours, even after a reload.")


def remember(code: str | None, key: str | None, *, keep: bool | None = None) -> None:
    """At "End the class" (or a presenter link to an ended class): keep what reads its results for a day, in this
    session, and in this browser too if ``keep`` (default: the presenter's "Keep results on this computer")."""
    if not (code and key):
        return
    keep = bool(st.session_state.get(KEEP_KEY)) if keep is None else keep
    until = time.time() + RESULTS_TTL_S
    st.session_state[_HERE] = [code, key, until]
    if keep:
        progress.keep_results(code, key, until)


def _kept() -> tuple[str, str, float] | None:
    here = st.session_state.get(_HERE)
    return (here[0], here[1], here[2]) if here else progress.kept_results()


def forget() -> None:
    """"Forget these results", confirmed: from this session and from this browser."""
    st.session_state.pop(_HERE, None)
    progress.forget_results()


def _read(code: str, key: str) -> cr.ClassResults | str:
    """The class's results, or the sentence saying why there are none (gone after a day, a wrong key)."""
    try:
        return room_store().results(code, key, time.time())
    except RoomError as err:
        return str(err)


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.0f} %"


def _counts(question: cr.Question, round_: cr.Round) -> str:
    return " · ".join(f"{option}: {round_.counts.get(option, 0)}" for option in question.options)


def _lesson_table(questions: list[cr.Question]) -> pd.DataFrame:
    titles = {p.slug: p.title for p in page_index()}
    rows = []
    for n, q in enumerate(questions, 1):
        first, last = q.rounds[0], q.rounds[-1]
        change, again = cr.change(q), len(q.rounds) > 1
        rows.append({"#": f"Q{n}", "Question": q.text or q.poll_id, "Lesson": titles.get(q.lesson, q.lesson),
                     "Right, first vote": _percent(cr.share_right(q, first)),
                     "Right, after discussion": _percent(cr.share_right(q, last)) if again else "–",
                     "Change": "–" if change is None else f"{100 * change:+.0f} points",
                     "Answers, first vote": _counts(q, first), "Answers, after": _counts(q, last) if again else "–",
                     "Right answer": q.right or "–"})
    return pd.DataFrame(rows)


def _lesson_questions(results: cr.ClassResults) -> None:
    polls = cr.lesson_questions(results)
    if not polls.questions:
        st.caption("No lesson question was put to this class.")
        return
    order = st.radio("Order", ORDERS, horizontal=True, key="_class_results_order")
    questions = cr.most_missed_first(polls) if order == ORDERS[0] else list(polls.questions)
    rounds = {label: [cr.share_right(q, q.rounds[n]) if len(q.rounds) > n else None for q in questions]
              for n, label in enumerate(("First vote", "After discussion"))
              if any(len(q.rounds) > n for q in questions)}
    st.plotly_chart(share_right_figure([q.text or q.poll_id for q in questions], rounds),
                    key="_class_results_chart", config={"displayModeBar": False})
    st.dataframe(_lesson_table(questions), hide_index=True, width="stretch", key="_class_results_table")


def _check_table(results: cr.ClassResults, report: cr.GainReport) -> pd.DataFrame:
    rows = []
    for n, q in enumerate(cr.check_results(results).questions, 1):
        g = report.per_question.get(q.poll_id)
        pre = cr.Score(q.rounds[0].counts.get(q.right, 0), q.rounds[0].answered) if q.right else None
        rows.append({"#": n, "Question": q.text or q.poll_id,
                     "Before": "–" if pre is None or pre.percent is None else f"{pre.percent:.0f} %",
                     "Answered before": q.rounds[0].answered,
                     "After": "–" if g is None or g.post is None else f"{g.post:.0f} %",
                     "Answered after": "–" if g is None else g.post_answered,
                     "⟨g⟩": "–" if g is None else (f"{g.g:.2f}" if g.g is not None else g.note)})
    return pd.DataFrame(rows)


def _check(results: cr.ClassResults) -> None:
    check = cr.check_results(results)
    if not check.questions:
        st.caption("The class took no concept check. Open it from the lesson map: “Concept check”.")
        return
    report = cr.check_gain(results)
    before = cr.Score(sum(s.right for s in cr.scores(check, 1).values()),
                      sum(s.answered for s in cr.scores(check, 1).values()))      # every pre-check answer
    cols = st.columns(3)
    cols[0].metric("Before (pre-class check)", "–" if before.percent is None else f"{before.percent:.0f} %",
                   help=f"The class's average score over {before.answered} answers.")
    if report.per_question:
        g = report.overall
        cols[1].metric("After (exit check)", "–" if g.post is None else f"{g.post:.0f} %",
                       help=f"The class's average score over {g.post_answered} answers, on the questions of both.")
        cols[2].metric("Normalized gain ⟨g⟩", "–" if g.g is None else f"{g.g:.2f}",
                       help="(after − before) / (100 − before): the share of the possible gain the class made.")
        st.caption(g.describe() + " Traditional lectures reach about 0.23, interactive engagement about 0.48 "
                   "(Hake, 1998).")
    else:
        st.caption("Run the exit check at the end of the class to see the gain.")
    asked = list(check.questions)
    rounds = {label: [cr.share_right(q, q.rounds[n]) if len(q.rounds) > n else None for q in asked]
              for n, label in enumerate(cr.CHECK_ROUND_LABELS.values()) if any(len(q.rounds) > n for q in asked)}
    st.plotly_chart(share_right_figure([q.text for q in asked], rounds, "Concept check: share right"),
                    key="_class_results_check_chart", config={"displayModeBar": False})
    st.dataframe(_check_table(results, report), hide_index=True, width="stretch", key="_class_results_check")


def show(results: cr.ClassResults) -> None:
    """The whole view: the lesson questions, the concept check, and the download."""
    when = "live" if results.ended_at is None else "ended " + datetime.fromtimestamp(
        results.ended_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    st.caption(f"Class {results.code} ({when}). Counts only: no names, no one student's answers.")
    st.download_button("Download results (CSV)", cr.csv_bytes(cr.rows(results) + cr.gain_rows(results)),
                       file_name=f"class-{results.code}-results.csv", mime="text/csv", on_click="ignore",
                       icon=":material/download:", key="_class_results_csv")
    st.markdown("#### Questions asked")
    _lesson_questions(results)
    st.markdown("#### Concept check")
    _check(results)


@st.dialog("Class results", width="large")
def _dialog(code: str, key: str) -> None:
    found = _read(code, key)
    if isinstance(found, str):
        st.warning(found)
    else:
        show(found)


def panel_entry() -> None:
    """In the presenter's panel: the concept check page and this class's results."""
    s = state()
    st.page_link(navigation.page("concept_check"), label="Pre-class and exit check", icon=":material/quiz:")
    if st.button("Class results", key="_class_results", icon=":material/analytics:", width="stretch"):
        _dialog(s.code, s.key)


def after_class() -> None:
    """At the top of the page, for the presenter of a class that ended within the day: its results."""
    kept = _kept()
    if kept is None:
        return
    code, key, until = kept
    if until < time.time():
        forget()
        return
    with st.container(border=True, key="_class_results_kept"):
        st.markdown(f":material/analytics: **Class {code} has ended.** Its results stay here for you until "
                    f"{datetime.fromtimestamp(until, UTC).strftime('%H:%M UTC on %Y-%m-%d')}.")
        cols = st.columns(2)
        if cols[0].button("Class results", key="_class_results_after", icon=":material/analytics:", width="stretch"):
            _dialog(code, key)
        with cols[1].popover("Forget these results", icon=":material/delete:", width="stretch"):
            st.markdown("Forget this class's results on this computer? Your presenter link still opens them "
                        "until they expire.")
            st.button("Yes, forget these results", key="_class_results_forget", on_click=forget, type="primary",
                      width="stretch")

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
from figures._layout import presented
from figures.class_results import counts_table_figure, share_right_figure
from ui import navigation, progress
from ui.classroom import own_question
from ui.classroom.rooms import room_store
from ui.classroom.session import state
from ui.content import page_index

ORDERS = ("Most missed first", "As asked")
_ORDER = "_class_results_order"
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
    st.session_state.pop(_FULL, None)
    progress.forget_results()


def _read(code: str, key: str) -> cr.ClassResults | str:
    """The class's results, or the sentence saying why there are none (gone after a day, a wrong key)."""
    try:
        return room_store().results(code, key, time.time())
    except RoomError as err:
        return str(err)


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.0f} %"


def _titles() -> dict[str, str]:
    return {p.slug: p.title for p in page_index()}


def _lesson_table(questions: list[cr.Question]) -> pd.DataFrame:
    """One row per question, numbered as the chart numbers them: its shares right and their change."""
    titles = _titles()
    rows = []
    for n, q in enumerate(questions, 1):
        first, last = q.rounds[0], q.rounds[-1]
        change, again = cr.change(q), len(q.rounds) > 1
        rows.append({"#": n, "Question": q.text or q.poll_id, "Lesson": titles.get(q.lesson, q.lesson),
                     "Right, first vote": _percent(cr.share_right(q, first)),
                     "Right, after discussion": _percent(cr.share_right(q, last)) if again else "–",
                     "Change": "–" if change is None else f"{100 * change:+.0f} points",
                     "Present": "–" if first.present is None else first.present,
                     "Right answer": q.right or "–"})
    return pd.DataFrame(rows)


def _counts_table(questions: list[cr.Question]) -> pd.DataFrame:
    """One row per question and option: how many chose it, each round's count in its own column."""
    rows = []
    for n, q in enumerate(questions, 1):
        for option in q.options:
            row: dict[str, object] = {"#": n}
            for number, label in cr.ROUND_LABELS.items():        # the counts first: on a phone, in view
                found = next((r for r in q.rounds if r.number == number), None)
                row[label] = None if found is None else found.counts.get(option, 0)
            rows.append(row | {"Right": "✓" if option == q.right else "", "Option": option})
    return pd.DataFrame(rows)


def _ordered(polls: cr.ClassResults) -> list[cr.Question]:
    order = st.session_state.get(_ORDER, ORDERS[0])
    return cr.most_missed_first(polls) if order == ORDERS[0] else list(polls.questions)


def _shares(questions: list[cr.Question], labels: tuple[str, ...]) -> dict[str, list[float | None]]:
    return {label: [cr.share_right(q, q.rounds[n]) if len(q.rounds) > n else None for q in questions]
            for n, label in enumerate(labels) if any(len(q.rounds) > n for q in questions)}


def _lesson_questions(results: cr.ClassResults) -> None:
    polls = cr.lesson_questions(results)
    if not polls.questions:
        st.caption("No lesson question was put to this class.")
        return
    st.radio("Order", ORDERS, horizontal=True, key=_ORDER)
    questions = _ordered(polls)
    rounds = _shares(questions, ("First vote", "After discussion"))
    st.plotly_chart(share_right_figure([q.text or q.poll_id for q in questions], rounds),
                    key="_class_results_chart", config={"displayModeBar": False})
    st.dataframe(_lesson_table(questions), hide_index=True, width="stretch", key="_class_results_table")
    st.markdown("**Answers per option**")
    st.dataframe(_counts_table(questions), hide_index=True, width="stretch", key="_class_results_counts",
                 column_config={label: st.column_config.NumberColumn(label, format="%d")
                                for label in cr.ROUND_LABELS.values()})


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
    rounds = _shares(asked, tuple(cr.CHECK_ROUND_LABELS.values()))
    st.plotly_chart(share_right_figure([q.text for q in asked], rounds, "Concept check: share right"),
                    key="_class_results_check_chart", config={"displayModeBar": False})
    st.dataframe(_check_table(results, report), hide_index=True, width="stretch", key="_class_results_check")


def show(results: cr.ClassResults, key: str | None = None) -> None:
    """The whole view: the lesson questions, the concept check, and the download; with the presenter's ``key``,
    "Show results full screen" (for the projector)."""
    if key:
        st.button(FULL_LABEL, key="_class_results_full_open", icon=":material/fullscreen:", on_click=_go_full,
                  args=(results.code, key))
        if st.session_state.get(_FULL):
            st.rerun()                                  # closes this dialog; the page's run opens the full one
    when = "live" if results.ended_at is None else "ended " + datetime.fromtimestamp(
        results.ended_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    st.caption(f"Class {results.code} ({when}). Counts only: no names, no one student's answers.")
    titles = {cr.CHECK_LESSON: "Concept check"} | _titles()
    st.download_button("Download results (CSV)", cr.csv_bytes(cr.table(results, titles), cr.class_date(results)),
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
        show(found, key)


# --- full screen, for the projector: the charts and the counts only, every label at least 18 px ----------------

FULL_LABEL = "Show results full screen"
BACK_LABEL = "Back to the class"
FULL_CHARS = 80                         # a question's line at 18 px across a 1366 px projector
_FULL = "_class_results_full"          # [code, key] while the full-screen results are open


def _go_full(code: str, key: str) -> None:
    st.session_state[_FULL] = [code, key]


def _close_full() -> None:
    st.session_state.pop(_FULL, None)


def _full(results: cr.ClassResults) -> None:
    polls = cr.lesson_questions(results)
    if polls.questions:
        questions = _ordered(polls)
        fig = share_right_figure([q.text or q.poll_id for q in questions],
                                 _shares(questions, ("First vote", "After discussion")), label_chars=FULL_CHARS)
        st.plotly_chart(presented(fig), key="_class_results_full_chart", config={"displayModeBar": False})
        counts = _counts_table(questions)
        st.plotly_chart(presented(counts_table_figure([str(c) for c in counts.columns],
                                                      [counts[c].tolist() for c in counts.columns])),
                        key="_class_results_full_counts",
                        config={"displayModeBar": False})
    check = cr.check_results(results)
    if check.questions:
        asked = list(check.questions)
        fig = share_right_figure([q.text for q in asked], _shares(asked, tuple(cr.CHECK_ROUND_LABELS.values())),
                                 "Concept check: share right", label_chars=FULL_CHARS)
        st.plotly_chart(presented(fig), key="_class_results_full_check", config={"displayModeBar": False})
    if not (polls.questions or check.questions):
        st.markdown("#### No question was put to this class yet.")


@st.dialog("Class results", width=4000, on_dismiss=_close_full)    # as wide as the screen allows
def _full_dialog(code: str, key: str) -> None:
    st.button(BACK_LABEL, key="_class_results_full_back", icon=":material/fullscreen_exit:", on_click=_close_full)
    if not st.session_state.get(_FULL):
        st.rerun()                                      # the dialog's own run after "Back": the whole page again
    found = _read(code, key)
    if isinstance(found, str):
        st.warning(found)
    else:
        _full(found)


def _open_full() -> None:
    """On every run while the full-screen results are open: draw them again (a run would otherwise close them)."""
    full = st.session_state.get(_FULL)
    if full:
        _full_dialog(full[0], full[1])


def panel_entry() -> None:
    """In the presenter's panel: the presenter's own quick question, the concept check page and this class's
    results."""
    s = state()
    own_question.own_question()
    st.page_link(navigation.page("concept_check"), label="Pre-class and exit check", icon=":material/quiz:")
    if st.button("Class results", key="_class_results", icon=":material/analytics:", width="stretch"):
        _close_full()
        _dialog(s.code, s.key)
    else:
        _open_full()


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
            _close_full()
            _dialog(code, key)
        else:
            _open_full()
        with cols[1].popover("Forget these results", icon=":material/delete:", width="stretch"):
            st.markdown("Forget this class's results on this computer? Your presenter link still opens them "
                        "until they expire.")
            st.button("Yes, forget these results", key="_class_results_forget", on_click=forget, type="primary",
                      width="stretch")

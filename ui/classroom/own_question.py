"""The presenter's own quick question: typed in the presenter's panel (a question, 2 to 6 options, the right one
optionally marked) and asked like a lesson's question through ``ui.classroom.polls`` (two rounds, hidden
results, the reveal, the results and the CSV, where its kind is "own question")."""

from __future__ import annotations

import secrets
import time

import streamlit as st

from classroom.results import OWN_PREFIX
from classroom.store import MAX_OPTION_CHARS, MAX_QUESTION_CHARS, QuestionInfo, RoomError, StoreUnavailable
from ui.classroom.polls import asked_question, class_summary, presenter_poll, student_poll
from ui.classroom.rooms import changed, room_store
from ui.classroom.session import RECONNECTING, following, notice, role, state
from ui.content import Check, Choice
from ui.inputs import literal

OWN_KEY = "_class_own"            # presenter: poll id -> the own question (a Check) this session asked
OWN_OPTIONS = (2, 6)              # how many options an own question has, at least and at most
RIGHT_MARK = "*"                  # an option line starting with it is the right one
OWN_ASK = "Ask your question"
_NO_CHOICES = Check("own", "", ())
OPTIONS_CHARS = OWN_OPTIONS[1] * (MAX_OPTION_CHARS + 3)   # the options box: six of the longest, with their marks


def parse_own(text: str, lines: str) -> tuple[str, tuple[str, ...], str | None]:
    """The presenter's typed question: its text, its options (one a line, blank lines skipped; a leading "*"
    marks the right one) and the right option, None when none is marked. ValueError saying what is wrong."""
    prompt = " ".join(text.split())
    if not prompt:
        raise ValueError("Type the question first.")
    if len(prompt) > MAX_QUESTION_CHARS:
        raise ValueError(f"The question is too long: {MAX_QUESTION_CHARS} characters at most.")
    options, right = [], []
    for line in lines.splitlines():
        marked = line.strip().startswith(RIGHT_MARK)
        option = " ".join(line.strip().removeprefix(RIGHT_MARK).split())
        if not option:
            continue
        if len(option) > MAX_OPTION_CHARS:
            raise ValueError(f"An option is too long: {MAX_OPTION_CHARS} characters at most.")
        if option in options:
            raise ValueError("Two options are the same: make each one different.")
        options.append(option)
        if marked:
            right.append(option)
    low, high = OWN_OPTIONS
    if not low <= len(options) <= high:
        raise ValueError(f"Give {low} to {high} options, one a line (you gave {len(options)}).")
    if len(right) > 1:
        raise ValueError(f"Mark one right option at most (with {RIGHT_MARK} at its start).")
    return prompt, tuple(options), right[0] if right else None


def _ask_own() -> None:
    try:
        prompt, options, right = parse_own(st.session_state.get("_class_own_text") or "",
                                           st.session_state.get("_class_own_options") or "")
    except ValueError as err:
        notice("warning", str(err))
        return
    s = state()
    slug = s.published[0] if s.published else ""         # the page the class is on (a callback runs before the page)
    poll_id = OWN_PREFIX + secrets.token_hex(4)
    try:
        room_store().open_poll(s.code, s.key, poll_id, options, time.time(), info=QuestionInfo(slug, prompt, right))
    except StoreUnavailable:
        notice("warning", f"{RECONNECTING} The question was not asked: ask it again in a moment.")
        return
    except (ValueError, RoomError) as err:
        notice("warning", str(err) if isinstance(err, RoomError) else "This question cannot be put to the class.")
        return
    st.session_state.setdefault(OWN_KEY, {})[poll_id] = Check(poll_id, prompt, tuple(Choice(o, "", o == right)
                                                                                    for o in options))
    changed(s.code)
    s.poll = (poll_id, options, False)


def own_question() -> None:
    """In the presenter's panel: "Your own question" (a question, 2 to 6 options, the right one optionally marked),
    asked like a lesson's; while it is the class's question, its text and the live panel (rounds, reveal)."""
    if role() != "presenter":
        return
    asked = state().poll
    question = _own(asked[0]) if asked is not None and asked[0].startswith(OWN_PREFIX) else None
    if asked is not None and question is not None:
        with st.container(border=True, key="_class_own_open"):
            st.markdown(f":material/edit_note: **Your question:** {literal(question.prompt, 300)}")
            presenter_poll(asked[0], question)
        return
    with st.expander("Your own question", icon=":material/edit_note:"):
        with st.form("_class_own_form", border=False):
            st.text_area("Question", key="_class_own_text", max_chars=MAX_QUESTION_CHARS, height=80)
            st.text_area("Options, one a line (2 to 6)", key="_class_own_options", height=130,
                         max_chars=OPTIONS_CHARS,
                         help=f"Start the right one with {RIGHT_MARK} to reveal it later; or mark none.",
                         placeholder=f"{RIGHT_MARK}It halves\nIt doubles\nIt stays the same")
            st.form_submit_button(OWN_ASK, on_click=_ask_own, icon=":material/how_to_vote:",
                                  width="stretch")


def _own(poll_id: str) -> Check | None:
    """The own question ``poll_id`` as this session asked it, else as the class's results keep it (a reload, or
    another presenter screen of the class); None if neither has it."""
    own = st.session_state.setdefault(OWN_KEY, {})
    if poll_id not in own:
        found = asked_question(poll_id)
        if found is None:
            return None
        own[poll_id] = Check(poll_id, found.text, tuple(Choice(o, "", o == found.right) for o in found.options))
    return own[poll_id]


def own_for_student() -> None:
    """At the top of a following student's page, while the presenter's own question is the class's: its text,
    the student's radio (each round afresh), and after the reveal the right option (if marked) and the counts."""
    snap = state().snap
    if role() != "student" or not following() or snap is None or snap.poll is None \
            or not snap.poll.poll_id.startswith(OWN_PREFIX):
        return
    poll = snap.poll
    with st.container(border=True, key="_class_own_student"):
        st.markdown(f":material/edit_note: **Your presenter asks:** {literal(poll.text or 'see the screen', 600)}")
        if not student_poll(poll.poll_id, "Your answer", _NO_CHOICES):      # revealed: the answer, the counts
            class_summary(poll.poll_id, Check(poll.poll_id, poll.text, tuple(Choice(o, "", o == poll.right)
                                                                             for o in poll.options)))

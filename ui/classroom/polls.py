"""Polls: the presenter asks the class one of the lesson's own questions, students answer anonymously, the
presenter reveals the answer on every follower's page, and may ask again after a discussion.

A follower's answer is a vote through the store's honest ``vote`` (a live follower, once per round); the
presenter's counts come from ``tally`` (answered never exceeds following). Results stay hidden from the
projector until "Show the results" or the reveal (peer instruction: a first vote of the class's own), and a
second round ("After discussion") is charted beside the first. The page side (the class answer becoming the
student's own prediction or check answer) is ``ui.frame`` with ``ui.answers``.
"""

from __future__ import annotations

import time

import streamlit as st

from classroom.results import OWN_PREFIX, Question, round_label
from classroom.store import (
    MAX_QUESTION_CHARS,
    MAX_ROUNDS,
    NotFollowing,
    NotOpen,
    Poll,
    QuestionInfo,
    RoomError,
    StoreUnavailable,
    Tally,
)
from figures.class_votes import votes_figure
from ui import wake
from ui.classroom.rooms import changed, room_store
from ui.classroom.session import RECONNECTING, following, notice, role, state
from ui.content import Check, page_index
from ui.inputs import literal

POLL_EVERY_S = 1.0            # the presenter's live chart
HIDE_KEY = "_class_hide_results"
_VOTES = "_class_votes"       # poll id -> (round, option) this follower's vote was counted for
_REFUSED = "_class_refused"   # poll id -> why this follower's last vote was not counted
_SHOWN = "_class_shown"       # presenter: (poll id, round) whose results were shown before the reveal
_FIRST = "_class_first"       # presenter: poll id -> its first vote's counts, once asked again
_JUST_VOTED = "_class_just_voted"
_LOOKED = "_class_looked"     # (class code, poll id, round) whose counted answer this session has asked the room for
_WHOLE_PAGE = "_class_whole_page"   # presenter: asked, revealed or asked again in a section's run: rerun the page
QUESTION_KEY = "_class_question"   # the class's question on a follower's page (ui.classroom.guide scrolls to it)


# --- a follower --------------------------------------------------------------------------------------------------

def class_poll(poll_id: str) -> Poll | None:
    """The class's question ``poll_id`` as the room shows it now (open, or just revealed), for a following
    student; None for anyone else or another question."""
    s = state()
    snap = s.snap
    if following(s) and snap is not None and snap.poll is not None and snap.poll.poll_id == poll_id:
        return snap.poll
    return None


def asking() -> Poll | None:
    """The question open to the class (not yet revealed) while this session follows it, else None: nothing on
    the page may give its answer away meanwhile."""
    s = state()
    snap = s.snap
    if following(s) and snap is not None and snap.poll is not None and not snap.poll.revealed:
        return snap.poll
    return None


def poll_revealed(poll_id: str) -> bool:
    """True once the presenter revealed the answer to this question, for a student following the class."""
    poll = class_poll(poll_id)
    return poll is not None and poll.revealed


def my_vote(poll: Poll) -> str | None:
    """The option this follower's counted vote chose in the question's current round, else None."""
    kept = st.session_state.get(_VOTES, {}).get(poll.poll_id)
    return kept[1] if kept is not None and kept[0] == poll.round else None


def answer_key(poll_id: str, number: int) -> str:
    """The key of a follower's class radio for round ``number`` of a question."""
    return f"_class_answer__{poll_id}" + (f"__r{number}" if number > 1 else "")


def _send_vote(poll: Poll, widget_key: str) -> None:
    s = state()
    option = st.session_state.get(widget_key)
    if role() != "student" or option is None:
        return
    refused = st.session_state.setdefault(_REFUSED, {})
    refused.pop(poll.poll_id, None)
    if not following():                                   # exploring, or left: only a follower's answer counts
        refused[poll.poll_id] = NotFollowing.message
        return
    try:
        room_store().vote(s.code, poll.poll_id, s.me or "", option, time.time())
    except StoreUnavailable:
        refused[poll.poll_id] = f"{RECONNECTING} Your answer was not sent: choose it again in a moment."
    except NotOpen as err:                                # closed or revealed meanwhile: its radio is going away
        notice("info", str(err))
    except RoomError as err:                              # each refusal says its own reason (classroom.store)
        refused[poll.poll_id] = str(err)
    except ValueError:                                    # no follower id: this session never joined properly
        refused[poll.poll_id] = "Your answer was not counted: join the class again."
    else:
        st.session_state.setdefault(_VOTES, {})[poll.poll_id] = (poll.round, option)
        st.session_state[_JUST_VOTED] = True


def _counted_before(poll: Poll) -> tuple[int, str] | None:
    """The answer the room holds for this follower this round, asked once per round: a page that started again (a
    reload, another replica after its own died) shows the answer that counts, not a blank radio."""
    looked, s = st.session_state.setdefault(_LOOKED, set()), state()
    asked = (s.code, poll.poll_id, poll.round)
    if asked in looked or not s.me:
        return None
    looked.add(asked)
    try:
        option = room_store().chosen(s.code, poll.poll_id, s.me, time.time())
    except (RoomError, StoreUnavailable, ValueError):
        return None
    if option not in poll.options:
        return None
    st.session_state.setdefault(_VOTES, {})[poll.poll_id] = (poll.round, option)
    return poll.round, option


def student_poll(poll_id: str, label: str, question: Check) -> bool:
    """For a following student whose class is answering this question: the class's radio in its place,
    drawn in the caller's container; a second round starts it afresh. Returns False, drawing nothing,
    when the class is not answering this question (``class_poll`` tells a revealed one)."""
    poll = class_poll(poll_id)
    if poll is None or poll.revealed:
        return False
    # A radio of its own for each round: asked again, the first answer is not shown (a browser keeps a widget's
    # value while its key stays the same).
    widget_key = answer_key(poll_id, poll.round)
    kept = st.session_state.get(_VOTES, {}).get(poll_id)
    if kept is None or kept[0] != poll.round:
        kept = _counted_before(poll) or kept
    if kept is not None and kept[0] == poll.round and widget_key not in st.session_state:
        st.session_state[widget_key] = kept[1]            # a run that did not draw it dropped its value
    with st.container(key=QUESTION_KEY):
        st.radio(label, poll.options, index=None, key=widget_key, on_change=_send_vote, args=(poll, widget_key))
        why = st.session_state.get(_REFUSED, {}).get(poll_id)
        if why:
            st.warning(why, icon=":material/block:")
        elif poll.round > 1:
            st.caption(f":material/forum: **{round_label(poll.round)}.** The presenter asks again: answer "
                       "with what you think now. Your answer is anonymous, and you can change it until the "
                       "answer is revealed.")
        else:
            st.caption(":material/how_to_vote: The presenter asked the class. Your answer is anonymous (only "
                       "the counts are kept), and you can change it until the answer is revealed.")
    if st.session_state.pop(_JUST_VOTED, False) and wake.fragment_run():
        st.rerun(scope="app")                             # the notice at the top of the page goes
    return True


def class_summary(poll_id: str, question: Check) -> None:
    """Under a question the presenter revealed to the class: the answer and the class's counts."""
    poll = class_poll(poll_id)
    if poll is None or not poll.revealed:
        return
    right = _right(question, poll.options)
    if right is not None:
        # Options may hold a learner's words (the lab's tokens): escaped for Markdown.
        mine = my_vote(poll) == poll.options[right]
        st.success(f"**The answer:** {literal(poll.options[right], 200)}" + (" (your answer)" if mine else ""))
    try:
        tally = room_store().tally(state().code, poll_id, time.time())
    except RoomError:
        return
    st.plotly_chart(votes_figure(poll.options, (tally.counts,), right), key=f"_class_chart__{poll_id}",
                    config={"displayModeBar": False})


# --- the presenter -----------------------------------------------------------------------------------------------

def _right(question: Check, options: tuple[str, ...]) -> int | None:
    """The right option's index among ``options``; None for a question without one (an own question may have none)."""
    text = next((c.text for c in question.choices if c.correct), None)
    return options.index(text) if text in options else None


def _ask(poll_id: str, question: Check) -> None:
    s = state()
    options = tuple(c.text for c in question.choices)
    info = QuestionInfo(poll_id.split(":", 1)[0], question.prompt[:MAX_QUESTION_CHARS],
                        question.choices[question.answer].text)
    try:
        room_store().open_poll(s.code, s.key, poll_id, options, time.time(), info=info)
    except StoreUnavailable:
        notice("warning", f"{RECONNECTING} The question was not asked: ask it again in a moment.")
        return
    except (ValueError, RoomError) as err:
        notice("warning", str(err) if isinstance(err, RoomError) else "This question cannot be put to the class.")
        return
    changed(s.code)
    s.poll = (poll_id, options, False)
    st.session_state[_WHOLE_PAGE] = True


def _reveal(poll_id: str) -> None:
    s = state()
    try:
        room_store().reveal_poll(s.code, s.key, poll_id, time.time())
    except RoomError as err:
        notice("warning", str(err))
        return
    changed(s.code)
    if s.poll and s.poll[0] == poll_id:
        s.poll = (poll_id, s.poll[1], True)
    st.session_state[_WHOLE_PAGE] = True


def _again(poll_id: str) -> None:
    s = state()
    try:
        first = room_store().tally(s.code, poll_id, time.time()).counts    # the first vote, as it stands now
        room_store().ask_again(s.code, s.key, poll_id, time.time())
    except RoomError as err:
        notice("warning", str(err))
        return
    st.session_state.setdefault(_FIRST, {})[poll_id] = dict(first)
    changed(s.code)
    if s.poll and s.poll[0] == poll_id:
        s.poll = (poll_id, s.poll[1], False)
    st.session_state[_WHOLE_PAGE] = True


def _stop_asking() -> None:
    s = state()
    try:
        room_store().close_poll(s.code, s.key, time.time())
    except RoomError:
        pass
    changed(s.code)
    s.poll = None


def _show(poll_id: str, number: int) -> None:
    st.session_state.setdefault(_SHOWN, set()).add((poll_id, number))


def presenter_poll(poll_id: str, question: Check) -> None:
    """For the presenter: "Ask the class" under a question, or, once asked, the class's answers live. While
    another question is open (asked, not yet revealed), no second "Ask the class": a caption says how to end it."""
    if role() != "presenter":
        return
    _whole_page()
    asked = state().poll
    if asked is not None and asked[0] == poll_id:
        _live_poll(poll_id, question)
    elif asked is not None and not asked[2]:
        st.caption(other_open(asked[0], poll_id))
    else:
        st.button("Ask the class", key=f"_class_ask__{poll_id}", icon=":material/how_to_vote:",
                  on_click=_ask, args=(poll_id, question))


def _whole_page() -> None:
    """After an ask, a reveal or a second round made in a section's (or the live panel's) run: the whole page
    again, so that the page's other questions show at once whether one is open (no second "Ask the class")."""
    if st.session_state.pop(_WHOLE_PAGE, False) and wake.fragment_run():
        st.rerun(scope="app")


def other_open(open_id: str, poll_id: str) -> str:
    """Under question ``poll_id`` while ``open_id`` is the class's open question: which, and how to end it."""
    page = open_id.split(":", 1)[0]
    title = next((p.title for p in page_index() if p.slug == page), page)
    where = ("Your own question" if open_id.startswith(OWN_PREFIX)
             else "Another question of this page" if page == poll_id.split(":", 1)[0] else f"A question of “{title}”")
    return (f":material/block: {where} is open to the class. Reveal its answer or press “Stop asking” under it, "
            "then ask this one.")


def _first_round(poll_id: str, fallback: dict[str, int]) -> dict[str, int]:
    """The first vote's counts of a question asked again: as this session kept them, else from the results
    (a presenter who reloaded), else ``fallback``."""
    kept = st.session_state.setdefault(_FIRST, {})
    if poll_id not in kept:
        found = asked_question(poll_id)
        if found is None or not found.rounds:
            return fallback
        kept[poll_id] = dict(found.rounds[0].counts)
    return kept[poll_id]


def asked_question(poll_id: str) -> Question | None:
    """The question ``poll_id`` as the class's results keep it (its text, options, right one and rounds), for a
    presenter who reloaded or another presenter screen; None when the results hold none or cannot be read."""
    s = state()
    try:
        return next((q for q in room_store().results(s.code, s.key, time.time()).questions
                     if q.poll_id == poll_id), None)
    except RoomError:
        return None


def _read(poll_id: str) -> tuple[Poll | None, Tally] | None:
    """The room's question (None once it is no longer the open one) and its tally; None while the store is away."""
    s = state()
    now = time.time()
    try:
        snap = room_store().snapshot(s.code, now)
        return snap.poll if snap.poll is not None and snap.poll.poll_id == poll_id else None, \
            room_store().tally(s.code, poll_id, now)
    except StoreUnavailable:
        return None
    except RoomError:
        return None, Tally({}, 0, 0)


@st.fragment(run_every=POLL_EVERY_S)
def _live_poll(poll_id: str, question: Check) -> None:
    s = state()
    asked = s.poll
    if role() != "presenter" or asked is None or asked[0] != poll_id:
        if role() == "presenter" and wake.fragment_run():
            st.rerun(scope="app")                         # stopped: "Ask the class" comes back under the question
        return
    _whole_page()
    options = asked[1]
    read = _read(poll_id)
    with st.container(key="_class_tally"):
        if read is None:                                  # the store is away: no counts to trust, no action
            st.markdown(f":material/sync: **{RECONNECTING}**")
            poll, tally, offline = None, Tally({}, 0, 0), True
        else:
            (poll, tally), offline = read, False
            _draw_results(poll_id, question, options, poll, tally)
        revealed = poll.revealed if poll is not None else asked[2]
        number = poll.round if poll is not None else 1
        hidden = (bool(st.session_state.get(HIDE_KEY, True)) and not revealed
                  and (poll_id, number) not in st.session_state.get(_SHOWN, set()))
        with st.container(horizontal=True, key="_class_poll_actions"):
            st.button("Reveal the answer to the class", key=f"_class_reveal__{poll_id}", on_click=_reveal,
                      args=(poll_id,), disabled=revealed or offline, type="primary", icon=":material/visibility:")
            if hidden:
                st.button("Show the results", key=f"_class_show__{poll_id}", on_click=_show, args=(poll_id, number),
                          disabled=offline, icon=":material/bar_chart:")
            st.button("Ask again after discussion", key=f"_class_again__{poll_id}", on_click=_again,
                      args=(poll_id,), disabled=offline or number >= MAX_ROUNDS, icon=":material/forum:",
                      help="Peer instruction: neighbours discuss, then the class votes again; both votes are "
                           "charted side by side.")
            st.button("Stop asking", key=f"_class_stop__{poll_id}", on_click=_stop_asking, icon=":material/close:")
        st.toggle("Hide results until the reveal", value=True, key=HIDE_KEY,
                  help="The projector shows how many answered, not what: the class's first answers stay its own. "
                       "\"Show the results\" shows them before the reveal.")


def _draw_results(poll_id: str, question: Check, options: tuple[str, ...], poll: Poll | None, tally: Tally) -> None:
    number = poll.round if poll is not None else 1
    revealed = poll is not None and poll.revealed
    st.markdown(f"**{tally.answered} of {tally.following} answered**"
                + (f" · {round_label(number)}" if number > 1 else ""))
    shown = (poll_id, number) in st.session_state.get(_SHOWN, set())
    if st.session_state.get(HIDE_KEY, True) and not revealed and not shown:
        st.caption(":material/visibility_off: The results stay hidden until you show them or reveal the answer, "
                   "so no one's answer leans on the class's.")
        return
    rounds = (tally.counts,) if number < 2 else (_first_round(poll_id, {}), tally.counts)
    right = _right(question, options) if revealed else None
    st.plotly_chart(votes_figure(options, rounds, right), key=f"_class_chart__{poll_id}",
                    config={"displayModeBar": False})

"""The in-process store's questions: one question's state, its votes, rounds and tally, and a room's results.
Plain data and functions; classroom/memory.py calls them with its lock held."""

from __future__ import annotations

from dataclasses import dataclass, field

from classroom import results as cr
from classroom.store import (
    MAX_ROUNDS,
    NoSuchOption,
    NotFollowing,
    NotOpen,
    QuestionInfo,
    RoomFull,
    Tally,
    VotersFull,
)


@dataclass
class PollState:
    options: tuple[str, ...]
    counts: dict[str, int]
    # Which option each follower (an opaque random id, never a name) chose, so a changed answer moves
    # one count, not two; dropped at the reveal, after which only the counts remain.
    chosen: dict[str, str] = field(default_factory=dict)
    revealed: bool = False
    info: QuestionInfo = field(default_factory=QuestionInfo)
    asked: list[float] = field(default_factory=list)          # when each round was asked
    past: list[dict[str, int]] = field(default_factory=list)  # the counted answers of the rounds before this one
    present: list[int] = field(default_factory=list)          # the students present in each of those rounds
    final: Tally | None = None                                 # the tally frozen at the reveal
    closed: Tally | None = None                                # the tally as it stood when it was last closed


def record(state: PollState | None, is_open: bool, follower_id: str, option: object, live: set[str] | None,
           max_voters: int) -> None:
    """Count one vote, replacing this follower's earlier one; a VoteRefused subclass says why not.
    ``live`` None: any id may vote (the lenient ``answer``)."""
    if state is None or not is_open or state.revealed:
        raise NotOpen()
    if not isinstance(option, str) or option not in state.counts:
        raise NoSuchOption()
    if live is not None and follower_id not in live:
        raise NotFollowing()
    previous = state.chosen.get(follower_id)
    if previous is None and len(state.chosen) >= max_voters and live is not None:
        forget_gone(state, live)                 # a seat held by an answer that left is free at once
    if previous is None and len(state.chosen) >= max_voters:
        raise VotersFull()
    if previous is not None:
        state.counts[previous] -= 1
    state.chosen[follower_id] = option
    state.counts[option] += 1


def forget_gone(state: PollState, live: set[str]) -> None:
    """Drop the answers of followers not in ``live``: they left, and took their answer with them."""
    for follower in [f for f in state.chosen if f not in live]:
        state.counts[state.chosen.pop(follower)] -= 1


def next_round(state: PollState, now: float, live: set[str]) -> None:
    """Ask the question again: its counted answers so far (``counted``) become a past round, the new one
    starts at zero."""
    if len(state.asked) >= MAX_ROUNDS:
        raise RoomFull(f"This question has had its {MAX_ROUNDS} votes.")
    tally = tally_of(state, live)
    state.past.append(dict(tally.counts))
    state.present.append(tally.following)
    state.counts = dict.fromkeys(state.options, 0)
    state.chosen.clear()
    state.revealed, state.final, state.closed = False, None, None
    state.asked.append(now)


def asked_in(state: PollState, round_: int, now: float, live: set[str]) -> None:
    """Bring a question to round ``round_`` (a check opened again keeps the answers of its round so far, from
    the students still present)."""
    while len(state.asked) < round_:
        next_round(state, now, live)
    state.closed = None


def close(state: PollState, live: set[str]) -> None:
    """Stop asking: the round holds the answers of the students present now (until it is asked again)."""
    if not state.revealed:
        forget_gone(state, live)
        state.closed = live_tally(state, live)


def tally_of(state: PollState, live: set[str]) -> Tally:
    """What the presenter sees: frozen at the reveal, as it stood at the close, else the live followers'."""
    return state.final or state.closed or live_tally(state, live)


def counted(state: PollState, live: set[str]) -> dict[str, int]:
    """The current round's counts as the results give them: the same as ``tally_of``."""
    return dict(tally_of(state, live).counts)


def live_tally(state: PollState, live: set[str]) -> Tally:
    """The answers of the followers in ``live`` only, so answered never exceeds following."""
    counts = dict.fromkeys(state.options, 0)
    for follower, option in state.chosen.items():
        if follower in live:
            counts[option] += 1
    return Tally(counts, sum(counts.values()), len(live))


def freeze(state: PollState, live: set[str]) -> None:
    """At the reveal: keep the tally as it stood, then forget who chose what."""
    if not state.revealed:
        tally = live_tally(state, live)
        state.final = Tally(tally.counts, tally.answered, tally.following, final=True)
    state.revealed = True
    state.chosen.clear()


def results_of(code: str, polls: dict[str, PollState], ended_at: float | None, live: set[str]) -> cr.ClassResults:
    """The class's results; the current round of each question as ``tally_of`` gives it for ``live``."""
    questions = []
    for poll_id, state in polls.items():
        now = tally_of(state, live)
        every, present = [*state.past, dict(now.counts)], [*state.present, now.following]
        rounds = [cr.Round(i + 1, asked, dict(counts), here)
                  for i, (asked, counts, here) in enumerate(zip(state.asked, every, present, strict=True))]
        questions.append(cr.Question(poll_id, state.info.lesson, state.info.text, state.options, state.info.right,
                                     tuple(rounds)))
    return cr.ClassResults(code, ended_at, tuple(questions))

"""The in-process store's questions, for MemoryRoomStore: a poll (one question, its rounds, votes and tally)
and a check (several questions open at once, the concept check).

A mixin, so memory.py stays one module a reader can hold: these methods take the store's lock and use its
``_live`` and ``_presenting`` exactly as the methods there do.
"""

from __future__ import annotations

from classroom.memory_polls import PollState, asked_in, close, freeze, next_round, record, tally_of
from classroom.store import (
    CheckQuestion,
    NoSuchOption,
    NotOpen,
    QuestionInfo,
    RoomFull,
    Tally,
    UnknownRoom,
    VotersFull,
    check_follower_id,
    check_poll,
    check_question,
    check_questions,
    normal_code,
)

NOT_ASKED = "That question was not asked in this class."


class MemoryQuestions:
    """The questions of ``classroom.memory.MemoryRoomStore``: one poll at a time with its rounds, votes and
    tally, and checks of several questions at once."""

    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float, *,
                  info: QuestionInfo | None = None) -> int:
        options = check_poll(poll_id, options)
        info = check_question(info, options)
        with self._lock:
            room = self._presenting(code, key, now)
            state = room.polls.get(poll_id)
            if state is None or state.options != options:
                if state is None and len(room.polls) >= self.max_polls:
                    raise RoomFull(f"This class has asked its {self.max_polls} questions; "
                                   "start a new class to ask more.")
                room.polls[poll_id] = PollState(options, dict.fromkeys(options, 0), info=info, asked=[now])
            elif room.poll_id == poll_id:
                return room.version                     # already the open question: nothing changed
            else:
                state.closed = None                     # asked again as it was: live answers count again
            room.poll_id = poll_id
            room.version += 1
            return room.version

    def ask_again(self, code: str, key: str, poll_id: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            state = _asked(room, poll_id)
            next_round(state, now, room.live_followers(now))
            room.poll_id = poll_id
            room.version += 1
            return room.version

    def close_poll(self, code: str, key: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            if room.poll_id is not None:
                close(room.polls[room.poll_id], room.live_followers(now))
                room.poll_id = None
                room.version += 1
            return room.version

    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        """The original, lenient vote: any id, live or not; False for any refusal. ``vote`` is the honest one."""
        if not isinstance(option, str) or not isinstance(poll_id, str):
            return False
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            try:
                record(room.polls.get(poll_id), room.is_open(poll_id), follower_id, option, None, self.max_followers)
            except (NotOpen, NoSuchOption, VotersFull):
                return False
            return True

    def vote(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> None:
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            state = room.polls.get(poll_id) if isinstance(poll_id, str) else None
            record(state, room.is_open(poll_id), follower_id, option, room.live_followers(now), self.max_followers)

    def chosen(self, code: str, poll_id: str, follower_id: str, now: float) -> str | None:
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            state = room.polls.get(poll_id) if isinstance(poll_id, str) else None
            return None if state is None or state.revealed else state.chosen.get(follower_id)

    def tally(self, code: str, poll_id: str, now: float) -> Tally:
        with self._lock:
            room = self._live(code, now)
            state = _asked(room, poll_id)
            return tally_of(state, room.live_followers(now))

    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        with self._lock:
            room = self._rooms.get(normal_code(code) or "")
            state = room.polls.get(poll_id) if room is not None and isinstance(poll_id, str) else None
            if state is None:
                raise UnknownRoom(NOT_ASKED)
            return dict(state.counts)

    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            state = _asked(room, poll_id)
            if room.poll_id == poll_id and state.revealed:
                return room.version
            freeze(state, room.live_followers(now))         # counts only from here on
            room.poll_id = poll_id
            room.version += 1
            return room.version

    def open_check(self, code: str, key: str, check_id: str, questions: tuple[CheckQuestion, ...], now: float, *,
                   round: int = 1) -> int:
        questions = check_questions(check_id, questions, round)
        with self._lock:
            room = self._presenting(code, key, now)
            new = 0
            for poll_id, options, _ in questions:                    # every refusal before any change
                state = room.polls.get(poll_id)
                new += state is None
                if state is not None and (state.options != options or len(state.asked) > round):
                    raise ValueError(f"question {poll_id!r} was asked with other options or is past round {round}")
            if new and len(room.polls) + new > self.max_polls:
                raise RoomFull(f"This class has asked its {self.max_polls} questions; start a new class to ask more.")
            live = room.live_followers(now)
            for poll_id, options, info in questions:
                state = room.polls.setdefault(poll_id, PollState(options, dict.fromkeys(options, 0), info=info,
                                                                  asked=[now]))
                asked_in(state, round, now, live)
            room.check = (check_id, tuple(q[0] for q in questions), round)
            room.version += 1
            return room.version

    def close_check(self, code: str, key: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            if room.check is not None:
                live = room.live_followers(now)
                for poll_id in room.check[1]:
                    close(room.polls[poll_id], live)
                room.check = None
                room.version += 1
            return room.version

    def reveal_check(self, code: str, key: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            if room.check is None:
                raise UnknownRoom("No check is open in this class.")
            live = room.live_followers(now)
            for poll_id in room.check[1]:
                freeze(room.polls[poll_id], live)
            room.version += 1
            return room.version


def _asked(room, poll_id: object) -> PollState:
    """The room's question ``poll_id``; UnknownRoom(NOT_ASKED) if it was never asked there."""
    state = room.polls.get(poll_id) if isinstance(poll_id, str) else None
    if state is None:
        raise UnknownRoom(NOT_ASKED)
    return state

"""The in-process store's checks: several questions open at once (the concept check), for MemoryRoomStore.

A mixin, so memory.py stays one module a reader can hold: these methods take the store's lock and use its
``_presenting`` exactly as the methods there do.
"""

from __future__ import annotations

from classroom.memory_polls import PollState, asked_in, freeze
from classroom.store import CheckQuestion, RoomFull, UnknownRoom, check_questions


class MemoryChecks:
    """``open_check``, ``close_check`` and ``reveal_check`` of ``classroom.memory.MemoryRoomStore``."""

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
            for poll_id, options, info in questions:
                state = room.polls.setdefault(poll_id, PollState(options, dict.fromkeys(options, 0), info=info,
                                                                  asked=[now]))
                asked_in(state, round, now)
            room.check = (check_id, tuple(q[0] for q in questions), round)
            room.version += 1
            return room.version

    def close_check(self, code: str, key: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            if room.check is not None:
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

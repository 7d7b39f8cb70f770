"""RedisRoomStore's questions: a poll (one question, its rounds, votes and tally) and a check (several
questions open at once, the concept check). A mixin, so redis_store.py stays one module a reader can hold:
each method is one script (classroom/redis_poll_scripts.py, classroom/redis_check_scripts.py) run through
the store's ``_run``, after the same checks of its arguments as the in-process store makes.
"""

from __future__ import annotations

import json

from classroom.redis_calls import key_hash as _key_hash, mapped as _mapped
from classroom.store import (
    MAX_NAME_CHARS,
    MAX_OPTION_CHARS,
    CheckQuestion,
    NoSuchOption,
    NotOpen,
    QuestionInfo,
    Tally,
    UnknownRoom,
    VotersFull,
    check_follower_id,
    check_poll,
    check_question,
    check_questions,
)

NOT_ASKED = "That question was not asked in this class."


class RedisQuestions:
    """``open_poll`` … ``reveal_poll`` and ``open_check`` … ``reveal_check`` of RedisRoomStore."""

    @_mapped
    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float, *,
                  info: QuestionInfo | None = None) -> int:
        options = check_poll(poll_id, options)
        info = check_question(info, options)
        return self._run("open_poll", code, now, _key_hash(key), poll_id,
                         json.dumps(list(options), ensure_ascii=False), self.max_polls, _meta(info, now))

    @_mapped
    def ask_again(self, code: str, key: str, poll_id: str, now: float) -> int:
        self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            raise UnknownRoom(NOT_ASKED)
        return self._run("ask_again", code, now, _key_hash(key), poll_id)

    @_mapped
    def close_poll(self, code: str, key: str, now: float) -> int:
        return self._run("close_poll", code, now, _key_hash(key))

    @_mapped
    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        """The original, lenient vote: any id, live or not; False for any refusal. ``vote`` is the honest one."""
        if not isinstance(option, str) or not isinstance(poll_id, str):
            return False
        check_follower_id(follower_id)
        self._room(code)
        if len(poll_id) > MAX_NAME_CHARS or len(option) > MAX_OPTION_CHARS:
            return False                               # cannot be the open question's option: not sent
        try:
            return self._run("vote", code, now, poll_id, follower_id, option, self.max_followers, "0") == 1
        except (NotOpen, NoSuchOption, VotersFull):
            return False

    @_mapped
    def vote(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> None:
        check_follower_id(follower_id)
        self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            raise NotOpen()
        if not isinstance(option, str) or not 0 < len(option) <= MAX_OPTION_CHARS:
            self._run("vote", code, now, poll_id, follower_id, "", self.max_followers, "1")   # NotOpen first
            raise NoSuchOption()
        self._run("vote", code, now, poll_id, follower_id, option, self.max_followers, "1")

    @_mapped
    def chosen(self, code: str, poll_id: str, follower_id: str, now: float) -> str | None:
        check_follower_id(follower_id)
        _, room = self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            return None
        return self.r.hget(f"{room}:chosen:{poll_id}", follower_id)      # emptied at the reveal and each new round

    @_mapped
    def tally(self, code: str, poll_id: str, now: float) -> Tally:
        self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            raise UnknownRoom(NOT_ASKED)
        counts, following, final, options = json.loads(self._run("tally", code, now, poll_id))
        counts = {o: int((counts or {}).get(o, 0)) for o in json.loads(options)}
        return Tally(counts, sum(counts.values()), int(following), bool(final))

    @_mapped
    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        _, room = self._room(code)
        if not isinstance(poll_id, str) or len(poll_id) > MAX_NAME_CHARS:
            raise UnknownRoom(NOT_ASKED)
        with self.r.pipeline(transaction=False) as p:                     # one round trip
            p.hget(room + ":polls", poll_id)
            p.hgetall(f"{room}:counts:{poll_id}")
            options, counts = p.execute()
        if options is None:
            raise UnknownRoom(NOT_ASKED)
        return {o: int(counts.get(o, 0)) for o in json.loads(options)}

    @_mapped
    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            raise UnknownRoom(NOT_ASKED)
        return self._run("reveal", code, now, _key_hash(key), poll_id)

    @_mapped
    def open_check(self, code: str, key: str, check_id: str, questions: tuple[CheckQuestion, ...], now: float, *,
                   round: int = 1) -> int:
        questions = check_questions(check_id, questions, round)
        spec = {"id": check_id, "round": round, "polls": [q[0] for q in questions]}
        stored = [[poll_id, json.dumps(list(options), ensure_ascii=False), _meta(info, now)]
                  for poll_id, options, info in questions]
        return self._run("open_check", code, now, _key_hash(key), json.dumps(spec, ensure_ascii=False),
                         json.dumps(stored, ensure_ascii=False), self.max_polls)

    @_mapped
    def close_check(self, code: str, key: str, now: float) -> int:
        return self._run("close_check", code, now, _key_hash(key))

    @_mapped
    def reveal_check(self, code: str, key: str, now: float) -> int:
        return self._run("reveal_check", code, now, _key_hash(key))


def _meta(info: QuestionInfo, now: float) -> str:
    """What the results keep about a question when it is first asked (``R:meta``)."""
    return json.dumps({"lesson": info.lesson, "text": info.text, "right": info.right, "asked": [float(now)],
                       "past": []}, ensure_ascii=False)

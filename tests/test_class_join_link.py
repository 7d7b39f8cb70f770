"""The join link and QR code carry the room's join token after the code (issue 45), through AppTest: opening it
joins even when this client has been refused for guessing; ``?room=CODE`` alone still works as a typed code."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

from classroom import store as rs
from devtools.apptest import class_state, fresh, start_class, texts
from ui import classroom


def _join_link(at) -> str:
    return next(c.value for c in at.sidebar.code if "key=" not in c.value)


def test_the_join_link_joins_past_every_limit_on_typed_codes(monkeypatch):
    presenter, code, key = start_class()
    room = parse_qs(urlsplit(_join_link(presenter)).query)["room"][0]
    assert room.split(".") == [code, rs.join_token(key)] and key not in room
    store, asked = classroom.room_store(), []
    real = store.find_room

    def find_room(code_, address, now, *, token=None):
        asked.append(token)
        if token is None:                                  # as if this address had guessed its way to a wait
            raise rs.RateLimited("Too many class codes were tried: wait a moment, then type the code again.", 60)
        return real(code_, address, now, token=token)

    monkeypatch.setattr(store, "find_room", find_room)
    linked = fresh(room=room)
    assert class_state(linked).role == "student" and f"Following class {code}" in texts(linked)
    assert asked[-1] == rs.join_token(key)
    assert linked.query_params["room"] == code           # the token leaves the address bar once joined
    typed = fresh(room=code)                               # the old form: a typed code, limited as one
    assert class_state(typed).role is None and "Too many class codes were tried" in texts(typed)


def test_a_link_with_a_wrong_token_is_treated_as_the_code_alone():
    _, code, _ = start_class()
    for room in (f"{code}.{'0' * rs.JOIN_TOKEN_CHARS}", f"{code}.short", f"{code}.{'z' * rs.JOIN_TOKEN_CHARS}"):
        st = fresh(room=room)
        assert class_state(st).role == "student", room
    assert classroom.room_store().follower_count(code, time.time()) >= 1

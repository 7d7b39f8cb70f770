"""Limits that never lock out the innocent (issue 45), on every backend: a join link is never limited; a fresh
address is never refused by the server's limit; a class's typos never reach its address's limit; an IPv6 /64
is one address; new students per address are paced and live ones capped. The numbers come from
classroom/store.py; the expected outcomes from the rules as docs/SECURITY.md states them.
"""

from __future__ import annotations

import pytest

from classroom import store as rs
from tests.test_classroom_store import BACKENDS, T0, _make

SCHOOL = "203.0.113.7"


@pytest.fixture(params=BACKENDS)
def store_factory(request):
    return lambda **limits: _make(request.param, request, **limits)


@pytest.fixture
def store(store_factory):
    return store_factory()


def _miss(store, address, now, code="ZZZZZZ"):
    try:
        store.find_room(code, address, now)
    except (rs.UnknownRoom, rs.RateLimited) as err:
        return err
    raise AssertionError("a code no room has was found")


def _trip_the_server(store, now):
    """Enough addresses guessing that the server's limit holds (each stays under its own)."""
    per = rs.LOOKUP_FAILURES_PER_ADDRESS // 3
    for a in range(rs.LOOKUP_FAILURES_PER_SERVER // per + 1):
        for i in range(per):
            _miss(store, f"10.1.{a}.1", now + i * 0.01)
    assert isinstance(_miss(store, "10.1.0.1", now + 1), rs.RateLimited)   # the guessers now wait


def test_an_ipv6_64_is_one_address_and_ipv4_mapped_is_its_ipv4():
    same = {rs.address_id(a) for a in ("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:DB8:1:2::7")}
    assert len(same) == 1
    assert rs.address_id("2001:db8:1:3::1") not in same
    assert rs.address_id("::ffff:192.0.2.5") == rs.address_id("192.0.2.5") != rs.address_id("192.0.2.6")
    assert rs.address_group("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert rs.address_id("unknown") == rs.address_id("unknown") != rs.address_id("192.0.2.5")


def test_every_address_in_one_64_shares_the_lookup_limit(store):
    for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):
        assert isinstance(_miss(store, f"2001:db8:9:9::{i + 1:x}", T0 + i), rs.UnknownRoom)
    last = T0 + rs.LOOKUP_FAILURES_PER_ADDRESS - 1
    assert isinstance(_miss(store, "2001:db8:9:9:abcd::1", last + 1), rs.RateLimited)
    assert isinstance(_miss(store, "2001:db8:9:a::1", last + 1), rs.UnknownRoom)   # the next /64: its own


def test_twenty_guessing_addresses_leave_a_fresh_students_code_and_join_link_working(store):
    code, key = store.create_room(T0)
    for a in range(20):                                                 # the probe: 20 addresses × 10 codes
        for i in range(10):
            _miss(store, f"192.0.2.{a + 1}", T0 + 1 + a + i * 0.05)
    _trip_the_server(store, T0 + 30)
    assert store.find_room(code.lower(), "198.51.100.20", T0 + 31) == code          # typed, never failed
    assert store.find_room(code, "198.51.100.21", T0 + 31, token=rs.join_token(key)) == code
    guesser = "192.0.2.1"
    with pytest.raises(rs.RateLimited):                                  # a guessing address, typing
        store.find_room(code, guesser, T0 + 31)
    assert store.find_room(code, guesser, T0 + 31, token=rs.join_token(key)) == code   # its link still works


def test_a_wrong_token_is_a_typed_code_and_one_rooms_token_opens_no_other(store):
    code, key = store.create_room(T0)
    _, other_key = store.create_room(T0)
    for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):
        _miss(store, SCHOOL, T0 + i * 0.1)
    now = T0 + rs.LOOKUP_FAILURES_PER_ADDRESS * 0.1                    # within the back-off, each try doubling it
    for token in ("0" * rs.JOIN_TOKEN_CHARS, rs.join_token(other_key), "", "x" * 5000, None):
        with pytest.raises(rs.RateLimited):
            store.find_room(code, SCHOOL, now, token=token)
    assert store.find_room(code, SCHOOL, now, token=rs.join_token(key)) == code
    assert rs.join_token(key) != rs.join_token(other_key) and len(rs.join_token(key)) == rs.JOIN_TOKEN_CHARS
    assert key not in rs.join_token(key)


def test_ten_mistypes_from_a_school_leave_its_classmates_unaffected(store):
    code, _ = store.create_room(T0)
    for i in range(10):
        assert isinstance(_miss(store, SCHOOL, T0 + i, code=code[::-1] if code[::-1] != code else "ZZZZZZ"),
                          rs.UnknownRoom)
    for i in range(6):                                                   # the next six type it right at once
        assert store.find_room(code, SCHOOL, T0 + 10 + i * 0.1) == code


def test_a_class_of_120_behind_one_address_joins_in_a_minute_unslowed_and_a_flood_of_ids_waits(store_factory):
    store = store_factory(max_followers=1000)
    code, _ = store.create_room(T0)
    for i in range(120):                                                 # within 12 s
        store.heartbeat(code, f"student{i}", T0 + i * 0.1, address=SCHOOL)
    assert store.follower_count(code, T0 + 12) == 120
    refused = []
    for i in range(300):                                                 # 300 fresh ids in the next 30 s
        try:
            store.heartbeat(code, f"fresh{i}", T0 + 12 + i * 0.1, address=SCHOOL)
        except rs.RateLimited as err:
            refused.append(err)
    assert len(refused) == 300 - (rs.NEW_STUDENTS_PER_ADDRESS - 120)
    assert all(0 < err.retry_after <= rs.NEW_STUDENTS_WINDOW_S for err in refused)
    assert str(refused[0]) == rs.NEW_STUDENTS
    store.heartbeat(code, "fresh0", T0 + 45, address=SCHOOL)             # one already in: a reload is no new id
    store.heartbeat(code, "elsewhere", T0 + 45, address="198.51.100.9")  # another address: unaffected
    store.heartbeat(code, "later", T0 + 12 + rs.NEW_STUDENTS_WINDOW_S, address=SCHOOL)   # the window moved on


def test_live_students_per_address_are_capped_as_the_deployer_says(store_factory, monkeypatch):
    monkeypatch.setenv(rs.STUDENTS_PER_ADDRESS_ENV, "5")
    store = store_factory()
    a, _ = store.create_room(T0)
    b, _ = store.create_room(T0)
    for i in range(3):
        store.heartbeat(a, f"a{i}", T0, address=SCHOOL)
        store.heartbeat(b, f"b{i}", T0, address=SCHOOL) if i < 2 else None
    with pytest.raises(rs.RateLimited) as info:                          # 5 live in two classes
        store.heartbeat(b, "b9", T0 + 1, address=SCHOOL)
    assert str(info.value) == rs.too_many_students(5) and "5 students" in str(info.value)
    store.heartbeat(b, "b9", T0 + 1, address="2001:db8::1")             # another address
    for f in ("a0", "a1", "b0", "b1"):                                   # the watcher's beats keep them counted
        store.heartbeat(a if f[0] == "a" else b, f, T0 + 10)
    with pytest.raises(rs.RateLimited):
        store.heartbeat(b, "b9x", T0 + 11, address=SCHOOL)
    store.heartbeat(b, "b9x", T0 + 10 + rs.FOLLOWER_TTL_S + 1, address=SCHOOL)   # a2 left: a seat is free


@pytest.mark.parametrize(("text", "expected"), [("40", 40), ("1", 1), ("", None), ("0", None), ("-3", None),
                                                ("many", None)])
def test_the_cap_is_read_from_the_environment(text, expected):
    got = rs.students_per_address({rs.STUDENTS_PER_ADDRESS_ENV: text})
    assert got == (rs.LIVE_STUDENTS_PER_ADDRESS if expected is None else expected)


def test_a_new_teacher_is_refused_only_while_every_room_has_a_live_presenter(store_factory):
    store = store_factory(max_rooms=3)
    rooms = [store.create_room(T0 + i) for i in range(3)]
    t = T0 + 3
    while t < T0 + 3 * rs.PRESENTER_GONE_S:                               # every room: a student's idle tab, and
        for i, (code, key) in enumerate(rooms):                          # its presenter's panel reading the count,
            store.heartbeat(code, f"tab{i}", t)                          # except the last one's presenter (gone)
            if i < 2:
                store.follower_count(code, t, key=key)
        t += 5
    with pytest.raises(rs.RoomFull):                                     # the first two are live: not the third yet
        store.create_room(T0 + 3 + rs.PRESENTER_GONE_S - 1)
    code, key = store.create_room(t)                                     # the third's presenter is gone: reclaimed
    assert store.is_presenter(code, key)
    with pytest.raises(rs.UnknownRoom):
        store.version(rooms[2][0], t)
    assert store.results(rooms[2][0], rooms[2][1], t).ended_at is not None   # its results are kept
    for alive, _ in rooms[:2]:
        assert store.version(alive, t) == 1
    store.follower_count(code, t, key=key)
    with pytest.raises(rs.RoomFull):                                     # all three live again: refused
        store.create_room(t + 1)
    assert store.follower_count(rooms[0][0], t, key="not the key") == 1  # a wrong key notes no presenter

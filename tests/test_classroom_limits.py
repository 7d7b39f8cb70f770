"""The room store under load and abuse (issues 29, 30, 33), on every backend: limits per address and per
server, idle rooms, live presence, locking, honest votes, rounds and results, announcements.

The stores are made as test_classroom_store.py makes them (a fresh one per backend: memory, and a real redis-server).
Expected values come from the limits in classroom/store.py and a direct count, never from the store.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from hypothesis import example, given, settings, strategies as hs

from classroom import store as rs
from tests.test_classroom_store import BACKENDS, FACTORY_OK, OPTIONS, T0, _make

SCHOOL, TEACHER, FLOODER = "203.0.113.7", "198.51.100.2", "192.0.2.66"


@pytest.fixture(params=BACKENDS)
def store_factory(request):
    return lambda **limits: _make(request.param, request, **limits)


@pytest.fixture
def store(store_factory):
    return store_factory()


def _class(store, now=T0, address=None):
    code, key = store.create_room(now, address=address)
    return code, key


# --- starting classes -----------------------------------------------------------------------------------------

def test_a_200_room_flood_from_one_address_leaves_another_teacher_free_to_start(store):
    started, refused = [], 0
    for i in range(200):
        try:
            started.append(store.create_room(T0 + i * 0.01, address=FLOODER))
        except rs.RateLimited as err:
            refused += 1
            assert err.retry_after >= 1
    assert len(started) == rs.LIVE_CLASSES_PER_ADDRESS and refused == 200 - rs.LIVE_CLASSES_PER_ADDRESS
    code, key = store.create_room(T0 + 2, address=TEACHER)                 # at once
    assert store.is_presenter(code, key) and store.version(code, T0 + 2) == 1


def test_an_address_may_start_a_few_classes_an_hour(store):
    t = T0
    for _ in range(rs.CLASSES_PER_HOUR_PER_ADDRESS):
        code, key = store.create_room(t, address=SCHOOL)
        store.end_room(code, key)                                          # not live: only the hour counts
        t += 60
    with pytest.raises(rs.RateLimited) as info:
        store.create_room(t, address=SCHOOL)
    assert abs(info.value.retry_after - (T0 + 3600 - t)) < 1               # until the first start is an hour old
    store.create_room(T0 + 3600 + 1, address=SCHOOL)


def test_a_full_server_closes_its_idlest_room_before_refusing_anyone(store_factory):
    store = store_factory(max_rooms=3)
    rooms = [_class(store, T0 + i) for i in range(3)]
    with pytest.raises(rs.RoomFull):                                       # none idle long enough yet
        store.create_room(T0 + 10)
    store.heartbeat(rooms[0][0], "f", T0 + rs.EVICT_IDLE_S)               # the oldest has a student
    code, _ = store.create_room(T0 + rs.EVICT_IDLE_S + 1.5)
    with pytest.raises(rs.UnknownRoom):                                    # the idlest went: rooms[1]
        store.version(rooms[1][0], T0 + rs.EVICT_IDLE_S + 2)
    for alive in (rooms[0][0], rooms[2][0], code):
        assert store.version(alive, T0 + rs.EVICT_IDLE_S + 2) == 1


def test_a_room_no_one_uses_closes_after_30_minutes(store):
    idle, _ = _class(store)
    used, key = _class(store)
    for t in range(0, rs.ROOM_IDLE_S + 600, 600):
        store.heartbeat(used, "f", T0 + t)
    assert store.version(idle, T0 + rs.ROOM_IDLE_S) == 1
    with pytest.raises(rs.UnknownRoom):
        store.version(idle, T0 + rs.ROOM_IDLE_S + 1)
    assert store.version(used, T0 + rs.ROOM_IDLE_S + 1) == 1
    presented, key = _class(store)
    store.publish(presented, key, "home", 0, {}, T0 + rs.ROOM_IDLE_S)     # a presenter's action counts too
    assert store.version(presented, T0 + 2 * rs.ROOM_IDLE_S) == 2
    with pytest.raises(rs.UnknownRoom):
        store.snapshot(presented, T0 + 2 * rs.ROOM_IDLE_S + 1)


# --- looking up a room code -----------------------------------------------------------------------------------

def _miss(store, address, now):
    """A lookup of a code no room has (a fixed one: no room in these tests ever gets it by chance twice)."""
    with pytest.raises((rs.UnknownRoom, rs.RateLimited)) as info:
        store.find_room("ZZZZZZ", address, now)
    return info.value


def test_failed_lookups_from_one_address_back_off_and_a_known_room_never_does(store):
    code, _ = _class(store)
    assert store.find_room(code.lower(), SCHOOL, T0) == code               # a student of the school finds it
    for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):
        assert isinstance(_miss(store, SCHOOL, T0 + i), rs.UnknownRoom)
    last = T0 + rs.LOOKUP_FAILURES_PER_ADDRESS - 1
    for k in range(3):                                                     # each try while waiting doubles it
        refused = _miss(store, SCHOOL, last + 1)
        assert isinstance(refused, rs.RateLimited)
        assert abs(refused.retry_after - rs.BACKOFF_BASE_S * 2 ** (k + 1)) < 0.01, (k, refused.retry_after)
    for i in range(5):                                                     # the room found before: never limited
        assert store.find_room(code, SCHOOL, last + 1 + i) == code
    other, _ = _class(store)
    with pytest.raises(rs.RateLimited):                                    # a room this address never found
        store.find_room(other, SCHOOL, last + 2)
    assert store.find_room(other, TEACHER, last + 2) == other              # other addresses are not touched
    assert isinstance(_miss(store, TEACHER, last + 2), rs.UnknownRoom)


def test_the_back_off_ends_once_the_wait_has_passed(store):
    for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):
        _miss(store, FLOODER, T0 + i)
    refused = _miss(store, FLOODER, T0 + rs.LOOKUP_FAILURES_PER_ADDRESS)
    assert isinstance(refused, rs.RateLimited)
    code, _ = _class(store, T0 + 20)
    assert store.find_room(code, FLOODER, T0 + rs.LOOKUP_FAILURES_PER_ADDRESS + refused.retry_after + 0.01) == code
    later = T0 + rs.LOOKUP_WINDOW_S + 3 * rs.BACKOFF_MAX_S                 # every attempt left the window
    assert isinstance(_miss(store, FLOODER, later), rs.UnknownRoom)


def test_one_address_cannot_make_the_server_wait_but_many_can(store):
    for i in range(1000):
        _miss(store, FLOODER, T0 + i * 0.1)
    assert isinstance(_miss(store, TEACHER, T0 + 100), rs.UnknownRoom)    # one flooder: others unaffected
    code, _ = _class(store, T0 + 100)
    assert store.find_room(code, SCHOOL, T0 + 100) == code                 # SCHOOL has found it
    n = rs.LOOKUP_FAILURES_PER_SERVER // rs.LOOKUP_FAILURES_PER_ADDRESS + 1
    for a in range(n):                                                     # a crowd of addresses
        for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):
            _miss(store, f"10.0.{a}.1", T0 + 101 + i * 0.01)
    assert isinstance(_miss(store, "10.0.0.1", T0 + 102), rs.RateLimited)  # an address that guessed waits
    fresh, _ = _class(store, T0 + 102)
    assert store.find_room(fresh, "172.16.0.8", T0 + 102) == fresh          # one that never failed: never refused
    assert isinstance(_miss(store, "172.16.0.9", T0 + 102), rs.UnknownRoom)
    assert isinstance(_miss(store, "172.16.0.9", T0 + 103), rs.RateLimited)  # ...until it fails once
    assert store.find_room(code, SCHOOL, T0 + 102) == code                 # a known room: still found


# --- presence and locking -------------------------------------------------------------------------------------

def test_a_join_and_leave_flood_frees_its_seats(store_factory):
    store = store_factory(max_followers=3)
    code, _ = _class(store)
    for i in range(300):                                                   # each beats once, then is gone
        store.heartbeat(code, f"bot{i}", T0 + i * (rs.FOLLOWER_TTL_S + 1) / 3)
    after = T0 + 300 * (rs.FOLLOWER_TTL_S + 1) / 3 + rs.FOLLOWER_TTL_S + 1
    for s in ("s1", "s2", "s3"):
        store.heartbeat(code, s, after)
    assert store.follower_count(code, after) == 3


def test_a_locked_room_keeps_its_followers_and_admits_no_one_new(store):
    code, key = _class(store)
    store.heartbeat(code, "in", T0)
    store.heartbeat(code, "lapsed", T0)
    store.heartbeat(code, "gone", T0)
    assert not store.locked(code, T0)
    with pytest.raises(rs.NotPresenter):
        store.lock(code, key + "x", T0)
    store.lock(code, key, T0 + 1)
    assert store.locked(code, T0 + 1)
    store.heartbeat(code, "in", T0 + rs.FOLLOWER_TTL_S)                    # followers stay
    with pytest.raises(rs.RoomLocked):
        store.heartbeat(code, "new", T0 + 2)
    store.heartbeat(code, "lapsed", T0 + rs.REJOIN_GRACE_S)                # back within the grace: still in
    t = T0 + rs.REJOIN_GRACE_S + 1
    store.heartbeat(code, "in", t - 10)
    with pytest.raises(rs.RoomLocked):                                     # silent past the grace: new again
        store.heartbeat(code, "gone", t)
    store.unlock(code, key, t)
    store.heartbeat(code, "new", t)
    assert not store.locked(code, t) and store.follower_count(code, t) == 3


# --- honest counts --------------------------------------------------------------------------------------------

def _asking(store, now=T0):
    code, key = _class(store, now)
    store.open_poll(code, key, "p", OPTIONS, now, info=rs.QuestionInfo("sqrt_dk", "What happens?", OPTIONS[1]))
    return code, key


def test_a_vote_counts_once_per_live_follower_and_a_revote_replaces_it(store):
    code, _ = _asking(store)
    with pytest.raises(rs.NotFollowing) as info:                           # never joined
        store.vote(code, "p", "a", OPTIONS[0], T0)
    assert info.value.reason is rs.Refusal.NOT_FOLLOWING and isinstance(info.value, rs.RoomError)
    store.heartbeat(code, "a", T0)
    store.heartbeat(code, "b", T0)
    store.vote(code, "p", "a", OPTIONS[0], T0)
    store.vote(code, "p", "a", OPTIONS[0], T0 + 1)                         # a reconnect sends it again
    store.vote(code, "p", "b", OPTIONS[0], T0 + 1)
    store.vote(code, "p", "b", OPTIONS[2], T0 + 2)                         # b changes their mind
    tally = store.tally(code, "p", T0 + 2)
    assert tally == rs.Tally({OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 1}, 2, 2, final=False)
    with pytest.raises(rs.NotFollowing):                                   # a's browser went quiet
        store.vote(code, "p", "a", OPTIONS[1], T0 + rs.FOLLOWER_TTL_S + 1)


def test_refusals_say_why(store):
    code, key = _asking(store)
    store.heartbeat(code, "a", T0)
    reasons = {}
    for option in ("nope", "", OPTIONS[0] + " ", "x" * 10_000, None):
        with pytest.raises(rs.VoteRefused) as info:
            store.vote(code, "p", "a", option, T0)
        reasons[repr(option)[:8]] = info.value.reason
    assert set(reasons.values()) == {rs.Refusal.NO_SUCH_OPTION}
    for poll_id in ("q", "", None):                                        # a question not open
        with pytest.raises(rs.NotOpen):
            store.vote(code, poll_id, "a", OPTIONS[0], T0)
    store.reveal_poll(code, key, "p", T0)
    with pytest.raises(rs.NotOpen):
        store.vote(code, "p", "a", OPTIONS[0], T0)
    store.ask_again(code, key, "p", T0)
    store.close_poll(code, key, T0)
    with pytest.raises(rs.NotOpen) as info:
        store.vote(code, "p", "a", OPTIONS[0], T0)
    assert info.value.reason is rs.Refusal.NOT_OPEN
    assert len({c.reason for c in rs.REFUSALS.values()}) == len(rs.Refusal)
    assert len({str(c()) for c in rs.REFUSALS.values()}) == len(rs.Refusal)   # each its own sentence
    with pytest.raises(rs.UnknownRoom):
        store.vote("ZZZZZZ", "p", "a", OPTIONS[0], T0)


steps = hs.lists(hs.tuples(hs.sampled_from(["beat", "vote", "wait"]), hs.sampled_from("abcdef"),
                           hs.sampled_from((*OPTIONS, "junk")), hs.integers(1, 12)), max_size=40)


@settings(max_examples=40, suppress_health_check=FACTORY_OK)
@given(sequence=steps)
def test_answered_never_exceeds_following(store_factory, sequence):
    store = store_factory()
    code, _ = _asking(store)
    t, seen, chose = T0, {}, {}
    for action, follower, option, dt in sequence:
        if action == "beat":
            store.heartbeat(code, follower, t)
            seen[follower] = t
        elif action == "vote":
            live = t - seen.get(follower, -1e9) <= rs.FOLLOWER_TTL_S
            try:
                store.vote(code, "p", follower, option, t)
                chose[follower] = option
                assert live and option in OPTIONS
            except rs.NoSuchOption:
                assert option not in OPTIONS
            except rs.NotFollowing:
                assert option in OPTIONS and not live
        else:
            t += dt
        live_now = {f for f, s in seen.items() if t - s <= rs.FOLLOWER_TTL_S}
        tally = store.tally(code, "p", t)
        expected = Counter(o for f, o in chose.items() if f in live_now)
        assert tally.counts == {o: expected[o] for o in OPTIONS}
        assert tally.answered == sum(expected.values()) <= tally.following == len(live_now)


def test_the_reveal_freezes_the_tally(store):
    code, key = _asking(store)
    for f in "abc":
        store.heartbeat(code, f, T0)
    store.vote(code, "p", "a", OPTIONS[1], T0)
    store.vote(code, "p", "b", OPTIONS[0], T0)
    store.reveal_poll(code, key, "p", T0 + 1)
    later = store.tally(code, "p", T0 + 100)                               # everyone has gone since
    assert later == rs.Tally({OPTIONS[0]: 1, OPTIONS[1]: 1, OPTIONS[2]: 0}, 2, 3, final=True)


# --- rounds and results ---------------------------------------------------------------------------------------

def test_each_round_keeps_its_counts_and_the_results_outlive_the_class_by_a_day(store):
    code, key = _asking(store)
    store.open_poll(code, key, "q", ("yes", "no"), T0 + 1)                 # no info: still kept
    for f in "abcd":
        store.heartbeat(code, f, T0 + 2)
    store.open_poll(code, key, "p", OPTIONS, T0 + 2)
    for f, o in zip("abcd", (0, 0, 1, 2), strict=True):
        store.vote(code, "p", f, OPTIONS[o], T0 + 3)
    store.reveal_poll(code, key, "p", T0 + 4)
    assert store.ask_again(code, key, "p", T0 + 5) > 0
    assert store.snapshot(code, T0 + 5).poll == rs.Poll("p", OPTIONS, False, round=2)   # "After discussion"
    for f, o in zip("abc", (1, 1, 1), strict=True):
        store.vote(code, "p", f, OPTIONS[o], T0 + 6)
    with pytest.raises(rs.RoomFull):
        store.ask_again(code, key, "p", T0 + 7)
    with pytest.raises(rs.NotPresenter):
        store.results(code, key + "x", T0 + 7)
    live = store.results(code, key, T0 + 7)
    assert live.ended_at is None
    store.end_room(code, key)
    for seen in (store.results(code, key, T0 + 8), store.results(code, key, T0 + 6 + rs.RESULTS_TTL_S)):
        assert seen.questions == live.questions and seen.ended_at == T0 + 7   # the presenter's last action
    p, q = seen.questions
    assert (p.poll_id, p.lesson, p.text, p.options, p.right) == ("p", "sqrt_dk", "What happens?", OPTIONS, OPTIONS[1])
    assert [(r.number, r.label, r.asked_at, r.counts) for r in p.rounds] == [
        (1, "First vote", T0, {OPTIONS[0]: 2, OPTIONS[1]: 1, OPTIONS[2]: 1}),
        (2, "After discussion", T0 + 5, {OPTIONS[0]: 0, OPTIONS[1]: 3, OPTIONS[2]: 0})]
    assert (q.poll_id, q.lesson, q.text, q.right, [r.counts for r in q.rounds]) == \
        ("q", "", "", None, [{"yes": 0, "no": 0}])
    with pytest.raises(rs.NotPresenter):
        store.results(code, "not the key", T0 + 8)
    with pytest.raises(rs.UnknownRoom):                                    # a day later: gone
        store.results(code, key, T0 + 8 + rs.RESULTS_TTL_S)
    with pytest.raises(rs.UnknownRoom):
        store.version(code, T0 + 8)


def test_an_expired_class_keeps_its_results_too(store):
    code, key = _asking(store)
    store.heartbeat(code, "a", T0)
    store.vote(code, "p", "a", OPTIONS[2], T0)
    with pytest.raises(rs.UnknownRoom):
        store.version(code, T0 + rs.ROOM_IDLE_S + 1)
    (question,) = store.results(code, key, T0 + rs.ROOM_IDLE_S + 2).questions
    assert question.rounds[0].counts == {OPTIONS[0]: 0, OPTIONS[1]: 0, OPTIONS[2]: 1}


@pytest.mark.parametrize("info", [rs.QuestionInfo(right="not an option"), rs.QuestionInfo(text="x" * 10_000),
                                  rs.QuestionInfo(lesson="s" * 500), ("sqrt_dk", "text", None)])
def test_a_malformed_question_info_is_refused(store, info):
    code, key = _class(store)
    with pytest.raises(ValueError):
        store.open_poll(code, key, "p", OPTIONS, T0, info=info)
    assert store.snapshot(code, T0).poll is None


# --- announcements --------------------------------------------------------------------------------------------

def test_an_announcement_reaches_every_listener_and_a_failing_one_stops_no_one(store):
    heard: list[tuple] = []
    done = threading.Event()

    def broken(code, section):
        raise RuntimeError("a listener that fails")

    def hearing(code, section):
        heard.append((code, section))
        if len(heard) == 2:
            done.set()

    listening = [store.listen(broken), store.listen(hearing)]
    time.sleep(0.3)                                                        # a Redis listener subscribes
    store.announce("K7MQ2P")
    store.announce("K7MQ2P", ("sqrt_dk", "experiment"))
    assert done.wait(10)
    assert heard == [("K7MQ2P", None), ("K7MQ2P", ("sqrt_dk", "experiment"))]
    for handle in listening:
        handle.stop()


lookups = hs.lists(hs.tuples(hs.integers(0, 2), hs.booleans(), hs.sampled_from([0, 0.5, 1, 4, 30, 120])),
                   min_size=1, max_size=60)


@settings(max_examples=30, suppress_health_check=FACTORY_OK)
@given(sequence=lookups)
@example(sequence=[(0, False, 0.5)] * (rs.LOOKUP_FAILURES_PER_ADDRESS + 4) + [(0, True, 1), (1, True, 1)]
         + [(0, False, 6)] * 4 + [(0, True, 200)])
def test_lookups_follow_the_rules_as_written(store_factory, sequence):
    """Against a model of the rules written out here (a list of times per address, a naive scan); the
    server's limit needs more addresses than this and is tested above."""
    store = store_factory()
    code, _ = _class(store)
    tries: dict[int, list[float]] = {0: [], 1: [], 2: []}
    known: set[int] = set()
    t = T0
    for who, right, dt in sequence:
        t += dt
        store.heartbeat(code, "keeps-it-alive", t)
        recent = [x for x in tries[who] if x > t - rs.LOOKUP_WINDOW_S]
        wait = 0.0
        if len(recent) >= rs.LOOKUP_FAILURES_PER_ADDRESS:
            excess = len(recent) - rs.LOOKUP_FAILURES_PER_ADDRESS
            wait = max(0.0, recent[-1] + min(rs.BACKOFF_MAX_S, rs.BACKOFF_BASE_S * 2 ** excess) - t)
        address = f"198.51.100.{who}"
        if right and who in known:
            assert store.find_room(code, address, t) == code
        elif wait > 0:
            tries[who] = (tries[who] + [t])[-(rs.LOOKUP_FAILURES_PER_ADDRESS + 16):]
            n = len([x for x in tries[who] if x > t - rs.LOOKUP_WINDOW_S])
            expected = min(rs.BACKOFF_MAX_S, rs.BACKOFF_BASE_S * 2 ** (n - rs.LOOKUP_FAILURES_PER_ADDRESS))
            with pytest.raises(rs.RateLimited) as info:
                store.find_room(code if right else "ZZZZZZ", address, t)
            assert info.value.retry_after == pytest.approx(max(1.0, expected, wait))
        elif right:
            assert store.find_room(code, address, t) == code
            known.add(who)
        else:
            with pytest.raises(rs.UnknownRoom):
                store.find_room("ZZZZZZ", address, t)
            tries[who] = (tries[who] + [t])[-(rs.LOOKUP_FAILURES_PER_ADDRESS + 16):]

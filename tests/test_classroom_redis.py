"""What only the Redis backend has: its keys (hashes only, TTLs on everything), round trips, faults, selection.

The contract every backend keeps is in test_classroom_store.py, which runs on Redis too.
"""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from classroom import store as rs
from classroom.memory import MemoryRoomStore
from classroom.redis_store import REDIS_TTL_S, RETRY_AFTER_S, RedisRoomStore, changed_room
from classroom.select import ENV_VAR, open_store
from devtools import harness, services

OPTIONS = ("It doubles", "It halves", "It stays the same")


def _store(server, **limits) -> RedisRoomStore:
    return RedisRoomStore.from_url(server.url, prefix=f"t{uuid.uuid4().hex[:12]}:", **limits)


def answers(store: RedisRoomStore, code: str) -> bool:
    """Whether a call reaches Redis again: its answer, or UnknownRoom, rather than StoreUnavailable (which the
    store's breaker also gives at once for RETRY_AFTER_S after a failure)."""
    try:
        store.version(code, time.time())
    except rs.StoreUnavailable:
        return False
    except rs.UnknownRoom:
        pass
    return True


def _raw(server) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)


def _a_class(store, now):
    """A class with something in every key: a view, two followers, an answered and revealed poll, an open one."""
    code, key = store.create_room(now)
    store.publish(code, key, "sqrt_dk", 2, {"d_k": ["64"]}, now)
    store.heartbeat(code, "follower-a", now)
    store.heartbeat(code, "follower-b", now)
    store.open_poll(code, key, "p", OPTIONS, now)
    store.answer(code, "p", "follower-a", OPTIONS[1], now)
    store.reveal_poll(code, key, "p", now)
    store.open_poll(code, key, "q", ("yes", "no"), now)
    store.answer(code, "q", "follower-b", "no", now)
    return code, key


def _room_keys(raw, store, code) -> list[str]:
    return sorted(raw.scan_iter(match=f"{store.prefix}room:{{{code}}}*"))


def test_every_key_of_a_room_expires_by_itself_and_none_holds_the_key(redis_server):
    store, raw = _store(redis_server), _raw(redis_server)
    code, key = _a_class(store, time.time())
    keys = _room_keys(raw, store, code)
    # room, followers, polls and what results keep of them, revealed and p's frozen tally, p's and q's
    # counts, q's chosen (p's went at its reveal)
    assert [k.split("}")[1] for k in keys] == ["", ":chosen:q", ":counts:p", ":counts:q", ":final", ":followers",
                                               ":meta", ":polls", ":revealed"]
    for k in keys:
        assert 0 < raw.ttl(k) <= REDIS_TTL_S, k
        dump = repr(raw.dump(k))
        assert key not in dump and key.encode().hex() not in dump
    assert raw.zscore(store.rooms_key, code) is not None


def test_the_reveal_drops_who_chose_what_and_keeps_the_counts(redis_server):
    store, raw = _store(redis_server), _raw(redis_server)
    code, _ = _a_class(store, time.time())
    elsewhere = [repr(raw.dump(k)) for k in _room_keys(raw, store, code) if not k.endswith(":followers")]
    assert not any("follower-a" in v for v in elsewhere)           # a's answer to p: only counted
    assert not raw.exists(f"{store.prefix}room:{{{code}}}:chosen:p")
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 0, OPTIONS[1]: 1, OPTIONS[2]: 0}


def test_ending_or_expiring_a_room_leaves_no_key_behind(redis_server):
    store, raw = _store(redis_server), _raw(redis_server)
    now = time.time()
    code, key = _a_class(store, now)
    store.end_room(code, key)
    assert _room_keys(raw, store, code) == [] and raw.zscore(store.rooms_key, code) is None
    code, key = _a_class(store, now)
    with pytest.raises(rs.UnknownRoom):
        store.version(code, now + rs.ROOM_TTL_S + 1)
    assert _room_keys(raw, store, code) == []


def test_the_follower_set_stays_as_small_as_the_class(redis_server):
    store, raw = _store(redis_server, max_followers=5), _raw(redis_server)
    code, _ = store.create_room(1000.0)
    for i in range(300):
        store.heartbeat(code, f"f{i}", 1000.0 + i * (rs.FOLLOWER_TTL_S + 1) / 4)
    assert raw.zcard(f"{store.prefix}room:{{{code}}}:followers") <= 2 * 5   # live, and within the rejoin grace


class RoundTrips:
    """Counts what the client sends to Redis: one send is one round trip (a pipeline sends once)."""

    def __init__(self, monkeypatch) -> None:
        self.n = 0
        original = redis.connection.Connection.send_packed_command

        def counting(conn, command, check_health=True):
            self.n += 1
            return original(conn, command, check_health)

        monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counting)

    def of(self, call) -> int:
        call()                               # the first call may load a script (NOSCRIPT, then SCRIPT LOAD)
        before = self.n
        call()
        return self.n - before


def test_a_version_check_and_every_other_call_is_one_round_trip(redis_server, monkeypatch):
    store = _store(redis_server)
    now = time.time()
    code, key = _a_class(store, now)
    trips = RoundTrips(monkeypatch)
    views = iter(range(10**6))
    calls = {
        "version": lambda: store.version(code, now),
        "snapshot": lambda: store.snapshot(code, now),
        "heartbeat": lambda: store.heartbeat(code, "f", now),
        "follower_count": lambda: store.follower_count(code, now),
        "publish": lambda: store.publish(code, key, "sqrt_dk", 1, {"d_k": [str(next(views))]}, now),
        "answer": lambda: store.answer(code, "q", "f", "yes", now),
        "poll_counts": lambda: store.poll_counts(code, "q"),
        "is_presenter": lambda: store.is_presenter(code, key),
        "find_room": lambda: store.find_room(code, "203.0.113.7", now),
        "vote": lambda: store.vote(code, "q", "follower-b", "yes", now),
        "tally": lambda: store.tally(code, "q", now),
        "locked": lambda: store.locked(code, now),
        "results": lambda: store.results(code, key, now),
    }
    assert {name: trips.of(call) for name, call in calls.items()} == dict.fromkeys(calls, 1)


def test_redis_down_is_store_unavailable_on_every_call_and_quick():
    services.require(services.REDIS_SERVER)
    server = services.RedisServer().start()
    store = _store(server)
    now = time.time()
    code, key = _a_class(store, now)
    server.stop()
    calls = [lambda: store.create_room(now), lambda: store.version(code, now), lambda: store.snapshot(code, now),
             lambda: store.heartbeat(code, "f", now), lambda: store.follower_count(code, now),
             lambda: store.publish(code, key, "home", 0, {}, now),
             lambda: store.open_poll(code, key, "r", OPTIONS, now),
             lambda: store.close_poll(code, key, now), lambda: store.answer(code, "q", "f", "yes", now),
             lambda: store.poll_counts(code, "q"), lambda: store.reveal_poll(code, key, "q", now),
             lambda: store.is_presenter(code, key), lambda: store.end_room(code, key),
             lambda: store.find_room(code, "203.0.113.7", now), lambda: store.lock(code, key, now),
             lambda: store.unlock(code, key, now), lambda: store.locked(code, now),
             lambda: store.vote(code, "q", "follower-b", "yes", now), lambda: store.tally(code, "q", now),
             lambda: store.ask_again(code, key, "q", now), lambda: store.results(code, key, now),
             lambda: store.create_room(now, address="203.0.113.7")]
    for call in calls:
        store._down_until = 0.0                      # each call goes to Redis itself (no circuit breaker)
        t0 = time.perf_counter()
        with pytest.raises(rs.StoreUnavailable) as info:
            call()
        assert time.perf_counter() - t0 < 2.0
        assert str(info.value) == "Reconnecting to the class…"
        assert isinstance(info.value, rs.RoomError)            # what a page already shows as a message


def test_a_hung_redis_costs_one_timeout_a_second_not_one_per_call():
    import os
    import signal

    services.require(services.REDIS_SERVER)
    server = services.RedisServer().start()
    try:
        store = _store(server)
        code, _ = store.create_room(time.time())
        os.kill(server.proc.pid, signal.SIGSTOP)                   # accepts connections, answers nothing
        try:
            t0 = time.perf_counter()
            with pytest.raises(rs.StoreUnavailable):
                store.version(code, time.time())
            waited = time.perf_counter() - t0
            assert waited >= 0.5                                   # the client's timeout did fire
            t0 = time.perf_counter()
            for _ in range(50):
                with pytest.raises(rs.StoreUnavailable):
                    store.version(code, time.time())
            assert time.perf_counter() - t0 < min(waited, RETRY_AFTER_S) / 2
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        harness.until(lambda: answers(store, code), RETRY_AFTER_S + 30, "the store did not reach Redis again")
        assert store.version(code, time.time()) == 1               # back, with the room
    finally:
        server.stop()


def test_a_room_resumes_when_its_keys_survive_and_is_unknown_when_they_did_not():
    services.require(services.REDIS_SERVER)
    server = services.RedisServer().start()
    try:
        store, raw = _store(server), _raw(server)
        now = time.time()
        code, key = _a_class(store, now)
        version = store.version(code, now)
        raw.client_kill_filter(_type="normal", skipme=True)   # every connection dropped, Redis still up
        assert store.version(code, now) == version                 # the client reconnects on its own
        assert store.publish(code, key, "projection", 0, {}, now) == version + 1
        server.stop()
        with pytest.raises(rs.StoreUnavailable):
            store.version(code, now)
        server.start()                                             # same port, no persistence: keys gone
        harness.until(lambda: answers(store, code), RETRY_AFTER_S + 30, "the store did not reach Redis again")
        with pytest.raises(rs.UnknownRoom):
            store.version(code, now)
        new_code, _ = store.create_room(now)                 # and a new class starts at once
        assert store.version(new_code, now) == 1
    finally:
        server.stop()


def test_open_store_picks_redis_from_the_environment_or_the_secret_else_memory(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert isinstance(open_store(), MemoryRoomStore)
    assert isinstance(open_store(""), MemoryRoomStore)
    assert isinstance(open_store("redis://127.0.0.1:1/0"), RedisRoomStore)      # nothing connects yet
    monkeypatch.setenv(ENV_VAR, "redis://127.0.0.1:2/0")
    chosen = open_store("redis://127.0.0.1:1/0")                               # the environment wins
    assert chosen.r.connection_pool.connection_kwargs["port"] == 2
    for bad in ("http://example.com", "127.0.0.1:6379", "javascript:alert(1)"):
        monkeypatch.setenv(ENV_VAR, bad)
        with pytest.raises(ValueError):
            open_store()


def test_a_change_announced_by_one_replica_reaches_every_replicas_listener(redis_server):
    prefix = f"t{uuid.uuid4().hex[:12]}:"                          # replicas share one prefix
    replicas = [RedisRoomStore.from_url(redis_server.url, prefix=prefix) for _ in range(2)]
    heard: list[list[tuple]] = [[], []]
    for store, log in zip(replicas, heard, strict=True):
        store.listen(lambda code, section, log=log: log.append((code, section)))
    deadline = time.monotonic() + 10
    while redis.Redis.from_url(redis_server.url).pubsub_numsub(replicas[0].changes_channel)[0][1] < 2:
        assert time.monotonic() < deadline, "the listeners never subscribed"
        time.sleep(0.05)
    replicas[0].announce("K7MQ2P")
    replicas[1].announce("K7MQ2P", ("sqrt_dk", "experiment"))      # a change inside one lesson section
    while not all(len(log) == 2 for log in heard) and time.monotonic() < deadline:
        time.sleep(0.05)
    expected = [("K7MQ2P", None), ("K7MQ2P", ("sqrt_dk", "experiment"))]
    assert heard == [expected, expected]


@pytest.mark.parametrize("message", ["K7MQ2P sqrt_dk", "K7MQ2P a b c", "K7MQ2P  x", "K7MQ2P " + "s" * 65 + " x",
                                     "K7MQ2P" + " x" * 500])
def test_a_malformed_announcement_names_no_section(message):
    assert changed_room(message) == ("K7MQ2P", None)


def test_announcing_with_redis_down_raises_nothing_and_returns_at_once():
    store = RedisRoomStore.from_url(f"redis://127.0.0.1:{harness.free_port()}/0")
    t0 = time.perf_counter()
    assert store.announce("K7MQ2P", ("sqrt_dk", "experiment")) is None
    assert time.perf_counter() - t0 < 2.0


def test_an_ended_class_leaves_only_its_counts_for_a_day_and_addresses_only_as_hashes(redis_server):
    store, raw = _store(redis_server), _raw(redis_server)
    now = time.time()
    code, key = store.create_room(now, address="203.0.113.7")
    store.find_room(code, "198.51.100.2", now)
    store.heartbeat(code, "follower-a", now)
    store.open_poll(code, key, "p", OPTIONS, now, info=rs.QuestionInfo("sqrt_dk", "Which?", OPTIONS[0]))
    store.vote(code, "p", "follower-a", OPTIONS[0], now)
    store.end_room(code, key)
    results_key = f"{store.prefix}results:{{{code}}}"
    assert _room_keys(raw, store, code) == [] and 0 < raw.ttl(results_key) <= rs.RESULTS_TTL_S
    kept = raw.get(results_key)
    assert "follower-a" not in kept and key not in kept and OPTIONS[0] in kept
    every = "".join(repr(raw.dump(k)) for k in raw.scan_iter(match=f"{store.prefix}*"))
    assert "203.0.113.7" not in every and "198.51.100.2" not in every and "follower-a" not in every
    assert store.results(code, key, now).questions[0].rounds[0].counts[OPTIONS[0]] == 1


def test_presence_is_a_sorted_set_by_time(redis_server):
    store, raw = _store(redis_server), _raw(redis_server)
    code, _ = store.create_room(1000.0)
    for i, t in enumerate((1000.0, 1001.0, 1002.5)):
        store.heartbeat(code, f"f{i}", t)
    followers = f"{store.prefix}room:{{{code}}}:followers"
    assert raw.type(followers) == "zset"
    assert raw.zrange(followers, 0, -1, withscores=True) == [("f0", 1000.0), ("f1", 1001.0), ("f2", 1002.5)]
    assert store.follower_count(code, 1001.0 + rs.FOLLOWER_TTL_S) == 2       # f0 is past FOLLOWER_TTL_S


def test_the_listener_is_redis_pys_worker_and_survives_redis_being_away_at_first():
    from redis.client import PubSubWorkerThread

    services.require(services.REDIS_SERVER)
    server = services.RedisServer()                                  # a port, nothing listening yet
    store = RedisRoomStore.from_url(server.url, prefix=f"t{uuid.uuid4().hex[:12]}:")
    heard: list[tuple] = []
    thread = store.listen(lambda code, section: heard.append((code, section)))
    try:
        assert isinstance(thread, PubSubWorkerThread) and thread.daemon
        harness.until(lambda: thread.exception_handler.failures >= 1, 10, "a failed read while Redis is away")
        assert thread.is_alive()
        server.start()
        deadline = time.monotonic() + 15
        while not heard and time.monotonic() < deadline:             # subscribed once Redis is there
            store.announce("K7MQ2P", ("sqrt_dk", "experiment"))
            time.sleep(0.2)
        assert heard and heard[0] == ("K7MQ2P", ("sqrt_dk", "experiment"))
        server.stop()                                                # and again after a restart
        server.start()
        heard.clear()
        deadline = time.monotonic() + 15
        while not heard and time.monotonic() < deadline:
            store.announce("K7MQ2P")
            time.sleep(0.2)
        assert heard and heard[0] == ("K7MQ2P", None)
    finally:
        thread.stop()
        server.stop()

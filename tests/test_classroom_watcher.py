"""The process's check on its followers' rooms (ui.classroom.Watcher), one round at a time, against the
in-process store and a real follower registry, with the wake queue's asks recorded instead of sent."""

from __future__ import annotations

from time import time_ns

import pytest

from classroom.memory import MemoryRoomStore
from classroom.store import FOLLOWER_TTL_S, StoreUnavailable
from tests.conftest import room_store_of
from ui import streamlit_private as private, wake
from ui.classroom import Watcher

T0 = 1_000.0


class Registry(wake.Followers):
    """A registry that stands in for the wake queue too (``Watcher(store, reg, reg)``): which sessions the
    watcher asked to wake, round by round."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[set[str]] = []

    def ask(self, sids, section=None) -> int:
        self.asked.append(set(sids))
        return len(sids)


def _room(store: MemoryRoomStore) -> tuple[str, str, int]:
    code, key = store.create_room(T0)
    version = store.publish(code, key, "sqrt_dk", 0, {}, T0)
    return code, key, version


def _asked(reg: Registry) -> set[str]:
    out = set().union(*reg.asked) if reg.asked else set()
    reg.asked.clear()
    return out


def test_only_followers_behind_the_room_are_woken_and_everyone_is_kept_present():
    store, reg = MemoryRoomStore(), Registry()
    code, key, version = _room(store)
    for sid, seen in (("a", version), ("b", version - 1), ("c", None)):
        reg.follow(code, sid)
        reg.note(sid, seen, f"me-{sid}")
    watcher = Watcher(store, reg, reg)
    watcher.check(T0 + 1)
    assert _asked(reg) == {"c"}                            # "c" never applied one; "b" may be applying it now
    watcher.check(T0 + 2)
    assert _asked(reg) == {"b", "c"}                       # still behind a round later: its wake was lost
    assert "a" not in watcher._behind
    # An hour of rounds: no student ran a script, yet all three still count as present.
    for i in range(1, 20):
        watcher.check(T0 + i * (FOLLOWER_TTL_S - 1))
    assert store.follower_count(code, T0 + 19 * (FOLLOWER_TTL_S - 1)) == 3
    reg.asked.clear()
    reg.note("b", version, "me-b")
    reg.note("c", version, "me-c")
    watcher.check(T0 + 400)
    assert _asked(reg) == set()                            # nobody behind: nobody woken
    new = store.publish(code, key, "projection", 0, {}, T0 + 400)
    assert new != version
    watcher.check(T0 + 401)
    reg.note("a", new, "me-a")                             # "a" got its wake; the others' were lost
    watcher.check(T0 + 402)
    assert _asked(reg) == {"b", "c"}                       # the check catches them a round later
    reg.forget("b")
    watcher.check(T0 + 403)
    assert "b" not in watcher._behind                      # a follower that left is not remembered


class Flaky(MemoryRoomStore):
    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def version(self, code, now):
        if self.down:
            raise StoreUnavailable("Redis is away")
        return super().version(code, now)


def test_a_store_that_goes_away_and_comes_back_wakes_its_followers_once_each_way():
    store, reg = Flaky(), Registry()
    code, _, version = _room(store)
    for sid in ("a", "b"):
        reg.follow(code, sid)
        reg.note(sid, version, sid)
    watcher = Watcher(store, reg, reg)
    store.down = True
    watcher.check(T0 + 1)
    assert _asked(reg) == {"a", "b"}                       # their bar now says "Reconnecting"
    watcher.check(T0 + 2)
    watcher.check(T0 + 3)
    assert _asked(reg) == set()                            # said once, not on every round
    store.down = False
    watcher.check(T0 + 4)
    assert _asked(reg) == {"a", "b"}                       # back: their run clears the bar
    watcher.check(T0 + 5)
    assert _asked(reg) == set()


def test_an_ended_class_wakes_its_followers_and_a_full_one_says_why_once():
    store, reg = MemoryRoomStore(max_followers=1), Registry()
    code, key, version = _room(store)
    reg.follow(code, "a")
    reg.note("a", version, "first")
    reg.follow(code, "b")
    reg.note("b", version, "second")                       # joined, then the room filled behind its back
    watcher = Watcher(store, reg, reg)
    watcher.check(T0 + 1)
    (told,) = _asked(reg)                                  # whichever beat second finds the class full
    why = watcher.full(told)
    assert why is not None and "full" in why
    assert watcher.full(told) is None                      # told once
    assert watcher.full(({"a", "b"} - {told}).pop()) is None
    store.end_room(code, key)
    watcher.check(T0 + 2)
    assert _asked(reg) == {"a", "b"}                       # their next run says the class has ended


def test_a_round_never_raises_into_the_thread_and_a_session_that_left_is_not_checked():
    store, reg = MemoryRoomStore(), Registry()
    code, _, version = _room(store)
    reg.follow(code, "a")
    reg.note("a", version, "a")
    reg.forget("a")
    watcher = Watcher(store, reg, reg)
    assert watcher.check(T0 + 1) == 0 and reg.asked == []
    reg.follow("ZZZZZZ", "ghost")                           # a room that never existed
    reg.note("ghost", None, "ghost")
    watcher.check(T0 + 2)
    assert _asked(reg) == {"ghost"}                        # its run says there is no such class


def test_a_new_watcher_stops_the_last_one_so_a_cleared_cache_never_adds_threads():
    import threading
    import time

    from ui.classroom import start_watcher

    def watching() -> list:
        return [t for t in threading.enumerate() if t.name == "attention-classroom-watch" and t.is_alive()]

    store, reg = MemoryRoomStore(), Registry()
    first = start_watcher(store, reg, reg)
    watchers = [start_watcher(store, reg, reg) for _ in range(5)]
    assert first.stop.is_set() and all(w.stop.is_set() for w in watchers[:-1])
    assert not watchers[-1].stop.is_set()
    deadline = time.monotonic() + 5
    while len(watching()) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(watching()) == 1
    watchers[-1].stop.set()


def _store(backend: str, request):
    return room_store_of(backend, request)


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_closed_tab_stops_beating_at_once_and_leaves_the_count_within_the_ttl(backend, request, monkeypatch):
    """Presence (issue 29): the watcher beats only for sessions the server still has connected."""
    store, reg = _store(backend, request), Registry()
    code, _, version = _room(store)
    connected = {"a", "b"}
    monkeypatch.setattr(private, "server", lambda: private.Server(
        lambda sid: object() if sid in connected else None, lambda *args: None))
    for sid in ("a", "b"):
        reg.follow(code, sid)
        reg.note(sid, version, f"me-{sid}")
    watcher = Watcher(store, reg, reg)
    watcher.check(T0 + 1)
    assert store.follower_count(code, T0 + 1) == 2
    connected.discard("b")                                 # b's browser closed its websocket
    watcher.check(T0 + 6)
    assert [sid for sid, _, _ in reg.members(code)] == ["a"]   # forgotten at the first round after
    assert store.follower_count(code, T0 + 1 + FOLLOWER_TTL_S) == 2     # its last beat still counts...
    watcher.check(T0 + 11)
    assert store.follower_count(code, T0 + 1 + FOLLOWER_TTL_S + 0.5) == 1   # ...until FOLLOWER_TTL_S after it
    connected.add("b")                                     # the same session back (a reconnect): it follows again
    reg.follow(code, "b")
    reg.note("b", version, "me-b")
    watcher.check(T0 + 20)
    assert store.follower_count(code, T0 + 20) == 2


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_the_presence_read_stays_one_cheap_call_with_a_full_class(backend, request):
    """500 followers: the count the presenter's panel reads every few seconds is one store call, and
    counts only those within FOLLOWER_TTL_S of their last beat."""
    store = _store(backend, request)
    code, _, _ = _room(store)
    for i in range(500):
        store.heartbeat(code, f"f{i}", T0 + (i % 20))          # beats spread over 20 s
    now = T0 + 19
    expected = sum(1 for i in range(500) if now - (T0 + i % 20) <= FOLLOWER_TTL_S)
    t0 = time_ns()
    counts = {store.follower_count(code, now) for _ in range(50)}
    per_read_ms = (time_ns() - t0) / 50 / 1e6
    assert counts == {expected}
    assert per_read_ms < 50, per_read_ms                   # ~0.1 ms here; generous for a loaded machine


def test_in_the_app_the_watchers_asks_go_through_the_wake_queue():
    """The app's watcher hands its asks to the process's wake queue (ui.wake_queue), which wakes them from its
    own thread, a few at a time, and skips a follower already due there."""
    from devtools.harness import until
    from ui.wake_queue import WakeQueue

    class Sending(wake.Followers):
        def __init__(self) -> None:
            super().__init__()
            self.sent: list[str] = []

        def send(self, sid, section=None):
            self.sent.append(sid)
            return None                                    # as if its browser had gone: no turn to wait on

    store, reg = MemoryRoomStore(), Sending()
    code, _, _ = _room(store)
    reg.follow(code, "new")
    reg.note("new", None, "me-new")                        # never applied a version: woken at the first round
    queue = WakeQueue(reg)
    try:
        assert Watcher(store, reg, queue).check(T0 + 1) == 1
        until(lambda: reg.sent == ["new"], 10, "the queue waking the follower")
    finally:
        queue.stop()


class Listened(MemoryRoomStore):
    """A store that counts the listeners it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.listeners: list = []

    def listen(self, on_change):
        self.listeners.append(on_change)
        return super().listen(on_change)


def test_the_threads_start_once_from_one_place_however_many_runs_call_it(monkeypatch):
    """ui.classroom.threads.ensure_running, called at the top of every run (from many sessions' threads at
    once): one listener on the store and, under a server, one watcher, whose asks go to the wake queue."""
    import threading

    from ui.classroom import rooms, threads
    from ui.wake_queue import WakeQueue

    store, reg = Listened(), Registry()
    queue = WakeQueue(reg)
    monkeypatch.setattr(threads, "_THREADS", threads._Threads())
    monkeypatch.setattr(rooms, "room_store", lambda: store)
    monkeypatch.setattr(threads.wake_queue, "wakes", lambda: queue)
    monkeypatch.setattr(threads.wake, "followers", lambda: reg)
    monkeypatch.setattr(private, "served", lambda: True)
    started = []
    real_start = threads.watching.start_watcher
    monkeypatch.setattr(threads.watching, "start_watcher", lambda *a: started.append(real_start(*a)) or started[-1])
    try:
        runs = [threading.Thread(target=lambda: [threads.ensure_running() for _ in range(200)]) for _ in range(8)]
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        assert store.listeners == [queue.put] and len(started) == 1
        (watcher,) = started
        assert watcher.wakes is queue and not watcher.stop.is_set()
        code, _, _ = _room(store)
        reg.follow(code, "new")                            # never applied a version: the watcher's first ask
        watcher.check(T0 + 1)
        assert threads.full("new") is None                 # nothing to say: its class is not full
    finally:
        for w in started:
            w.stop.set()
        queue.stop()


def test_without_a_server_only_the_listener_starts(monkeypatch):
    from ui.classroom import rooms, threads

    store = Listened()
    monkeypatch.setattr(threads, "_THREADS", threads._Threads())
    monkeypatch.setattr(rooms, "room_store", lambda: store)
    monkeypatch.setattr(private, "served", lambda: False)
    threads.ensure_running()
    threads.ensure_running()
    assert len(store.listeners) == 1 and threads._THREADS.watcher is None and threads.full("anyone") is None


def test_a_start_that_fails_breaks_no_run_and_is_tried_again_later(monkeypatch, caplog):
    from ui.classroom import rooms, threads

    class Refusing(Listened):
        refuse = True

        def listen(self, on_change):
            if self.refuse:
                raise RuntimeError("not now")
            return super().listen(on_change)

    store = Refusing()
    monkeypatch.setattr(threads, "_THREADS", threads._Threads())
    monkeypatch.setattr(rooms, "room_store", lambda: store)
    monkeypatch.setattr(private, "served", lambda: False)
    threads.ensure_running()                               # raises nothing into the page's run
    assert "not now" in caplog.text and not threads._THREADS.started
    store.refuse = False
    threads.ensure_running()
    assert store.listeners == []                           # within RETRY_S: not tried on every run
    threads._THREADS.retry_at = 0.0                        # RETRY_S later
    threads.ensure_running()
    threads.ensure_running()
    assert len(store.listeners) == 1 and threads._THREADS.started

"""ui.wake_queue: a presenter's change is handed to one thread that wakes the followers a few at a time.

The registry here records its wakes (``send``) instead of asking a server: each test controls when a wake
"returns" and when the woken run is over, and waits on those events (devtools.harness.until)."""

from __future__ import annotations

import threading
import time

from classroom.memory import MemoryRoomStore
from devtools.harness import until
from ui import wake
from ui.wake_queue import WakeQueue

CODE = "AAAAAA"
A, B = ("sqrt_dk", "experiment"), ("sqrt_dk", "other")
WAIT_S = 10


class Turn:
    def __init__(self) -> None:
        self.done = threading.Event()

    def over(self, now: float) -> bool:
        return self.done.is_set()


class Registry(wake.Followers):
    """Followers whose wakes are noted as (session id, section); ``gate`` holds each wake until it is set,
    ``finish`` says whether a woken run is over at once, ``broken`` names sessions whose wake raises."""

    def __init__(self, *, finish: bool = True) -> None:
        super().__init__()
        self.sent: list[tuple[str, wake.Section | None]] = []
        self.turns: dict[str, Turn] = {}
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.finish = finish
        self.broken: set[str] = set()
        self.threads: set[str] = set()

    def send(self, sid, section=None):
        self.threads.add(threading.current_thread().name)
        self.entered.set()
        assert self.gate.wait(WAIT_S)
        if sid in self.broken:
            raise RuntimeError("this session's wake failed")
        self.sent.append((sid, section))
        turn = self.turns[sid] = Turn()
        if self.finish:
            turn.done.set()
        return turn


def _class(reg: Registry, n: int = 3) -> list[str]:
    sids = [f"s{i}" for i in range(1, n + 1)]
    for sid in sids:
        reg.follow(CODE, sid)
    return sids


def test_the_presenters_announce_returns_before_any_follower_is_woken():
    reg = Registry()
    _class(reg)
    reg.gate.clear()                                    # every wake hangs until the test lets it go
    store, queue = MemoryRoomStore(), WakeQueue(reg)
    store.listen(queue.put)                             # as ui.classroom.threads.ensure_running does
    try:
        t0 = time.perf_counter()
        store.announce(CODE, A)                         # in one process: called in the presenter's run
        returned = time.perf_counter() - t0
        until(reg.entered.is_set, WAIT_S, "the queue's thread starting the first wake")
        assert reg.sent == [] and returned < WAIT_S / 2     # it returned while the wake was still held
        reg.gate.set()
        until(lambda: len(reg.sent) == 3, WAIT_S, "all three followers woken")
        assert sorted(reg.sent) == [("s1", A), ("s2", A), ("s3", A)]
        assert reg.threads == {"attention-classroom-wakes"}     # the queue's one thread, not the presenter's
    finally:
        reg.gate.set()
        queue.stop()


def test_repeated_wakes_coalesce_into_one_per_follower_and_mixed_sections_rerun_the_page():
    reg = Registry()
    _class(reg)
    reg.gate.clear()
    queue = WakeQueue(reg, at_once=1)
    try:
        queue.put(CODE, A)
        until(reg.entered.is_set, WAIT_S, "the first wake under way")
        for section in (A, A, B):                        # three more changes while the first wake hangs
            queue.put(CODE, section)
        reg.gate.set()
        until(lambda: queue.pending() == 0, WAIT_S, "the queue emptied")
        # The one being woken is due once more, after the two that were due: each of those still once;
        # two sections pending for one follower: its whole page.
        first = reg.sent[0][0]
        assert reg.sent[0] == (first, A) and reg.sent[-1] == (first, None)
        assert sorted(reg.sent[1:]) == [("s1", None), ("s2", None), ("s3", None)]
    finally:
        reg.gate.set()
        queue.stop()


def test_at_most_at_once_runs_are_woken_before_one_is_over():
    reg = Registry(finish=False)
    sids = _class(reg, 6)
    queue = WakeQueue(reg, at_once=2)
    try:
        queue.put(CODE)
        until(lambda: len(reg.sent) == 2, WAIT_S, "two followers woken")
        time.sleep(0.2)                                  # the queue looks every 10 ms: it has had 20 chances
        assert len(reg.sent) == 2
        reg.turns[reg.sent[0][0]].done.set()             # one run over: one more wake
        until(lambda: len(reg.sent) == 3, WAIT_S, "a third follower woken")
        time.sleep(0.2)
        assert len(reg.sent) == 3
        def finish_all() -> bool:                         # every run woken so far ends: the next go out
            for turn in list(reg.turns.values()):
                turn.done.set()
            return len(reg.sent) == len(sids)

        until(finish_all, WAIT_S, "every follower woken")
        reg.turns[reg.sent[-1][0]].done.set()
        until(lambda: queue.pending() == 0, WAIT_S, "the queue emptied")
        assert sorted(sid for sid, _ in reg.sent) == sids
    finally:
        queue.stop()


def test_a_failing_wake_stops_no_other_follower_and_the_thread_keeps_going():
    reg = Registry()
    _class(reg)
    reg.broken = {"s2"}
    queue = WakeQueue(reg)
    try:
        queue.put(CODE)
        until(lambda: queue.pending() == 0, WAIT_S, "the queue emptied")
        assert sorted(reg.sent) == [("s1", None), ("s3", None)]
        reg.broken = set()
        queue.put(CODE, A)                               # the next change still goes out, s2 included
        until(lambda: len(reg.sent) == 5, WAIT_S, "the next change's wakes")
        assert sorted(reg.sent[2:]) == [("s1", A), ("s2", A), ("s3", A)]
    finally:
        queue.stop()


def test_a_failing_listener_stops_no_other_in_the_in_process_store():
    store, heard = MemoryRoomStore(), []

    def broken(code, section):
        raise RuntimeError("this listener failed")

    store.listen(broken)
    store.listen(lambda code, section: heard.append((code, section)))
    store.announce(CODE, A)
    assert heard == [(CODE, A)]


def test_the_watchers_asks_queue_too_and_a_room_nobody_follows_wakes_nobody():
    reg = Registry()
    _class(reg, 2)
    queue = WakeQueue(reg)
    try:
        reg.gate.clear()
        assert queue.ask(["s2"]) == 1
        until(reg.entered.is_set, WAIT_S, "s2's wake under way")
        assert queue.ask(["s2"]) == 0                    # already being woken: not asked twice
        reg.gate.set()
        until(lambda: reg.sent == [("s2", None)], WAIT_S, "s2 woken")
        queue.put("ZZZZZZ")
        queue.ask([])
        until(lambda: queue.pending() == 0, WAIT_S, "the queue emptied")
        assert reg.sent == [("s2", None)]
    finally:
        queue.stop()



def test_wakes_wait_while_a_presenters_run_goes_on_for_at_most_hold_max_s(monkeypatch):
    from ui import streamlit_private as private, wake_queue

    presenter = object()
    running = threading.Event()                          # the presenter's run is going on while this is set
    monkeypatch.setattr(private, "server", lambda: private.Server(
        lambda sid: presenter if sid == "p" else None, lambda *args: None))
    monkeypatch.setattr(wake, "running", lambda session: session is presenter and running.is_set())
    reg = Registry()
    _class(reg, 2)
    queue = WakeQueue(reg)
    try:
        queue.presenting("p")
        queue.presenting(None)                           # a change from outside a run notes no one
        running.set()
        queue.put(CODE)
        time.sleep(0.3)                                  # 30 chances for the queue to wake someone
        assert reg.sent == []                            # the presenter's run goes first
        running.clear()
        until(lambda: len(reg.sent) == 2, WAIT_S, "both followers woken once the presenter's run is over")
        monkeypatch.setattr(wake_queue, "HOLD_MAX_S", 0.2)
        running.set()                                    # a presenter's run that never ends...
        t0 = time.perf_counter()
        queue.put(CODE)
        until(lambda: len(reg.sent) == 4, WAIT_S, "the followers woken after HOLD_MAX_S")
        assert time.perf_counter() - t0 >= 0.2           # ...holds the class back no longer than that
    finally:
        queue.stop()

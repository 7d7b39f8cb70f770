"""Issue 29's floods, reproduced against a real server with clients that speak Streamlit's websocket protocol
(devtools/ws_client.py), and shown to fail: one address cannot fill the server with classes, a join flood
fills at most one class and frees its seats once its sessions leave, and guessing codes from fresh sessions
is limited per address.

The server trusts 127.0.0.1 as its proxy (ATTENTION_TRUSTED_PROXIES), as the shipped HAProxy setup does, so
each client says its address in X-Forwarded-For: many addresses from one machine.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from classroom.store import FOLLOWER_TTL_S, LIVE_CLASSES_PER_ADDRESS, LOOKUP_FAILURES_PER_ADDRESS, MAX_FOLLOWERS
from devtools import harness, ws_client
from devtools.ws_client import Client

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

WAIT_S = 60
ATTACKER = "203.0.113.66"
TEACHER = "198.51.100.7"


HALL_LOG = harness.ROOT / "artifacts" / "floods-server.log"


@pytest.fixture(scope="module")
def hall():
    HALL_LOG.parent.mkdir(exist_ok=True)
    log = open(HALL_LOG, "w")
    proc, base, _ = harness.start(log=log, env={"ATTENTION_TRUSTED_PROXIES": "127.0.0.1"})
    try:
        yield harness.stream_url(base)
    finally:
        harness.stop(proc)
        log.close()


def server_tracebacks(path=HALL_LOG) -> str:
    """Every traceback the server wrote to its log (an app exception a session was shown only redacted)."""
    lines, kept, inside = path.read_text(errors="replace").splitlines(), [], False
    for line in lines:
        if line.startswith("Traceback"):
            inside = True
        elif inside and line and not line[0].isspace():   # the exception's own line ends the traceback
            kept.append(line)
            inside = False
            continue
        if inside:
            kept.append(line)
    return "\n".join(kept) or "no traceback in the server's log"


def _client(ws_url: str, name: str, address: str, query: str = "") -> Client:
    return Client(ws_url, name, query=query, headers={"X-Forwarded-For": address})


def _said(client: Client) -> list[str]:
    """Everything the session was told, in order (markdown and alerts)."""
    return [*client.markdown, *client.alerts]


async def _start(ws_url: str, name: str, address: str) -> Client:
    """A session that opens the app and presses "Start a class" (its answer is in its markdown)."""
    c = _client(ws_url, name, address)
    await ws_client.press_start(c, WAIT_S)
    return c


def _code(c: Client) -> str | None:
    return next((m.split(": ")[1].strip() for m in c.markdown if m.startswith("### Room code:")), None)


def _count(c: Client) -> int | None:
    """The presenter panel's latest "N students following"."""
    for m in reversed(c.markdown):
        if m.endswith("following**") and m.startswith("**"):
            return int(m.strip("*").split()[0])
    return None


def test_a_200_class_flood_from_one_address_leaves_a_teacher_elsewhere_able_to_start(hall):
    async def flood() -> tuple[list[Client], Client]:
        attackers: list[Client] = []
        for batch in range(8):                          # 200 sessions, 25 at a time, each closing after its start
            wave = await asyncio.gather(*(_start(hall, f"attacker {batch}-{i}", ATTACKER) for i in range(25)))
            attackers += wave
            await asyncio.gather(*(c.close() for c in wave))
        teacher = await _start(hall, "teacher", TEACHER)
        await teacher.close()
        return attackers, teacher

    t0 = time.perf_counter()
    attackers, teacher = ws_client.run(flood())
    took = time.perf_counter() - t0
    started = [c for c in attackers if _code(c)]
    refused = [c for c in attackers if any("classes" in m and "Try again in" in m for m in c.alerts)]
    print(f"200 starts from one address in {took:.0f} s: {len(started)} classes, {len(refused)} refused")
    errors = [e for c in (*attackers, teacher) for e in c.errors if "exception" in e]
    assert not errors, f"{errors[:3]}\nthe server's log:\n{server_tracebacks()}"
    assert len(started) == LIVE_CLASSES_PER_ADDRESS, server_tracebacks()
    assert len(refused) == 200 - LIVE_CLASSES_PER_ADDRESS, server_tracebacks()
    assert _code(teacher) is not None, (_said(teacher)[-5:], server_tracebacks())


def test_a_505_session_join_flood_fills_one_class_and_its_seats_free_once_they_leave(hall):
    async def flood() -> tuple[int | None, int, int, float, bool]:
        presenter = await _start(hall, "presenter", TEACHER)
        code = _code(presenter)
        # From four addresses: one address may bring NEW_STUDENTS_PER_ADDRESS new students a minute (issue 45).
        crowd = [_client(hall, f"joiner {i}", f"203.0.113.{70 + i % 4}", query=f"room={code}")
                 for i in range(MAX_FOLLOWERS + 5)]

        async def join(i: int, c: Client) -> None:
            await c.open()
            await c.run(timeout=WAIT_S * 3)
            await ws_client.browser_says(c, f"{i:032x}")

        for start in range(0, len(crowd), 50):
            await asyncio.gather(*(join(start + i, c) for i, c in enumerate(crowd[start:start + 50])))
        following = [c for c in crowd if any(m.startswith(":material/groups: **Following class") for m in c.markdown)]
        full = [c for c in crowd if any("This class is full" in m for m in c.alerts)]
        await presenter.until(lambda: _count(presenter) == len(following), WAIT_S)
        at_full = _count(presenter)
        left = time.perf_counter()
        await asyncio.gather(*(c.close() for c in crowd))   # all leave at once, saying nothing
        await presenter.until(lambda: _count(presenter) == 0, FOLLOWER_TTL_S + 20)
        freed = time.perf_counter() - left
        late = _client(hall, "a real student", TEACHER, query=f"room={code}")
        await late.open()
        await late.run(timeout=WAIT_S)
        await ws_client.browser_says(late, "f" * 32)
        joined = any(m.startswith(":material/groups: **Following class") for m in late.markdown)
        for c in (presenter, late):
            await c.close()
        return at_full, len(following), len(full), freed, joined

    at_full, following, full, freed, joined = ws_client.run(flood())
    print(f"505 joins: {following} following, {full} told the class is full; seats free {freed:.1f} s after leaving")
    assert following == MAX_FOLLOWERS and full == 5 and at_full == MAX_FOLLOWERS
    assert freed <= FOLLOWER_TTL_S + 8                  # the watcher's round, the panel's refresh
    assert joined


def test_guessing_codes_from_fresh_sessions_is_limited_per_address(hall):
    async def guess() -> tuple[list[str], str]:
        answers = []
        for i in range(LOOKUP_FAILURES_PER_ADDRESS + 2):   # each guess from a fresh session: no session limit
            c = _client(hall, f"guesser {i}", ATTACKER, query="room=ZZZZZZ")
            await c.open()
            await c.run(timeout=WAIT_S)
            await ws_client.browser_says(c, f"{i + 1:032x}")
            answers.append(next((m for m in reversed(c.alerts) if "code" in m), ""))
            await c.close()
        other = _client(hall, "a student elsewhere", TEACHER, query="room=ZZZZZZ")
        await other.open()
        await other.run(timeout=WAIT_S)
        await ws_client.browser_says(other, "e" * 32)
        elsewhere = next((m for m in reversed(other.alerts) if "code" in m), "")
        await other.close()
        return answers, elsewhere

    answers, elsewhere = ws_client.run(guess())
    unknown = [a for a in answers if "no class with that code" in a]
    limited = [a for a in answers if "Too many class codes were tried" in a and "Try again in" in a]
    assert len(unknown) == LOOKUP_FAILURES_PER_ADDRESS and len(limited) == 2, answers
    assert "no class with that code" in elsewhere                 # another address is not limited


def test_with_redis_a_closed_session_leaves_the_count_within_the_follower_ttl(redis_server):
    """Presence with the shared store: the same watcher beats, through Redis, only for live sessions."""
    log = open(harness.ROOT / "artifacts" / "floods-redis-server.log", "w")
    proc, base, _ = harness.start(log=log, env={"ATTENTION_REDIS_URL": redis_server.url})
    ws_url = harness.stream_url(base)

    async def leave() -> tuple[int | None, float]:
        presenter = await _start(ws_url, "presenter", TEACHER)
        code = _code(presenter)
        students = [_client(ws_url, f"student {i}", f"192.0.2.{i + 1}", query=f"room={code}") for i in range(2)]
        for i, s in enumerate(students):
            await s.open()
            await s.run(timeout=WAIT_S)
            await ws_client.browser_says(s, f"{i + 7:032x}")
        await presenter.until(lambda: _count(presenter) == 2, WAIT_S)
        closed = time.perf_counter()
        await students[0].close()
        await presenter.until(lambda: _count(presenter) == 1, FOLLOWER_TTL_S + 20)
        took = time.perf_counter() - closed
        for c in (presenter, students[1]):
            await c.close()
        return _count(presenter), took

    try:
        left, took = ws_client.run(leave())
    finally:
        harness.stop(proc)
        log.close()
    print(f"with Redis, a closed session left the count after {took:.1f} s")
    assert left == 1 and took <= FOLLOWER_TTL_S + 3

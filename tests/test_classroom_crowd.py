"""A join flood against a real server (issue 29): 500 websocket sessions join one class with ``?room=CODE``,
fill it, and close at once; their seats are free again within FOLLOWER_TTL_S, because the process's watcher
beats only for sessions whose browser is still connected.

Every session is a ``devtools.ws_client.Client``, as a script would open it: no browser. One server process,
the in-process store (the Redis store's presence is the same watcher's beats, tests/test_classroom_watcher.py).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from classroom.store import FOLLOWER_TTL_S, MAX_FOLLOWERS
from devtools import harness, ws_client
from devtools.ws_client import Client, start_class

pytestmark = pytest.mark.slow

JOIN_S = 120                  # the flood's own runs, on a shared 2-core machine
FULL = f"This class is full ({MAX_FOLLOWERS} students)."


SOURCES = 8                   # loopback addresses the flood comes from: below NEW_STUDENTS_PER_ADDRESS a minute each


async def _join(ws_url: str, code: str, name: str, source: str = "127.0.0.30") -> Client:
    student = Client(ws_url, name, query=f"room={code}", source=source)
    await student.open()
    await student.run(timeout=JOIN_S)
    await ws_client.browser_says(student, uuid.uuid4().hex)     # a join waits for the browser's own follower id
    return student


async def _flood(base: str) -> tuple[list[str], float, list[str]]:
    """The presenter starts a class; MAX_FOLLOWERS sessions join at once; one more is refused; the flood
    closes at once. Returns what the late student was told, the seconds from the close until a new student
    was let in, and any errors."""
    ws_url = harness.stream_url(base)
    presenter = Client(ws_url, "presenter")
    code = await start_class(presenter)
    flood = await asyncio.gather(*(_join(ws_url, code, f"flood {i}", f"127.0.0.{10 + i % SOURCES}")
                                   for i in range(MAX_FOLLOWERS)))
    late = await _join(ws_url, code, "late", "127.0.0.31")
    told = list(late.alerts)
    await late.close()
    errors = [e for c in (presenter, *flood) for e in c.errors]
    closed = time.perf_counter()
    await asyncio.gather(*(s.close() for s in flood))
    while time.perf_counter() - closed < FOLLOWER_TTL_S + 30:
        student = await _join(ws_url, code, "after")
        refused = FULL in student.alerts
        await student.close()
        if not refused:
            break
        await asyncio.sleep(0.5)
    freed = time.perf_counter() - closed
    await presenter.close()
    return told, freed, errors


def test_a_join_flood_that_closes_at_once_frees_its_seats_within_the_follower_ttl():
    with harness.serve() as (_, base, _):
        told, freed, errors = ws_client.run(_flood(base))
    print(f"{MAX_FOLLOWERS} seats free {freed:.1f} s after the flood closed")    # for docs/PERFORMANCE.md (-s)
    assert errors == []
    assert FULL in told                                  # the flood did fill the class
    # A closed session's last beat came before it closed, and counts for FOLLOWER_TTL_S after it; a couple of
    # seconds more for the joining student's own run on a busy machine.
    assert freed <= FOLLOWER_TTL_S + 3, freed

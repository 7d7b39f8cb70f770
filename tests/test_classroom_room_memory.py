"""What one full room costs (issue 45): 500 students, 100 questions, every question holding all 500 answers (the
worst case: asked, answered by everyone, closed without a reveal), the largest snapshot, on both stores.
MAX_ROOMS and MAX_ROOMS_REDIS are set from it (classroom/store.py): the test fails if that many full rooms would
outgrow ROOMS_BUDGET_BYTES.
"""

from __future__ import annotations

import gc
import tracemalloc

from classroom import store as rs
from classroom.memory import MemoryRoomStore
from classroom.redis_store import RedisRoomStore


def _fill(store, now: float) -> tuple[str, str]:
    code, key = store.create_room(now)
    students = [f"{i:032x}" for i in range(rs.MAX_FOLLOWERS)]
    for i, s in enumerate(students):
        store.heartbeat(code, s, now, address=f"2001:db8:{i}::1")
    controls = {f"sd_c{i}": ["x" * 400] for i in range(rs.MAX_CONTROLS)}
    store.publish(code, key, "sqrt_dk", 3, {k: v for k, v in list(controls.items())[:60]}, now)
    for q in range(rs.MAX_POLLS):
        options = tuple(f"Option {o} of question {q}, " + "w" * 60 for o in range(4))
        info = rs.QuestionInfo("sqrt_dk", "Question text " + "t" * 400, options[1])
        store.open_poll(code, key, f"sqrt_dk:predict:q{q}", options, now, info=info)
        for i, s in enumerate(students):
            store.vote(code, f"sqrt_dk:predict:q{q}", s, options[i % 4], now)
        store.close_poll(code, key, now)
    return code, key


def memory_room_bytes() -> int:
    """Bytes one full room adds to the in-process store (tracemalloc: Python's own allocations)."""
    store = MemoryRoomStore()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    _fill(store, 1_000_000.0)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return after - before


def redis_room_bytes(url: str) -> int:
    """Bytes of every key one full room holds in Redis (MEMORY USAGE, summed)."""
    store = RedisRoomStore(RedisRoomStore.from_url(url).r, prefix="measure-room:")   # its own keys only
    _fill(store, 1_000_000.0)
    return sum(store.r.memory_usage(k, samples=0) or 0 for k in store.r.scan_iter("measure-room:*", count=1000))


def test_a_full_room_fits_its_share_of_memory_on_both_stores(redis_server):
    in_process, in_redis = memory_room_bytes(), redis_room_bytes(redis_server.url)
    print(f"a full room: {in_process:,} bytes in process, {in_redis:,} bytes in Redis; "
          f"{rs.MAX_ROOMS} rooms in process: {rs.MAX_ROOMS * in_process / 2**20:,.0f} MiB, "
          f"{rs.MAX_ROOMS_REDIS} in Redis: {rs.MAX_ROOMS_REDIS * in_redis / 2**20:,.0f} MiB")
    assert 0 < rs.MAX_ROOMS * in_process <= rs.ROOMS_BUDGET_BYTES
    assert 0 < rs.MAX_ROOMS_REDIS * in_redis <= rs.ROOMS_BUDGET_BYTES

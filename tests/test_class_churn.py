"""Join, vote, leave (issue 45) against a real server sharing a real redis-server, with websocket clients
(devtools/ws_client.py): fresh sessions open the join link, answer and close, over and over, between three
real students. Once the churn has left, the presenter's "N of M answered", the tally, the class results and
their CSV hold the real students' answers only, counted here by hand.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections import Counter

import pytest

from classroom import results as cr
from classroom.redis_store import RedisRoomStore, _question
from classroom.store import FOLLOWER_TTL_S
from devtools import harness, ws_client
from devtools.ws_client import Client, start_class, widget_state

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

POLL_ID = "sqrt_dk:predict:spread"
ANSWER = f"_class_answer__{POLL_ID}"
WAIT_S = 60
CHURN = 24


async def _join(ws_url: str, code: str, name: str) -> Client:
    student = Client(ws_url, name, query=f"room={code}")
    await student.open()
    await student.run(timeout=WAIT_S)
    await ws_client.browser_says(student, uuid.uuid4().hex)       # a fresh browser each time
    return student


async def _answer(student: Client, index: int) -> str:
    await student.until(lambda: ANSWER in student.widgets, WAIT_S)
    radio = student.widgets[ANSWER]
    option = list(radio.proto.options)[index]
    await student.run([widget_state(radio, string_value=option)], fragment_id=radio.fragment_id, timeout=WAIT_S)
    return option


def test_join_vote_leave_churn_leaves_only_the_real_students_answers(redis_server):
    log = open(harness.ROOT / "artifacts" / "churn-server.log", "w")
    proc, base, _ = harness.start(log=log, env={"ATTENTION_REDIS_URL": redis_server.url})
    ws_url = harness.stream_url(base)

    async def churn() -> tuple[str, Counter, list[str], float]:
        presenter = Client(ws_url, "presenter")
        code = await start_class(presenter, "sqrt_dk", WAIT_S)
        ask = presenter.widgets[f"_class_ask__{POLL_ID}"]
        await presenter.run([widget_state(ask, trigger_value=True)], fragment_id=ask.fragment_id, timeout=WAIT_S)
        real = [await _join(ws_url, code, f"student {i}") for i in range(3)]
        chosen = Counter([await _answer(s, i % 2) for i, s in enumerate(real)])
        t0 = time.perf_counter()
        for wave in range(CHURN // 6):                              # six tabs at a time, each joins, answers, leaves
            tabs = await asyncio.gather(*(_join(ws_url, code, f"churn {wave}-{i}") for i in range(6)))
            await asyncio.gather(*(_answer(t, 2) for t in tabs))
            await asyncio.gather(*(t.close() for t in tabs))
        took = time.perf_counter() - t0
        pattern = re.compile(rf"\*\*{sum(chosen.values())} of {len(real)} answered\*\*")
        await presenter.until(lambda: any(pattern.fullmatch(m) for m in presenter.markdown[-30:]),
                              FOLLOWER_TTL_S + 30)
        said = [m for m in presenter.markdown if m.endswith("answered**")]
        for c in (presenter, *real):
            await c.close()
        return code, chosen, said, took

    try:
        code, chosen, said, took = ws_client.run(churn())
        store = RedisRoomStore.from_url(redis_server.url)
        now = time.time()
        tally = store.tally(code, POLL_ID, now)
        key_hash = store.r.hget(store._room(code)[1], "key_hash")       # the presenter's, as stored: read its results
        _, _, questions = json.loads(store._run("results", code, now, key_hash))
    finally:
        harness.stop(proc)
        log.close()
    print(f"{CHURN} join-answer-leave sessions in {took:.1f} s; the presenter saw {said[-3:]}")
    expected = {o: chosen[o] for o in tally.counts}
    assert tally.counts == expected and tally.answered == sum(chosen.values()) == 3
    (question,) = [_question(q) for q in questions]
    assert question.rounds[-1].counts == expected
    results = cr.ClassResults(code, None, (question,))
    table = cr.rows(results)
    assert {r.option: r.count for r in table} == expected                 # the CSV's rows
    assert cr.csv_bytes(table).count(b"\r\n") == 1 + len(expected)

"""A class follows a lesson section alone: against the real server, with clients that speak Streamlit's
websocket protocol as the browser does (devtools/ws_client.py), so each run's kind can be read.

When the presenter moves a control inside a lesson's fragment, their page reruns that fragment only; each
following student must then rerun the same section only (not the whole page), and show the same value.
A change outside any section (the presenter's page) still reruns a student's whole page.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from devtools import harness, ws_client
from devtools.ws_client import FINISHED, FINISHED_FRAGMENT, Client, widget_state

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_S = 120                 # generous, for a loaded machine: benchmarks/classroom.py measures the speed


async def _class(base: str, students: int) -> tuple[Client, list[Client]]:
    ws_url = harness.stream_url(base)
    presenter = Client(ws_url, "presenter")
    code = await ws_client.start_class(presenter, "sqrt_dk", timeout=WAIT_S)
    crowd = [Client(ws_url, f"student {i}", query=f"room={code}") for i in range(students)]
    for s in crowd:
        await s.open()
        await s.run(timeout=WAIT_S)
    await asyncio.gather(*(s.until(lambda s=s: s.page_hash == presenter.page_hash and "sd_dk" in s.widgets,
                                   WAIT_S) for s in crowd))
    await asyncio.gather(*(c.until(lambda c=c: not c.running, WAIT_S) for c in (presenter, *crowd)))  # quiet
    return presenter, crowd


async def _moves(base: str) -> list[tuple[str, list[int]]]:
    """Each slider move the presenter makes, and the kind of run in which each student showed it; then a
    page change, which every student must follow with a whole run of the new page."""
    presenter, students = await _class(base, 2)
    found = []
    try:
        for value in (96.0, 112.0):                          # inside sqrt_dk's experiment section
            t_move = time.perf_counter()
            slider = presenter.widgets["sd_dk"]
            await presenter.send([widget_state(slider, double_array_value=[value])], fragment_id=slider.fragment_id)
            await asyncio.gather(*(s.until(lambda s=s, v=value, t=t_move: s.showed("sd_dk", (v,), t) is not None,
                                           WAIT_S) for s in students))
            found.append((f"dₖ {value:g}", [s.showed("sd_dk", (value,), t_move)[1] for s in students]))
        t_move = time.perf_counter()
        await presenter.run(page_name="polysemy", timeout=WAIT_S)       # another page: the whole page
        await asyncio.gather(*(s.until(lambda s=s: "pl_dim" in s.widgets and any(
            t >= t_move and status == FINISHED for t, status in s.finished), WAIT_S) for s in students))
        errors = [e for c in (presenter, *students) for e in c.errors]
        assert not errors, errors
    finally:
        for c in (presenter, *students):
            await c.close()
    return found


def test_students_rerun_only_the_section_the_presenter_changed(server):
    found = ws_client.run(_moves(server))
    assert len(found) == 2
    for change, kinds in found:
        assert kinds == [FINISHED_FRAGMENT, FINISHED_FRAGMENT], f"{change}: a student reran its whole page"

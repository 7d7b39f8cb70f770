"""A class's steps, as websocket clients play them: students join, the presenter moves a slider, opens
another lesson, asks the class. Shared by benchmarks/classroom.py (one class) and benchmarks/cloud_class.py
(three classes and the Lab on one core).

Every time comes from the clients' own receive stamps (devtools/ws_client.py), so how often a loop here looks
does not change it. The students' presence heartbeats are the server's own: the watcher beats for every
connected follower (ui/classroom/watcher.py), and a client keeps its websocket open and plays each fragment's
run_every timer as a browser tab does.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from dataclasses import dataclass, field

from streamlit.util import calc_hash

from devtools import ws_client
from devtools.ws_client import FINISHED, Client, widget_state

_FOLLOWERS = itertools.count(1)         # one follower id per student tab, never the same twice in a process


@dataclass
class Steps:
    """What one class's steps measured: seconds, counts."""

    follow: list[float] = field(default_factory=list)      # (student, move): the move → the student's run showing it
    presenter: list[float] = field(default_factory=list)   # each move: the presenter's own run showing it
    missed: int = 0                                         # (student, move) pairs never shown
    full: int = 0                                           # follows that reran the whole page
    pages: list[float] = field(default_factory=list)       # (student, page change): the change → the student there
    pages_missed: int = 0
    answer_rtt: list[float] = field(default_factory=list)
    all_answered: list[float] = field(default_factory=list)  # per poll: the asking → "N of N answered"
    asked: int = 0                                          # answers sent, over every poll
    counted: int = 0                                        # answers the presenter's panel counted, over every poll

    def add(self, other: Steps) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


async def join(presenter: Client, students: list[Client], timeout: float) -> float:
    """Every student opens the room's link, answers the page's storage read with its follower id (as a browser
    does at once: without it a join waits, ticking a timer) and shows the presenter's page; returns the
    seconds all of that took."""
    t0 = time.perf_counter()
    for s in students:
        await s.open()
    await asyncio.gather(*(s.run(timeout=timeout) for s in students))
    await asyncio.gather(*(ws_client.browser_says(s, f"{next(_FOLLOWERS):032x}", timeout) for s in students))
    await asyncio.gather(*(s.until(lambda s=s: s.page_hash == presenter.page_hash, timeout) for s in students))
    return time.perf_counter() - t0


def slider(client: Client, keys: set[str] | None = None) -> str:
    """The key of the first lesson slider the page drew inside a section (a fragment), among ``keys`` (the
    widgets the current page drew, say; None: any): the control a presenter moves."""
    found = [k for k, w in client.widgets.items() if type(w.proto).__name__ == "Slider" and w.fragment_id
             and not k.startswith("_") and (keys is None or k in keys)]
    if not found:
        raise LookupError(f"{client.name}: no slider in a section on this page ({client.state()})")
    return found[0]


def values(client: Client, key: str, n: int) -> list[float]:
    """``n`` values of slider ``key`` in its range, on its steps, each unlike the one before and the default."""
    p = client.widgets[key].proto
    lo, hi, step = p.min, p.max, p.step or 1.0
    span = int((hi - lo) / step)
    start = next(iter(p.default), lo)
    out, k = [], 0
    while len(out) < n:
        k += 1
        v = round(lo + step * ((k * 7919) % (span + 1)), 6)
        if v != start and (not out or v != out[-1]):
            out.append(v)
    return out


async def settled(client: Client, quiet: float = 1.5, wait: float = 60) -> None:
    """Wait until ``client`` has had no whole-page run finish and no navigation for ``quiet`` seconds, and runs
    none of its own: a page that has just opened may rerun whole once or twice (its components report back), and
    a section's move sent meanwhile can name a section that run is replacing. Fragment timers' runs go on."""
    deadline = time.perf_counter() + wait
    while time.perf_counter() < deadline:
        last = max([t for t, status in client.finished if status == FINISHED] + [t for t, _ in client.navigated]
                   + [0.0])
        if not client.running and time.perf_counter() - last >= quiet:
            return
        await asyncio.sleep(0.1)


async def move(presenter: Client, students: list[Client], key: str, value: float, wait: float = 15) -> Steps:
    """The presenter moves slider ``key`` to ``value``; each student's time until a finished run shows it, the
    presenter's own, and how many never showed it within ``wait`` seconds."""
    out, w = Steps(), presenter.widgets[key]
    t_move = time.perf_counter()
    await presenter.send([widget_state(w, double_array_value=[value])], fragment_id=w.fragment_id)
    pending, own, deadline = set(range(len(students))), None, t_move + wait
    while (pending or own is None) and time.perf_counter() < deadline:
        own = own or presenter.showed(key, None, t_move)          # its section's run after the move
        for i in list(pending):
            run = students[i].showed(key, (float(value),), t_move)
            if run is not None:
                out.follow.append(run[0] - t_move)
                out.full += run[1] == FINISHED
                pending.discard(i)
        await asyncio.sleep(0.005 if len(students) <= 60 else 0.05)
    out.presenter.append(own[0] - t_move if own is not None else float("inf"))
    out.missed = len(pending)
    return out


def page_hash(slug: str) -> str:
    """The script hash Streamlit gives the navigation page at URL path ``slug`` (``st.Page``: a hash of it)."""
    return calc_hash(slug)


def arrived(client: Client, slug: str, since: float) -> float | None:
    """When ``client`` was told, after ``since``, that it shows page ``slug``; None if it has not been."""
    return next((t for t, page in client.navigated if t >= since and page == page_hash(slug)), None)


async def open_page(presenter: Client, students: list[Client], slug: str, wait: float = 60) -> Steps:
    """The presenter opens lesson ``slug``; each student's time until the end of its first whole run of that page
    (after the server told it the page changed)."""
    out = Steps()
    t0 = time.perf_counter()
    target = page_hash(slug)
    await presenter.run(page_name=slug, timeout=wait)
    # The page asked for, not the first navigation since: a run of the page being left (its own rerun, pending
    # when the change was sent) can start after t0 and navigate first; taken for the target, it made every
    # student who followed to the new page count as missing it (2026-12-06).
    await presenter.until(lambda: arrived(presenter, slug, t0) is not None, wait)

    def shown(s: Client) -> float | None:
        """The end of the first whole run after the server told ``s`` (since the change) that the page is ``slug``."""
        nav = next((t for t, page in s.navigated if t >= t0 and page == target), None)
        return None if nav is None else next((t for t, status in s.finished if t >= nav and status == FINISHED), None)

    async def there(s: Client) -> None:
        await s.until(lambda: shown(s) is not None, wait)
        out.pages.append(shown(s) - t0)

    done = await asyncio.gather(*(there(s) for s in students), return_exceptions=True)
    if any(isinstance(d, BaseException) for d in done):       # what the presenter's tab saw meanwhile, once
        presenter.errors.append(f"{presenter.name}: students missed {slug}; its navigations since "
                                f"{[(round(t - t0, 2), p[:8]) for t, p in presenter.navigated if t >= t0]}, runs since "
                                f"{[(round(t - t0, 2), st) for t, st in presenter.finished if t >= t0][:12]}, "
                                f"last markdown {[m[:50] for m in presenter.markdown[-3:]]}")
    for s, d in zip(students, done, strict=True):
        if isinstance(d, BaseException):
            out.pages_missed += 1
            s.errors.append(f"{s.name}: never showed {slug} in {wait:g} s ({type(d).__name__}: {str(d)[:80]}; "
                            f"target {target[:8]}; navigations since "
                            f"{[(round(t - t0, 2), p[:8]) for t, p in s.navigated if t >= t0]}, runs since "
                            f"{[(round(t - t0, 2), st) for t, st in s.finished if t >= t0][:6]}; {s.state()})")
    return out


async def poll(presenter: Client, students: list[Client], poll_id: str, wait: float = 60, close: bool = False) -> Steps:
    """The presenter asks the class ``poll_id``; every student answers at once. Each answer's round trip, the
    time until the presenter's panel reads "N of N answered", the answers sent and the most it counted. With
    ``close``, the presenter then reveals the answer and stops asking, as a teacher moving on does (while a
    question is open, the pages hold back the others' "Ask the class")."""
    out, seen_from = Steps(), len(presenter.markdown)
    ask = presenter.widgets[f"_class_ask__{poll_id}"]
    t_ask = time.perf_counter()
    await presenter.run([widget_state(ask, trigger_value=True)], fragment_id=ask.fragment_id, timeout=wait)
    key = f"_class_answer__{poll_id}"
    await asyncio.gather(*(s.until(lambda s=s: key in s.widgets, wait) for s in students), return_exceptions=True)
    for s in students:
        if key not in s.widgets:                       # an error, reported with the rest: the others answer
            s.errors.append(f"{s.name}: never showed the question {poll_id} in {wait:g} s ({s.state()})")
    shown = [s for s in students if key in s.widgets]
    options = list(shown[0].widgets[key].proto.options) if shown else []

    async def answer(i: int, s: Client) -> float:
        radio = s.widgets[key]
        return await s.run([widget_state(radio, string_value=options[i % len(options)])],
                           fragment_id=radio.fragment_id, timeout=wait)

    out.answer_rtt = list(await asyncio.gather(*(answer(i, s) for i, s in enumerate(shown))))
    out.asked = len(students)
    pattern = re.compile(rf"\*\*{len(students)} of \d+ answered\*\*")
    try:
        await presenter.until(lambda: any(pattern.fullmatch(m) for m in presenter.markdown[seen_from:]), wait)
        out.all_answered.append(time.perf_counter() - t_ask)
    except TimeoutError:
        out.all_answered.append(float("nan"))
    seen = [int(m.split(" of ")[0].strip("*")) for m in presenter.markdown[seen_from:] if m.endswith("answered**")]
    out.counted = max(seen, default=0)
    for action in ("reveal", "stop") if close else ():
        await presenter.until(lambda a=action: f"_class_{a}__{poll_id}" in presenter.widgets, wait)
        button = presenter.widgets[f"_class_{action}__{poll_id}"]
        await presenter.run([widget_state(button, trigger_value=True)], fragment_id=button.fragment_id, timeout=wait)
    if close:
        # "Stop asking" reruns the presenter's whole page after its section's run (st.rerun): a page opened before
        # that rerun is over can be taken back to this one by it, so the presenter waits for it, as a person does.
        await settled(presenter, wait=wait)
    return out

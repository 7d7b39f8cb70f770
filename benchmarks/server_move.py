"""(a2) One learner's move as a running server handles it, as a multiple of the floor page's move.

(a) reruns the whole page after the move, through AppTest. A server does less when the moved control sits in
a section of its own (``st.fragment``): it reruns that section alone. Here a real Chromium moves the page's
named control (``benchmarks.redraw.CONTROLS``, else its first slider or toggle) right, left, right and left;
its last two moves are then replayed on one websocket session (the first move after a page opens may rerun
the whole page), timed from sending each move to the server's ``script_finished``, alternately with the floor
page's slider on a server of its own, so both see the same machine. The time includes the wire and
Streamlit's own handling of the message, for both.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass

from benchmarks import redraw, sessions
from benchmarks.report import TARGETS, ok
from devtools import harness

# Between two moves: a server's work after it has reported a run finished (its websocket writes, Streamlit's
# bookkeeping) must not land on the other server's timed run.
PAUSE = 0.2


@dataclass
class Move:
    slug: str
    control: str
    fragment: bool                 # the move reruns one section, not the page
    median_ms: float
    floor_ms: float                # the floor page's median move, timed alternately with this page's
    sent: sessions.Sent            # what the page's last timed move sent: elements, charts, bytes
    floor_sent: sessions.Sent      # the same for the floor page's


def capture(browser, base: str, slug: str) -> tuple[str, list[bytes]] | None:
    """What a real browser sent for ``slug``: its first run, then its third and fourth moves of the control
    (right, then back left), each the first message after its key press; None when the page has no control
    to move or a move sent nothing."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    context = browser.new_context(viewport={"width": 1400, "height": harness.TALL})
    page = context.new_page()
    runs = harness.Runs(page)
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on(
        "framesent", lambda f: frames.append(f) if isinstance(f, bytes) and sessions.is_rerun(f) else None))
    try:
        runs.open(harness.page_url(base, slug))
        runs.settle()
        named = redraw.slider_for(page, slug)
        control = f"slider `{redraw.CONTROLS[slug]}`" if named is not None else ""
        moves = []
        for step in range(4):                    # the last two: a first move may go through the whole page
            done, sent = runs.finished, len(frames)
            moved = redraw.press(page, step, named if named is not None else 0)
            if moved is None:
                return None
            runs.wait(done)
            runs.settle()
            control = control or moved
            if len(frames) == sent:
                return None
            moves.append(frames[sent])           # the move itself, not a rerun the page made by itself after it
    finally:
        context.close()
    loads = [f for f in frames if not BackMsg.FromString(f).rerun_script.widget_states.widgets]
    return control, [(loads or frames)[0], *moves[2:]]


def fragment_of(frame: bytes) -> bool:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return bool(BackMsg.FromString(frame).rerun_script.fragment_id)


async def _alternate(page_url: str, page_frames: list[bytes], floor_url: str, floor_frames: list[bytes],
                     n: int) -> tuple[list[float], list[float], sessions.Sent, sessions.Sent]:
    import websockets

    async with websockets.connect(page_url, **sessions.CONNECT) as page_ws, \
            websockets.connect(floor_url, **sessions.CONNECT) as floor_ws:
        await sessions.timed_run(page_ws, page_frames[0])
        await sessions.timed_run(floor_ws, floor_frames[0])
        page_times, floor_times = [], []
        for i in range(n + 2):                           # two warm-up moves of each, not timed
            floor_sent, page_sent = sessions.Sent(), sessions.Sent()
            f = await sessions.timed_run(floor_ws, floor_frames[1 + i % 2], sent=floor_sent)
            await asyncio.sleep(PAUSE)
            p = await sessions.timed_run(page_ws, page_frames[1 + i % 2], sent=page_sent)
            await asyncio.sleep(PAUSE)
            if i >= 2:
                floor_times.append(f)
                page_times.append(p)
        return page_times, floor_times, page_sent, floor_sent


def moves(browser, base: str, slugs: list[str], n: int) -> list[Move]:
    """Each page's named move, alternately with the floor page's (served on its own for the duration)."""
    out = []
    with harness.serve(script="benchmarks/floor_app.py") as (_, floor_base, _):
        floor = capture(browser, floor_base, "home")
        for slug in slugs:
            got = capture(browser, base, slug)
            if got is None or floor is None:
                continue
            control, frames = got
            timed = _alternate(harness.stream_url(base), frames, harness.stream_url(floor_base), floor[1], n)
            page_times, floor_times, sent, floor_sent = sessions.run_in_thread(timed)
            out.append(Move(slug, control, fragment_of(frames[1]), statistics.median(page_times) * 1000,
                            statistics.median(floor_times) * 1000, sent, floor_sent))
    return out


def section(rows: list[Move], n: int) -> list[str]:
    lines = ["| Page | Control moved | What the server reruns | Elements sent a move (new charts; by reference) "
             "| KB a move "
             "| Move, median | Floor's move, median | × floor |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    if rows:
        f = rows[0].floor_sent
        lines.append(f"| *floor* | slider | the page | {f.elements} ({f.charts}; {f.by_reference}) "
                     f"| {f.bytes / 1024:.1f} | – | – | 1.00 |")
    for r in rows:
        ratio = r.median_ms / r.floor_ms
        lines.append(f"| `{r.slug}` | {r.control} | {'its section' if r.fragment else 'the page'} | "
                     f"{r.sent.elements} ({r.sent.charts}; {r.sent.by_reference}) | {r.sent.bytes / 1024:.1f} | "
                     f"{r.median_ms:.1f} ms | {r.floor_ms:.1f} ms | {ratio:.2f} {ok(ratio, TARGETS['move_ratio'])} |")
    return ["### (a2) One move as a running server handles it",
            f"A real Chromium's messages for the page's control moved and moved back, replayed on one websocket "
            f"session, median of {n} moves, each timed from sending it to the server's `script_finished`, "
            "alternately with the floor page's slider on a server of its own. A control inside a section of "
            "its own (`st.fragment`) reruns that section alone, as it does for a learner; (a) reruns the "
            "whole page, which a page's first run, a reveal and a section-wide setting (a seed) still cost. "
            "Elements: what the page's last timed move sent, counted from the messages (every element a fragment "
            "draws is sent again, changed or not; a large one the browser already holds, such as a chart drawn "
            "before, goes as a reference to it). Target: a move ≤ 3× the floor's (issue 34).",
            "\n".join(lines)]


def main() -> None:
    """python -m benchmarks.server_move [--pages a,b] [--moves N]: (a2) alone, printed (every lesson by default)."""
    import argparse

    from playwright.sync_api import sync_playwright

    from benchmarks import report
    from ui.content import page_index

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--pages", default="", help="comma-separated slugs (default: every page but home)")
    parser.add_argument("--moves", type=int, default=20, help="timed moves per page")
    args = parser.parse_args()
    slugs = [p.slug for p in page_index() if p.slug != "home"]
    if args.pages:
        slugs = [s for s in slugs if s in {x.strip() for x in args.pages.split(",")}]
    print(report.machine(chromium=harness.CHROMIUM))
    with sync_playwright() as p, harness.serve() as (_, base, _):
        browser = harness.launch(p)
        rows = moves(browser, base, slugs, args.moves)
        browser.close()
    print(report.render(section(rows, args.moves)))


if __name__ == "__main__":
    main()

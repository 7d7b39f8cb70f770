"""(e) Cold start: process start → health answers → first page run finished; and (f) the server's memory."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from dataclasses import dataclass

from benchmarks.report import TARGETS, ok
from benchmarks.sessions import Load, Script, Window, run_in_thread, session
from devtools import harness


def first_run_seconds(base: str) -> float:
    """One websocket session runs the default page (home) to its end."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    frame = BackMsg()
    frame.rerun_script.page_name = ""
    out = Load(1, [], [], [], 0)

    async def main():
        await session(harness.stream_url(base),
                       Script("home", [frame.SerializeToString()]), out, Window(1, 0))

    run_in_thread(main())
    if out.errors:
        raise RuntimeError(out.errors)
    return out.first_render[0]


@dataclass
class Cold:
    healthy: float
    html: float
    first_run: float


def cold_start(options: tuple[str, ...]) -> tuple[Cold, subprocess.Popen, str]:
    t0 = time.perf_counter()
    proc, base, healthy = harness.start(*options)
    with urllib.request.urlopen(base + "/", timeout=30) as r:
        r.read()
    html = time.perf_counter() - t0
    first = first_run_seconds(base)
    return Cold(healthy, html, time.perf_counter() - t0 if first else 0.0), proc, base


def section(cold: Cold, rss_visited: dict[str, int], rss_load: dict[str, int]) -> list[str]:
    """The report's (e) and (f) sections."""
    return ["### (e) Cold start",
            "| Process start → `/_stcore/health` answers | → first HTML page served | → first page's script "
            "run finished (home, over the websocket) |\n| ---: | ---: | ---: |\n"
            f"| {cold.healthy:.2f} s | {cold.html:.2f} s | {cold.first_run:.2f} s |",
            "### (f) Memory",
            "| Server RSS after every page visited | After the load runs | Peak (VmHWM) |\n"
            "| ---: | ---: | ---: |\n"
            f"| {rss_visited['VmRSS'] / 1024:.0f} MB {ok(rss_visited['VmRSS'] / 1024, TARGETS['rss_mb'])} | "
            f"{rss_load['VmRSS'] / 1024:.0f} MB | {rss_load['VmHWM'] / 1024:.0f} MB "
            f"{ok(rss_load['VmHWM'] / 1024, TARGETS['rss_mb'])} |"]

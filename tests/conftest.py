"""Shared fixtures: an AppTest opened on any page of the real app."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Shared, noisy machines: no per-example deadline (speed is measured by benchmarks, not tests).
settings.register_profile("shared", deadline=None)
settings.load_profile("shared")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def open_page():
    """open_page("scaled_formula", **query_params) → an AppTest that has run that page (devtools/apptest.py)."""
    from devtools.apptest import open_page

    return open_page


@pytest.fixture(scope="session")
def redis_server():
    """A real redis-server (Debian's) on a free port, no persistence, for this test session (xdist worker)."""
    from devtools import services

    services.require(services.REDIS_SERVER)
    with services.redis_server() as server:
        yield server


# --- The fuzz suite's case count, summed over xdist workers --------- ----------------------------------
FUZZ_DIR = ROOT / "artifacts" / "fuzz"


def pytest_configure(config):
    if not hasattr(config, "workerinput"):                 # the controller (or a run without xdist)
        for stale in FUZZ_DIR.glob("*.json"):
            stale.unlink()


def pytest_terminal_summary(terminalreporter, config):
    """Sum the per-page counts the fuzz tests wrote, save them, and print one line."""
    import json

    pages: dict[str, dict[str, int]] = {}
    for path in sorted(FUZZ_DIR.glob("*.json")):            # <slug>.<worker>.json
        slug = path.name.split(".")[0]
        for what, n in json.loads(path.read_text(encoding="utf-8")).items():
            pages.setdefault(slug, {})[what] = pages.get(slug, {}).get(what, 0) + n
    if not pages:
        return
    kinds = ("hostile", "random", "url")
    total = sum(page.get(k, 0) for page in pages.values() for k in kinds)
    report = {"total_cases": total, "pages": {slug: {**c, "cases": sum(c.get(k, 0) for k in kinds)}
                                              for slug, c in pages.items()}}
    (ROOT / "artifacts" / "fuzz_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    per_page = ", ".join(f"{slug} {c['cases']}" for slug, c in report["pages"].items())
    terminalreporter.write_line(f"fuzz: {total} cases over {len(pages)} pages ({per_page}); "
                                "artifacts/fuzz_report.json")


@pytest.fixture(scope="session", autouse=True)
def _apptest_as_the_server():
    """Every AppTest in the suite runs pages as the server does (``devtools.apptest.as_the_server``): each
    script compiled once per worker, and every rerun through app.py and its ``st.navigation``. As shipped,
    AppTest compiles the page again on every run and, seeing a ``pages/`` folder, runs the page alone after
    listing every file there: slower, and not the app a learner's browser talks to."""
    from devtools.apptest import as_the_server

    with as_the_server():
        yield


def room_store_of(kind: str, request, **limits):
    """A fresh room store of ``kind``: "memory", or "redis" on this session's real redis-server (``redis_server``)
    under its own key prefix, so stores stay apart. ``limits`` go to the store's constructor."""
    if kind == "memory":
        from classroom.memory import MemoryRoomStore

        return MemoryRoomStore(**limits)
    if kind == "redis":
        import uuid

        from classroom.redis_store import RedisRoomStore

        url = request.getfixturevalue("redis_server").url
        return RedisRoomStore.from_url(url, prefix=f"t{uuid.uuid4().hex[:12]}:", **limits)
    raise ValueError(kind)

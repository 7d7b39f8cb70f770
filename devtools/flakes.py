"""Hunt flaky tests: run the browser tests N times, optionally beside a CPU hog, and record every failure.

    python -m devtools.flakes --runs 10                     # tests/browser, ten times
    python -m devtools.flakes --runs 10 --hog -n 2          # beside one spinning process per core
    python -m devtools.flakes --runs 4 --hog --alternate tests/browser/test_entry.py -k deep_link

Everything after the options goes to pytest as it is (default: tests/browser). Each failure is recorded with
its test id, run number, whether the hog was on, and the first lines of its error, in artifacts/flakes.json
(rewritten after every run, so an interrupted hunt keeps what it found); a Markdown summary is printed at
the end. The hog's processes are started by this script and always stopped by it, also when it is
interrupted, and die with it if it is killed. Exit code: 0 when no run failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from devtools.harness import ROOT

OUT = ROOT / "artifacts" / "flakes.json"
ERROR_LINES = 8                 # the first lines of each failure's error that are kept


def _die_with_parent() -> None:
    """In the child, before exec: Linux sends it SIGKILL when the flake hunter dies, however it dies."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextmanager
def cpu_hog(processes: int):
    """One busy-looping Python process per core for the length of the block; yields their pids."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_die_with_parent,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(processes)]
    try:
        yield [h.pid for h in hogs]
    finally:
        for h in hogs:
            h.kill()
        for h in hogs:
            h.wait()


def test_id(classname: str, name: str, root: Path = ROOT) -> str:
    """pytest's node id from a JUnit case: "tests.browser.test_entry" + "test_x[a]" ->
    "tests/browser/test_entry.py::test_x[a]" (a class inside the module stays "::Class::test_x")."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (root / path).is_file() or cut == 1:
            return "::".join([path, *parts[cut:], name])
    return name


def failures(junit: Path, root: Path = ROOT) -> tuple[int, list[dict]]:
    """(tests run, [{"test", "kind", "error"}]) from a pytest --junitxml report."""
    if not junit.exists():
        return 0, []
    tree = ET.parse(junit)
    found, total = [], 0
    for case in tree.iter("testcase"):
        total += 1
        for kind in ("failure", "error"):
            problem = case.find(kind)
            if problem is not None:
                text = (problem.get("message") or "") + "\n" + (problem.text or "")
                lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
                found.append({"test": test_id(case.get("classname", ""), case.get("name", ""), root),
                              "kind": kind, "error": "\n".join(lines[:ERROR_LINES])})
    return total, found


def summary(report: dict) -> str:
    """The hunt as Markdown: per test, how often it failed, with and without the hog, and its first error."""
    runs = report["runs"]
    with_hog = sum(r["hog"] for r in runs)
    lines = [f"## Flaky tests: {len(runs)} run(s) of `pytest {' '.join(report['pytest_args'])}` "
             f"({with_hog} beside a CPU hog)", ""]
    lines += ["| Run | Hog | Exit | Tests | Failed | Seconds |", "| ---: | :---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['run']} | {'on' if r['hog'] else 'off'} | {r['exit_code']} | {r['tests']} | {len(r['failed'])} "
              f"| {r['seconds']:.0f} |" for r in runs]
    by_test: dict[str, list[dict]] = {}
    for f in report["failures"]:
        by_test.setdefault(f["test"], []).append(f)
    lines.append("")
    if not by_test:
        lines.append("No test failed.")
        return "\n".join(lines)
    lines += ["| Test | Failed | With hog | Without | First error line |", "| --- | ---: | ---: | ---: | --- |"]
    for test, found in sorted(by_test.items(), key=lambda item: (-len(item[1]), item[0])):
        first = found[0]["error"].splitlines()[0] if found[0]["error"] else ""
        first = first.replace("|", "\\|")[:120]
        lines.append(f"| `{test}` | {len(found)} of {len(runs)} | {sum(f['hog'] for f in found)} "
                     f"| {sum(not f['hog'] for f in found)} | {first} |")
    return "\n".join(lines)


def hunt(runs: int, hog: bool, alternate: bool, pytest_args: list[str], out: Path, hog_processes: int) -> dict:
    out.parent.mkdir(parents=True, exist_ok=True)
    junit = out.with_suffix(".junit.xml")
    report = {"started": datetime.now(UTC).isoformat(timespec="seconds"), "pytest_args": pytest_args,
              "cpu_count": os.cpu_count(), "runs": [], "failures": []}
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")   # an interrupted first run reports nothing
    for run in range(1, runs + 1):
        hog_on = hog and (not alternate or run % 2 == 0)
        junit.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:rerunfailures",  # each try
               f"--junitxml={junit}", *pytest_args]
        print(f"run {run}/{runs}, hog {'on' if hog_on else 'off'}: {' '.join(cmd[1:])}", flush=True)
        t0 = time.perf_counter()
        with cpu_hog(hog_processes if hog_on else 0) as pids:
            code = subprocess.run(cmd, cwd=ROOT).returncode
        seconds = time.perf_counter() - t0
        total, failed = failures(junit)
        if code not in (0, 1) and not failed:          # interrupted, a usage error, no tests collected ...
            failed = [{"test": "<session>", "kind": "error", "error": f"pytest exited with code {code}"}]
        for f in failed:
            report["failures"].append({"test": f["test"], "run": run, "hog": hog_on, "kind": f["kind"],
                                       "error": f["error"]})
        report["runs"].append({"run": run, "hog": hog_on, "hog_pids": pids, "exit_code": code, "tests": total,
                               "seconds": round(seconds, 1), "failed": [f["test"] for f in failed]})
        out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    junit.unlink(missing_ok=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.flakes", allow_abbrev=False,
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, required=True, help="how many times to run the tests")
    parser.add_argument("--hog", action="store_true", help="beside one busy process per core")
    parser.add_argument("--alternate", action="store_true", help="with --hog: the hog only on even runs")
    parser.add_argument("--hog-processes", type=int, default=os.cpu_count() or 1, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=OUT, help="the JSON report (default artifacts/flakes.json)")
    args, pytest_args = parser.parse_known_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    # A SIGTERM ends the hunt as Ctrl+C does: through the finally blocks that stop the hog.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        report = hunt(args.runs, args.hog, args.alternate, pytest_args or ["tests/browser"], args.out,
                      args.hog_processes)
    except KeyboardInterrupt:
        report = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else None
        if report is None:
            return 130
    print()
    print(summary(report))
    print(f"\n{len(report['failures'])} failure(s) recorded in {args.out}")
    return 1 if any(r["failed"] for r in report["runs"]) else 0


if __name__ == "__main__":
    sys.exit(main())

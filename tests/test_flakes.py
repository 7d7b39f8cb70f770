"""devtools/flakes.py: the flake hunter records each failure with its run and hog state, and stops its hog."""

from __future__ import annotations

import json
from pathlib import Path

from devtools import flakes

ROOT = Path(__file__).resolve().parent.parent

# Fails on the first run only (a counter file beside it): a flaky test in miniature.
SOMETIMES = '''
from pathlib import Path

COUNT = Path(__file__).with_name("count.txt")


def test_steady():
    assert True


def test_flaky():
    n = int(COUNT.read_text()) + 1 if COUNT.exists() else 1
    COUNT.write_text(str(n))
    assert n > 1, f"failed on attempt {n}"
'''


def hunt(tmp_path, *options: str) -> tuple[int, dict]:
    (tmp_path / "test_sometimes.py").write_text(SOMETIMES, encoding="utf-8")
    out = tmp_path / "flakes.json"
    code = flakes.main([*options, "--out", str(out), "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
                        "-n", "0", str(tmp_path / "test_sometimes.py")])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_a_failure_is_recorded_with_its_run_its_hog_state_and_its_error_and_the_hog_is_stopped(tmp_path, capsys):
    code, report = hunt(tmp_path, "--runs", "2", "--hog", "--alternate", "--hog-processes", "1")
    assert code == 1
    assert [(r["run"], r["hog"], r["exit_code"], r["tests"]) for r in report["runs"]] == [(1, False, 1, 2),
                                                                                       (2, True, 0, 2)]
    [failure] = report["failures"]
    assert failure["test"].endswith("test_sometimes.py::test_flaky")
    assert (failure["run"], failure["hog"]) == (1, False)
    assert "failed on attempt 1" in failure["error"]
    printed = capsys.readouterr().out
    assert "| `" + failure["test"] + "` | 1 of 2 | 0 | 1 |" in printed
    # The hog ran beside the second run only, and is gone (its processes reaped, their pids free or reused).
    assert report["runs"][0]["hog_pids"] == [] and len(report["runs"][1]["hog_pids"]) == 1
    for pid in report["runs"][1]["hog_pids"]:
        cmdline = Path(f"/proc/{pid}/cmdline")
        assert not cmdline.exists() or "while True" not in cmdline.read_text(errors="replace"), pid


def test_a_run_that_collects_nothing_counts_as_a_failure(tmp_path):
    (tmp_path / "empty").mkdir()
    out = tmp_path / "flakes.json"
    code = flakes.main(["--runs", "1", "--out", str(out), "-c", str(ROOT / "pyproject.toml"),
                        "--rootdir", str(tmp_path), "-n", "0", str(tmp_path / "empty")])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert code == 1 and report["failures"][0]["test"] == "<session>"
    assert "code 5" in report["failures"][0]["error"]


def test_a_junit_case_becomes_pytests_node_id(tmp_path):
    (tmp_path / "tests" / "browser").mkdir(parents=True)
    (tmp_path / "tests" / "browser" / "test_entry.py").touch()
    assert flakes.test_id("tests.browser.test_entry", "test_x[a.b]", tmp_path) == \
        "tests/browser/test_entry.py::test_x[a.b]"
    assert flakes.test_id("tests.browser.test_entry.TestDeep", "test_y", tmp_path) == \
        "tests/browser/test_entry.py::TestDeep::test_y"

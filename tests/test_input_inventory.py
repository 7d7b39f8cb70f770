"""docs/INPUTS.md and assets/lessons/control_labels.toml are generated from the pages
(``python -m scripts.input_inventory``); a page that gains, loses or renames an input without
regenerating them fails here. A test rather than a step of scripts/test.sh, so it runs beside the others."""

from __future__ import annotations

import subprocess
import sys

from devtools.apptest import ROOT


def test_the_inputs_table_and_the_control_labels_match_the_pages():
    out = subprocess.run([sys.executable, "-m", "scripts.input_inventory", "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "up to date" in out.stdout

"""docs/INPUTS.md and assets/lessons/control_labels.toml are generated from the pages
(``python -m scripts.input_inventory``); a page that gains, loses or renames an input without
regenerating them fails here. A test rather than a step of scripts/test.sh, so it runs beside the others;
in this process, whose AppTests already run as the server does (tests/conftest.py)."""

from __future__ import annotations

from devtools import inventory as input_inventory


def test_the_inputs_table_and_the_control_labels_match_the_pages():
    want = input_inventory.wanted(parallel=False)
    late = [str(path.relative_to(input_inventory.ROOT)) for path in input_inventory.stale(want)]
    assert not late, f"out of date: {late}; run python -m scripts.input_inventory"

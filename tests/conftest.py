"""Shared fixtures: an AppTest opened on any page of the real app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)


@pytest.fixture
def open_page():
    """open_page("scaled_formula", **query_params) → an AppTest that has run that page."""
    from streamlit.testing.v1 import AppTest

    def _open(slug: str, **params: str):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        assert not at.exception, at.exception
        if slug != "home":
            for name, value in params.items():
                at.query_params[name] = value
            at.switch_page(f"pages/{slug}.py").run()
        return at

    return _open


def texts(at) -> str:
    """Everything a learner can read on the page, as one string, for assertions about what it says."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in at.error] + [w.value for w in at.warning] + [s.value for s in at.success]
    parts += [i.value for i in at.info] + [str(x.value) for x in at.latex]
    return "\n".join(str(p) for p in parts)


# Hypothesis's default 200 ms deadline per example turns CPU contention into failures: on a shared
# 2-core machine, with the browser tests' server and Chromium on the other xdist worker, plain NumPy
# examples were seen taking over 200 ms. A deadline tests the machine, not the maths, so it is off.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("shared-machine", deadline=None)
_hypothesis_settings.load_profile("shared-machine")

"""Shared fixtures: an AppTest opened on any page of the real app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Shared, noisy machines: no per-example deadline (speed is measured by benchmarks, not tests).
settings.register_profile("shared", deadline=None)
settings.load_profile("shared")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)


@pytest.fixture
def open_page():
    """open_page("scaled_formula", **query_params) → an AppTest that has run that page."""
    from streamlit.testing.v1 import AppTest

    def _open(slug: str, **params: str):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        if "present" in params:                            # presenter mode is read when the session starts
            at.query_params["present"] = params["present"]
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

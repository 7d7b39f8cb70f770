"""Shared helpers for page tests: open a page through the real navigation, and read what it shows.

The ``open_page`` fixture in tests/conftest.py is this module's ``open_page``.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(slug: str, **params: str | list[str]) -> AppTest:
    """An AppTest that has run app.py and then the page ``slug``, with ``params`` as the URL's query;
    it fails the test at once if either run raised."""
    return start(slug, params, check=True)


def start(slug: str, params: dict, check: bool) -> AppTest:
    """A fresh session on one page. ``check`` asserts that neither run raised; the fuzz and isolation
    tests pass False and look at the exceptions themselves."""
    at = AppTest.from_file(APP, default_timeout=60)
    if "present" in params:                                # presenter mode is read when the session starts
        at.query_params["present"] = params["present"]
    at.run()
    assert not (check and at.exception), [e.value for e in at.exception]
    if slug != "home":
        for name, value in params.items():
            at.query_params[name] = value
        at.switch_page(f"pages/{slug}.py").run()
        assert not (check and at.exception), [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """Everything a learner can read on the page, as one string, for assertions about what it says."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in (at.success, at.error, at.warning, at.info) for e in kind]
    parts += [str(x.value) for x in at.latex]
    return "\n".join(str(p) for p in parts)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def metric(at: AppTest, label: str) -> float:
    """The number a metric shows (its leading number: "0.4177 nats" → 0.4177)."""
    return float(re.match(r"[-+0-9.e]+", metrics(at)[label]).group())


def answer(at: AppTest, key: str, text_start: str) -> AppTest:
    """Pick the option of radio ``key`` that starts with ``text_start``, and rerun."""
    radio = at.radio(key=key)
    radio.set_value(next(o for o in radio.options if o.startswith(text_start))).run()
    return at


def decoded(value):
    """Plotly sends numeric arrays as {"dtype", "bdata" (base64), "shape"}; lists and strings as they are."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    if isinstance(value, dict):
        return {k: decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


def figure(at, key: str) -> dict:
    """The plotly figure of the chart with this key, arrays decoded."""
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return decoded(json.loads(el.proto.spec))
    raise AssertionError(f"no chart {key}: {[el.proto.id for el in at.get('plotly_chart')]}")


def reveal(at: AppTest, slug: str, *prediction_ids: str) -> AppTest:
    """Answer (with the first option) and reveal the named predictions, or every one on the page: the
    trap and the check wait until then."""
    from ui.content import load_lesson

    for pid in prediction_ids or load_lesson(slug).predictions:
        key = f"{slug}__predict__{pid}"
        radio = next((r for r in at.radio if r.key == key), None)
        if radio is None or not any(b.key == f"{key}__button" for b in at.button):      # absent or revealed
            continue
        radio.set_value(radio.options[0]).run()
        at.button(key=f"{key}__button").click().run()
    return at

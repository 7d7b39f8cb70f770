"""ui.charts: the figure cache's fingerprint tells inputs apart, and a sealed figure sends the same JSON."""

import dataclasses

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from hypothesis import given, strategies as hs
from hypothesis.extra import numpy as hnp

from figures.sqrt_dk import weights_figure
from ui.charts import built, fingerprint, sealed


@dataclasses.dataclass(frozen=True)
class Pair:
    a: np.ndarray
    b: str


def test_equal_inputs_share_a_fingerprint_and_containers_of_them_too():
    x = np.linspace(0, 1, 7)
    assert fingerprint((x, "t", 3, None)) == fingerprint((x.copy(), "t", 3, None))
    assert fingerprint({"b": 1, "a": [1.5, "z"]}) == fingerprint({"a": [1.5, "z"], "b": 1})
    assert fingerprint(Pair(x, "q")) == fingerprint(Pair(x.copy(), "q"))


@pytest.mark.parametrize("left, right", [
    ((1,), [1]),                                          # a tuple is not a list
    (1, 1.0),                                             # nor an int a float
    (True, 1),
    (np.zeros(6), np.zeros((2, 3))),                      # same bytes, other shape
    (np.zeros(3, dtype=np.float32), np.zeros(3, dtype=np.int32)),   # same bytes, other dtype
    (["ab", "c"], ["a", "bc"]),                           # strings are not run together
    ([[1], [2]], [[1, 2]]),
    (Pair(np.ones(2), "q"), Pair(np.ones(2), "k")),
    (0.1 + 0.2, 0.3),                                     # exact, not rounded
    ("", None),
])
def test_different_inputs_get_different_fingerprints(left, right):
    assert fingerprint(left) != fingerprint(right)


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=6),
                  elements=hs.floats(-1e6, 1e6, allow_nan=False)),
       hs.data())
def test_changing_any_one_entry_changes_the_fingerprint(x, data):
    i = data.draw(hs.integers(0, x.size - 1), label="entry")
    y = x.copy().ravel()
    y[i] = np.nextafter(y[i], np.inf)                     # the smallest possible change
    assert fingerprint(x) != fingerprint(y.reshape(x.shape))


def test_an_object_it_cannot_read_is_refused_rather_than_guessed():
    with pytest.raises(TypeError, match="cannot fingerprint"):
        fingerprint([1, object()])


def test_a_sealed_figure_sends_exactly_the_json_it_would_have():
    w = np.array([0.1, 0.2, 0.7])
    plain, frozen = weights_figure(w, w[::-1]), sealed(weights_figure(w, w[::-1]))
    assert pio.to_json(frozen, validate=False) == pio.to_json(plain, validate=False)
    assert frozen.to_dict() is frozen.to_dict(), "made once, then handed out"
    enlarged = go.Figure(frozen).update_layout(height=700)   # what presenter mode does: a changed copy
    assert enlarged.to_dict()["layout"]["height"] == 700 and frozen.to_dict()["layout"].get("height") != 700


def test_built_returns_one_shared_figure_per_distinct_input():
    calls = []

    def spy(values):
        calls.append(values)
        return weights_figure(values, values)

    a, b = np.array([0.5, 0.5]), np.array([0.25, 0.75])
    first = built(spy, a)
    assert built(spy, a.copy()) is first and len(calls) == 1
    assert built(spy, b) is not first and len(calls) == 2


def test_a_table_of_tiny_numbers_is_written_out_not_as_forty_zeros():
    import pandas as pd

    from ui.charts import readable
    from ui.tables import _short

    x = np.linspace(-140, 140, 15)
    slope = np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))) ** 2          # S(1 − S), down to 10⁻⁶¹
    table = readable(pd.DataFrame({"x": x, "S(1-S)": slope, "flag": x > 0}))
    cells = list(table["S(1-S)"])
    assert all(isinstance(c, str) and "e" not in c for c in cells)
    assert all(float(c.replace(" × 10", "e").translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
               == pytest.approx(v, rel=1e-3) for c, v in zip(cells, slope, strict=True))
    assert table["x"].dtype == float and table["flag"].dtype == bool        # plain columns stay numbers
    plain = pd.DataFrame({"w": [0.25, 0.75]})
    assert readable(plain) is plain
    assert _short(2.9e-59) == "2.9 × 10⁻⁵⁹" and _short(0.25) == "0.25" and _short(0.0) == "0"   # presenter's table

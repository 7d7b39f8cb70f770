"""The √d_k page: the slider moves the measured variance with d_k; the prediction gates the histograms."""

import time

import numpy as np
import pytest

from devtools import apptest
from devtools.apptest import metrics, open_page


def revealed():
    at = open_page("sqrt_dk")
    apptest.choose(at, "sqrt_dk", "predict", "spread")
    at.button(key="sqrt_dk__predict__spread__button").click().run()
    return at


def test_histograms_hidden_until_the_prediction_is_revealed():
    at = open_page("sqrt_dk")
    assert "measured Var(q·k)" not in metrics(at)
    at = revealed()
    assert "measured Var(q·k)" in metrics(at) and at.success


@pytest.mark.parametrize("d_k", [1, 64, 1024])
def test_measured_variance_tracks_d_k_and_scaling_brings_it_to_one(d_k):
    at = revealed()
    at.slider(key="sd_dk").set_value(d_k).run()
    m = metrics(at)
    assert m["dₖ"] == str(d_k) and m["spread √dₖ"] == f"{np.sqrt(d_k):.2f}"
    assert float(m["measured Var(q·k)"]) == pytest.approx(d_k, rel=0.15)
    assert float(m["Var(q·k / √dₖ)"]) == pytest.approx(1.0, rel=0.15)


def test_unscaled_softmax_saturates_as_d_k_grows_and_scaled_does_not():
    at = open_page("sqrt_dk")
    at.slider(key="sd_dk").set_value(1).run()
    small = metrics(at)
    assert small["top weight, unscaled"] == small["top weight, scaled"]   # √1 = 1
    at.slider(key="sd_dk").set_value(1024).run()
    big = metrics(at)
    assert float(big["top weight, unscaled"]) > 0.95
    assert float(big["top weight, scaled"]) < 0.6
    assert float(big["entropy, unscaled"].split()[0]) < float(big["entropy, scaled"].split()[0])


def test_seed_changes_the_draws_and_a_cached_rerun_is_quick():
    at = revealed()
    before = metrics(at)["measured Var(q·k)"]
    at.number_input(key="sd_seed").set_value(3).run()
    assert metrics(at)["measured Var(q·k)"] != before
    at.slider(key="sd_dk").set_value(256).run()
    at.slider(key="sd_dk").set_value(255).run()
    start = time.perf_counter()
    at.slider(key="sd_dk").set_value(256).run()                 # cached: no sampling, no figure building
    assert time.perf_counter() - start < 2.0                    # generous: CI machines are shared
    assert not at.exception


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    at = apptest.reveal(open_page("sqrt_dk"), "sqrt_dk")  # the check waits
    apptest.feedback_follows_the_marked_answer(at, "sqrt_dk", "why_sqrt")


def test_the_tables_are_made_from_the_cached_numbers_once_opened():
    from ui.lessons import sqrt_dk as data

    at = revealed()
    assert not at.dataframe                                 # closed expanders send no table
    at.session_state["sd_fig_raw__numbers"] = True          # what opening "Show the numbers" sets
    at.session_state["sd_fig_entropy__numbers"] = True
    at.run()
    hist, sweep = (t.value for t in at.dataframe)
    d_k, seed = at.session_state["sd_dk"], at.session_state["sd_seed"]
    numbers = data.sqrt_dk_numbers.__wrapped__(d_k, seed)   # the computation itself, not Streamlit's cache
    assert hist["count"].to_numpy() == pytest.approx(numbers.h_raw.count)
    assert hist["density"].to_numpy() == pytest.approx(numbers.h_raw.density)
    sw = data.softmax_sweep_by_seed.__wrapped__(seed)
    assert sweep["dₖ"].to_numpy() == pytest.approx(sw.d_k)
    assert sweep["gradient norm scaled"].to_numpy() == pytest.approx(sw.grad_norm_scaled)


def test_the_saturation_table_writes_its_tiny_slopes_as_powers_of_ten_not_zeros():
    from devtools.apptest import leading_number, reveal

    at = reveal(open_page("sqrt_dk", sd_dk="1024"), "sqrt_dk")
    at.session_state["sd_fig_sat__numbers"] = True           # what opening "Show the numbers" sets
    table = next(d.value for d in at.run().dataframe if "S(1-S)" in d.value.columns)
    x = table["x"].to_numpy(dtype=float)
    slope = 1 / (1 + np.exp(-x)) * (1 - 1 / (1 + np.exp(-x)))  # σ(x)(1 − σ(x)), computed here
    shown = table["S(1-S)"].to_numpy()
    assert slope.min() < 1e-40                                # the table's ends are far below fixed decimals
    assert all(isinstance(v, str) and "0.0000" not in v for v in shown)
    assert [leading_number(v) for v in shown] == pytest.approx(slope, rel=1e-3)


def test_a_revealed_prediction_is_graded_as_committed_here_too():
    from tests.test_page_polysemy import graded_once

    graded_once("sqrt_dk", "spread")


def one_query_medians(d_k: int, n_keys: int, rows: int, seed: int) -> tuple[float, float]:
    """Median entropy and median top weight of softmax over rows of one query against n_keys keys, drawn here."""
    rng = np.random.default_rng([seed, 47])
    q, K = rng.standard_normal((rows, 1, d_k)), rng.standard_normal((rows, n_keys, d_k))
    scores = (q * K).sum(axis=-1)                                               # [rows, n_keys]
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return float(np.median(-(w * np.log(w)).sum(axis=1))), float(np.median(w.max(axis=1)))


def test_the_sweep_is_one_query_against_its_keys_as_the_page_says():
    """Issue 47, item 5: the page says "one query and 16 keys"; at dₖ = 1 that gives a median top weight near
    0.157, where a fresh query for every score gives about 0.25. The page's medians are over 300 rows: their
    sampling spread is about 0.015 (top weight) and 0.03 nats (entropy)."""
    from ui.lessons.sqrt_dk import N_KEYS

    at = apptest.reveal(open_page("sqrt_dk"), "sqrt_dk")
    assert "one query and 16 keys" in apptest.texts(at).lower()
    entropy, top = one_query_medians(1, N_KEYS, 100_000, seed=0)
    curves = {}
    for key in ("sd_fig_entropy", "sd_fig_top"):
        data = apptest.figure(at, key)["data"]
        unscaled = next(t for t in data if t.get("name") == "unscaled")
        curves[key] = dict(zip(unscaled["x"], unscaled["y"], strict=True))[1]
    assert abs(curves["sd_fig_top"] - top) < 0.045
    assert abs(curves["sd_fig_entropy"] - entropy) < 0.08

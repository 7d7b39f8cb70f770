"""The KV-cache page: the step slider grows the cache a row at a time, the reveal shows the cached outputs equal
to the recomputed ones, the work counts grow as the lesson says, and the byte sentences follow every control,
each checked against a computation of its own (the decoder recomputed here, the byte formula written out)."""

import re

import numpy as np
import pytest

from attention_core import MODEL_SHAPES, decode_all_uncached, decode_cached, random_decoder, token_input
from devtools.apptest import (
    feedback_follows_the_marked_answer,
    figure,
    metric,
    metrics,
    open_page,
    reveal,
    texts,
)

PAGE = "kv_cache"


def recomputed(seed):
    """The page's decoder and sentence, rebuilt from the same recipe: the cached and the recomputed outputs."""
    from ui.lessons.kv_cache import D_HEAD, N_HEADS, N_LAYERS, WORDS

    rng = np.random.default_rng(seed)
    vocab = sorted(set(WORDS))
    w = random_decoder(rng, n_layers=N_LAYERS, n_heads=N_HEADS, d_head=D_HEAD, vocab=len(vocab),
                       max_tokens=len(WORDS))
    X = np.array([token_input(w, vocab.index(word), t) for t, word in enumerate(WORDS)])
    return w, X


def rounding_bound(outputs: np.ndarray) -> float:
    """How far two float64 evaluations of the same outputs may differ by rounding alone: 64 ulps of the largest
    output (the toy decoder sums at most 12 terms per number, in an order its BLAS picks by CPU; measured: at
    most 3.4 ulps over 200 seeds with OpenBLAS's Haswell and SkylakeX kernels), and far below 10⁻¹², as the
    lesson says. A rounding difference is a bound, never a value."""
    return min(64 * np.finfo(np.float64).eps * float(np.abs(outputs).max()), 1e-12)


def test_each_step_adds_one_row_to_the_cache_and_the_new_query_weighs_every_row():
    at = open_page(PAGE)
    w, X = recomputed(0)
    full = decode_all_uncached(X, w)
    for t in (1, 5, 12):
        at.slider(key="kv_step").set_value(t).run()
        keys = np.array(figure(at, "kv_fig_keys")["data"][0]["z"], dtype=float)
        assert np.isfinite(keys[:t]).all() and np.isnan(keys[t:]).all()
        np.testing.assert_allclose(keys[:t], full.keys[0][:t].reshape(t, -1), atol=1e-9)
        box = figure(at, "kv_fig_keys")["layout"]["shapes"][0]
        assert (box["y0"], box["y1"]) == (t - 1.5, t - 0.5)
        bars = figure(at, "kv_fig_weights")["data"]
        assert len(bars) == w.n_heads and all(len(b["y"]) == t for b in bars)
        np.testing.assert_allclose([b["y"] for b in bars], full.weights[0][:, t - 1, :t], atol=1e-9)
        assert f"Step {t}" in texts(at)
    at.radio(key="kv_layer").set_value("2").run()
    values = np.array(figure(at, "kv_fig_values")["data"][0]["z"], dtype=float)
    np.testing.assert_allclose(values, full.values[1].reshape(12, -1), atol=1e-9)


def test_the_reveal_shows_the_cache_equal_to_recomputing_and_the_work_grow_as_t_against_t_squared():
    at = open_page(PAGE)
    assert "max |Δ|" not in " ".join(metrics(at)), "the answer waits for the prediction"
    reveal(at, PAGE)
    feedback_follows_the_marked_answer(at, PAGE, "saves")
    w, X = recomputed(0)
    steps = decode_cached(X, w)
    for t in (1, 6, 12):
        at.slider(key="kv_step").set_value(t).run()
        full = decode_all_uncached(X[:t], w)
        assert metric(at, f"max |Δ| up to step {t}") <= rounding_bound(full.outputs)
        cached = int(metrics(at)[f"multiply-adds, step {t}, cached"].replace(",", ""))
        uncached = int(metrics(at)[f"multiply-adds, step {t}, recomputed"].replace(",", ""))
        assert cached == steps[t - 1].multiply_adds and uncached == full.multiply_adds
        said = texts(at)
        assert ("the same work at the first step" in said) == (t == 1)
        if t > 1:
            assert f"{uncached / cached:.1f}× as many" in said
    for seed in (10_000, 1):                                      # the seed's other end, and one more
        at.number_input(key="kv_seed").set_value(seed).run()
        at.slider(key="kv_step").set_value(12).run()
        w, X = recomputed(seed)
        shown = metric(at, "max |Δ| up to step 12")
        assert not at.exception and shown <= rounding_bound(decode_all_uncached(X, w).outputs)
        said, written = texts(at), metrics(at)["max |Δ| up to step 12"]
        assert ("no difference at all" in said) == (shown == 0)   # an exact 0 is called equal, never rounding
        assert (f"at most **{written}**" in said and "rounding" in said) == (shown != 0)
    at.number_input(key="kv_seed").set_value(0).run()
    work = figure(at, "kv_fig_work")["data"]
    recompute, cached = np.array(work[0]["y"], dtype=float), np.array(work[1]["y"], dtype=float)
    assert np.allclose(np.diff(cached, 2), 0)                     # like t: constant steps
    assert np.all(np.diff(recompute, 2) > 0)                      # like t²: steps that grow


def _ratio(at) -> float:
    return float(metrics(at)["cache ÷ weights"].rstrip("×").replace(",", "")) if "× 10" not in \
        metrics(at)["cache ÷ weights"] else metric(at, "cache ÷ weights")


def _said_bytes(at) -> int:
    return int(re.search(r"\*\*([\d,]+) bytes\*\*", texts(at)).group(1).replace(",", ""))


@pytest.mark.parametrize("model", range(3))
def test_the_byte_sentence_and_the_crossing_follow_every_control(model):
    at = open_page(PAGE)
    shape = MODEL_SHAPES[model]
    at.radio(key="kv_model").set_value(at.radio(key="kv_model").options[model]).run()
    for tokens, batch, precision in ((4096, 1, 1), (128, 64, 0), (131_072, 1, 2), (131_072, 64, 1)):
        at.select_slider(key="kv_tokens").set_value(tokens).run()
        at.slider(key="kv_batch").set_value(batch).run()
        radio = at.radio(key="kv_bytes")
        radio.set_value(radio.options[precision]).run()
        size = (4, 2, 1)[precision]
        per_layer = 2 * shape.n_kv_heads * shape.d_head               # a key and a value per kv head
        expected = shape.n_layers * per_layer * tokens * batch * size
        assert _said_bytes(at) == expected
        weights = 2 * shape.n_params
        crossing = -(-weights // (shape.n_layers * per_layer * batch * size))      # ⌈w / per token⌉
        crossing += crossing * shape.n_layers * per_layer * batch * size == weights
        said = texts(at)
        if crossing > 131_072:
            assert f"never outgrows the weights here: it would take {crossing:,} tokens" in said
        else:
            assert f"outgrows the weights at {crossing:,} tokens" in said
            assert ("past that point" in said) == (tokens >= crossing)
        assert _ratio(at) == pytest.approx(expected / weights, rel=5e-3)
        assert ("memory-bound" in said.split("The step is")[1][:30]) == (
            batch * (2 * shape.n_params + 4 * shape.n_layers * shape.n_heads * shape.d_head * tokens)
            / (weights + expected) < 312e12 / 1555e9)
        curve = figure(at, "kv_fig_cost")["data"]
        assert curve[1]["y"][0] == weights and tokens * expected / tokens in curve[0]["y"]


def test_grouped_query_attention_is_named_only_when_it_shrinks_the_cache():
    at = open_page(PAGE)
    for i, shape in enumerate(MODEL_SHAPES):
        at.radio(key="kv_model").set_value(at.radio(key="kv_model").options[i]).run()
        said = texts(at)
        assert ("Grouped-query attention:" in said) == (shape.n_kv_heads < shape.n_heads)
        if shape.n_kv_heads < shape.n_heads:
            assert f"{shape.n_heads // shape.n_kv_heads}× smaller" in said


def test_the_memory_section_links_to_the_flashattention_lesson():
    at = open_page(PAGE)
    links = {p.proto.label: p.proto.page for p in at.get("page_link")}
    assert links["More on memory-bound attention: Attention, block by block"] == "flash_attention", links


def test_the_default_context_is_within_the_models_window_and_beyond_it_is_called_hypothetical():
    """Issue 47 item 9: GPT-2 small reads 1,024 tokens; a longer context is said to be hypothetical, and the
    chart shades what lies beyond the window."""
    at = open_page(PAGE)
    shape = MODEL_SHAPES[0]
    assert at.select_slider(key="kv_tokens").value <= shape.context
    assert "hypothetical" not in texts(at) and f"context window of {shape.context:,} tokens" in texts(at)
    for i, shape in enumerate(MODEL_SHAPES):
        at.radio(key="kv_model").set_value(at.radio(key="kv_model").options[i]).run()
        at.select_slider(key="kv_tokens").set_value(131_072).run()
        notice = " ".join(m.value for m in at.info)
        assert f"at most {shape.context:,} tokens" in notice and "hypothetical" in notice
        shaded = [s for s in figure(at, "kv_fig_cost")["layout"]["shapes"] if s["type"] == "rect"]
        assert len(shaded) == 1 and shaded[0]["x0"] == shape.context


def test_every_model_shown_is_a_published_one_with_its_window():
    """No hypothetical model on the page: each shape names a real model and its context window."""
    at = open_page(PAGE)
    assert len(at.radio(key="kv_model").options) == len(MODEL_SHAPES)
    for shape in MODEL_SHAPES:
        assert shape.context > 0 and "hypothetical" not in shape.name
    grouped = [s for s in MODEL_SHAPES if s.n_kv_heads < s.n_heads]
    at.radio(key="kv_model").set_value(grouped[0].name).run()
    assert "(its published configuration)" in texts(at)


def test_the_first_step_counts_one_key_one_query_and_one_token():
    """Issue 47 item 11: at t = 1, "1 key", "1 query", "1 token", never "1 keys"."""
    at = reveal(open_page(PAGE, kv_step="1"), PAGE)
    said = texts(at)
    assert "against 1 key:" in said and "projects 1 token and scores 1 query against 1 key" in said
    assert not re.search(r"\b1 (keys|queries|tokens)\b", said)


def test_a_tampered_links_notice_stays_through_a_rerun_until_a_control_moves():
    """Issue 47, item 14: /kv_cache?kv_batch=500 says what it could not use, and keeps saying it through a rerun
    the learner did not cause, until they move a control."""
    from devtools.apptest import open_page as open_with

    at = open_with("kv_cache", kv_batch="500")
    notice = [w.value for w in at.warning if "could not use" in w.value]
    assert notice and "Sequences in the batch" in notice[0]
    at.run()
    assert [w.value for w in at.warning if "could not use" in w.value] == notice
    at.slider(key="kv_batch").set_value(2).run()
    assert not [w.value for w in at.warning if "could not use" in w.value]

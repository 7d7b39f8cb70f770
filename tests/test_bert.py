"""The NumPy MiniLM against the original PyTorch model (fixtures from scripts/make_reference_fixtures.py)."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import attention_core
from attention_core import bert, load_model
from attention_core.attention import attention_heads, scaled_dot_product_attention

FIXTURES = np.load(Path(__file__).parent / "fixtures" / "minilm_reference.npz")
SENTENCES = [str(s) for s in FIXTURES["sentences"]]
ALL = range(len(SENTENCES))
WITH_MODEL = [i for i in ALL if f"emb_{i}" in FIXTURES]
WITH_HIDDEN = [i for i in ALL if f"hidden_{i}" in FIXTURES]
WITH_ATTN = [i for i in ALL if f"attn_{i}" in FIXTURES]


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def runs(model):
    return {i: model.run(SENTENCES[i]) for i in WITH_MODEL}


def test_fixture_covers_the_promised_cases():
    assert len(WITH_HIDDEN) >= 6 and len(WITH_ATTN) >= 2 and len(SENTENCES) >= 8


@pytest.mark.parametrize("i", ALL)
def test_token_ids_match_reference(model, i):
    enc = model.run(SENTENCES[i]) if i in WITH_MODEL else model.tokenizer.encode(SENTENCES[i])
    assert enc.token_ids == FIXTURES[f"ids_{i}"].tolist()


@pytest.mark.parametrize("i", WITH_HIDDEN)
def test_all_hidden_states_within_fp16_tolerance(runs, i):
    assert np.abs(runs[i].hidden_states - FIXTURES[f"hidden_{i}"]).max() < 1e-2


@pytest.mark.parametrize("i", WITH_MODEL)
def test_last_hidden_state_within_fp16_tolerance(runs, i):
    assert np.abs(runs[i].hidden_states[-1] - FIXTURES[f"last_{i}"]).max() < 1e-2


@pytest.mark.parametrize("i", WITH_ATTN)
def test_attentions_match_reference(runs, i):
    assert np.abs(runs[i].attentions - FIXTURES[f"attn_{i}"]).max() < 1e-2


@pytest.mark.parametrize("i", WITH_MODEL)
def test_sentence_embedding_matches_sentence_transformers_pooling(model, i):
    emb = model.sentence_embedding(SENTENCES[i])
    assert emb.shape == (384,)
    assert np.linalg.norm(emb) == pytest.approx(1.0, abs=1e-6)
    assert float(emb @ FIXTURES[f"emb_{i}"]) >= 0.9999


def test_shapes_dtypes_and_rows_on_the_simplex(runs):
    for r in runs.values():
        T = len(r.tokens)
        assert r.tokens[0] == "[CLS]" and r.tokens[-1] == "[SEP]" and len(r.token_ids) == T
        assert r.hidden_states.shape == (7, T, 384) and r.hidden_states.dtype == np.float32
        assert r.attentions.shape == (6, 12, T, T) and r.attentions.dtype == np.float32
        assert np.all(r.attentions >= 0)
        np.testing.assert_allclose(r.attentions.sum(axis=-1), 1.0, atol=1e-5)
        assert not r.hidden_states.flags.writeable and not r.attentions.flags.writeable


def test_every_head_is_the_lessons_formula(model):
    """The batched heads equal scaled_dot_product_attention (float64, every stage) head by head, in every layer."""
    r = model.run("I sat on the muddy river bank")
    for layer in range(6):
        Q, K, V = bert.qkv(r.hidden_states[layer], model.params, layer)
        weights, output = attention_heads(Q, K, V)
        for h in range(12):
            trace = scaled_dot_product_attention(Q[h], K[h], V[h])
            np.testing.assert_allclose(weights[h], trace.weights, atol=2e-6)
            np.testing.assert_allclose(output[h], trace.output, atol=2e-5)
        np.testing.assert_allclose(r.attentions[layer], weights, atol=1e-6)


def test_attention_run_keeps_only_what_the_lab_draws(model):
    full, lab = model.run("The bank by the river"), model.attention_run("The bank by the river")
    assert lab.tokens == tuple(full.tokens) and lab.truncated == full.truncated
    np.testing.assert_array_equal(lab.attentions, full.attentions)
    assert not lab.attentions.flags.writeable
    assert lab.nbytes >= lab.attentions.nbytes == 6 * 12 * len(lab.tokens) ** 2 * 4


def test_head_trace_is_the_head_shown_in_attentions(model, runs):
    r = runs[WITH_ATTN[0]]
    trace = model.head_trace(r, layer=3, head=5)
    np.testing.assert_allclose(trace.weights, r.attentions[3, 5], atol=1e-6)
    assert trace.scale_factor == pytest.approx(math.sqrt(32))
    with pytest.raises(ValueError, match="layer must be"):
        model.head_trace(r, layer=6, head=0)


def test_long_text_is_cut_to_128_tokens_and_says_so(model):
    long_i = max(WITH_MODEL, key=lambda i: len(FIXTURES[f"ids_{i}"]))
    r = model.run(SENTENCES[long_i])
    assert len(r.tokens) == 128 and r.truncated and r.tokens[-1] == "[SEP]"
    assert r.attentions.shape == (6, 12, 128, 128)


def test_truncation_boundary(model):
    assert not model.run("a " * 126).truncated                 # 126 pieces + [CLS] + [SEP] = 128
    r = model.run("a " * 127)
    assert r.truncated and len(r.tokens) == 128


def test_huge_text_is_capped_before_tokenising(model):
    huge = "<b>bank</b> " * 200_000                                   # 2.4 M characters
    start = time.process_time()
    enc = model.tokenizer.encode(huge)
    assert time.process_time() - start < 2.0                          # capped: far under; uncapped: seconds
    assert enc.truncated and len(enc.tokens) == 128
    r = model.run(huge)
    assert r.truncated and r.hidden_states.shape == (7, 128, 384)


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \r\n", "\x00\x01\ufffd"])
def test_empty_text_raises_a_plain_message(model, text):
    with pytest.raises(ValueError, match="text"):
        model.run(text)


def test_markup_is_just_text(model):
    r = model.run("<script>alert(1)</script>")
    assert r.tokens == ["[CLS]", "<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">", "[SEP]"]


def test_unknown_characters_become_unk(model):
    r = model.run("I ❤️ 🤖 transformers!")
    assert r.tokens.count("[UNK]") == 2 and not r.truncated


def test_same_word_gets_different_vectors_in_different_contexts(model):
    river, money = model.run("I sat on the muddy river bank"), model.run("I deposited cash at the bank")
    v1 = river.hidden_states[-1][river.tokens.index("bank")]
    v2 = money.hidden_states[-1][money.tokens.index("bank")]
    e1 = river.hidden_states[0][river.tokens.index("bank")]
    e2 = money.hidden_states[0][money.tokens.index("bank")]
    cos = float(v1 @ v2 / np.linalg.norm(v1) / np.linalg.norm(v2))
    cos0 = float(e1 @ e2 / np.linalg.norm(e1) / np.linalg.norm(e2))
    assert cos < cos0                          # context pulls the two "bank"s apart layer by layer


# --- erf and GELU against math.erf ------------------------------------------------------------------

def test_erf_matches_math_erf_on_a_dense_grid():
    x = np.concatenate([np.linspace(-8, 8, 40_001), [0.0, 0.46875, -0.46875, 4.0, -4.0, 30.0, -30.0, 1e-12]])
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(bert.erf(x) - expected).max() < 1e-14


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_erf_matches_math_erf_anywhere(v):
    assert float(bert.erf(np.array([v]))[0]) == pytest.approx(math.erf(v), rel=1e-13, abs=1e-15)


def test_erf_in_float32_is_within_1e_7():
    x = np.linspace(-6, 6, 20_001, dtype=np.float32)
    out = bert.erf(x)
    expected = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert out.dtype == np.float32
    assert np.abs(out - expected).max() < 3e-7


def test_erf_of_infinities():
    np.testing.assert_array_equal(bert.erf(np.array([np.inf, -np.inf])), [1.0, -1.0])


def test_gelu_is_the_exact_erf_form():
    x = np.linspace(-10, 10, 2001, dtype=np.float32)
    expected = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    out = bert.gelu(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-7)


def test_layer_norm_zero_mean_unit_variance():
    x = np.random.default_rng(0).normal(3, 5, size=(4, 384)).astype(np.float32)
    y = bert.layer_norm(x, np.ones(384, np.float32), np.zeros(384, np.float32))
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=-1), 1, atol=1e-4)


def test_core_imports_neither_streamlit_nor_plotly():
    code = (
        "import sys, attention_core; attention_core.load_model(); attention_core.load_glove();"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=Path(attention_core.__file__).parent.parent)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "", f"loading the models pulled in: {result.stdout.strip()}"


def test_blas_thread_count_is_restored_after_a_run(model):
    from attention_core import _blas

    before = _blas.threads()
    if before is None:
        pytest.skip("NumPy's BLAS here has no thread count threadpoolctl can set")
    model.run("bank")
    assert _blas.threads() == before
    with _blas.single_threaded_blas():
        with _blas.single_threaded_blas():
            assert _blas.threads() == 1
        assert _blas.threads() == 1, "the inner run's exit leaves the outer run on one thread"
    assert _blas.threads() == before


def test_overlapping_runs_from_two_threads_restore_the_count_only_when_the_last_leaves():
    """Two sessions' runs overlap without nesting: the first leaves while the second is still inside. A limit
    restored per run (threadpoolctl's own ``limit``) would put the second back on every thread."""
    import threading

    from attention_core import _blas

    before = _blas.threads()
    if before is None or before == 1:
        pytest.skip("NumPy's BLAS here runs on one thread already, or has no count threadpoolctl can set")
    second_in, first_out, seen = threading.Event(), threading.Event(), []

    def second() -> None:
        with _blas.single_threaded_blas():
            second_in.set()
            first_out.wait(10)
            seen.append(_blas.threads())                # the first run has left; this one is still inside

    with _blas.single_threaded_blas():
        other = threading.Thread(target=second)
        other.start()
        second_in.wait(10)
    first_out.set()
    other.join(10)
    assert seen == [1] and _blas.threads() == before

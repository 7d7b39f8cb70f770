"""Property: on every page, the prediction option marked right is right for the state the learner has set.

Hypothesis picks random control states (sent as a link's query parameters, as a shared link would); the
page runs under AppTest; the test reveals the prediction, reads which option the page calls right, and
checks it against an answer recomputed here from attention_core and NumPy, never from the page's code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention_core as core
from devtools.apptest import open_page

SLOW = settings(max_examples=5, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _walk(node, parents=()):
    yield node, parents
    for child in getattr(node, "children", {}).values():
        yield from _walk(child, (*parents, node))


def _box(at, key: str):
    """The bordered container of the prediction whose radio has this key."""
    return next(parents[-1] for node, parents in _walk(at._tree)
                if getattr(node, "type", "") == "radio" and getattr(node, "key", None) == key)


def marked_right(at, slug: str, prediction: str) -> tuple[str, list[str]]:
    """Reveal the prediction, then try every option: (the label, the options the page calls right)."""
    key = f"{slug}__predict__{prediction}"
    radio = at.radio(key=key)
    label, options = radio.label, list(radio.options)
    radio.set_value(options[0]).run()
    at.button(key=f"{key}__button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    right = []
    for option in options:
        at.radio(key=key).set_value(option).run()
        box = _box(at, key)
        verdicts = [("right", s.value) for s in box.get("success")] + [("wrong", e.value) for e in box.get("error")]
        assert len(verdicts) == 1, (option, verdicts)
        right += [option] if verdicts[0][0] == "right" else []
    return label, right


# ── Blending on the simplex ──────────────────────────────────────────────────────────────────────────────
X_CB = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])
CB_NAMES = ["river", "bank", "muddy"]


@SLOW
@given(a1=st.integers(0, 100), a2=st.integers(0, 100))
def test_blending_marks_the_token_z_really_lands_nearest(a1, a2):
    at = open_page("convex_blending", cb_a1=f"{a1 / 100:.2f}", cb_a2=f"{a2 / 100:.2f}")
    free = np.array([a1, a2]) / 100
    w = np.append(free, 1 - free.sum()) if free.sum() <= 1 else np.append(free / free.sum(), 0.0)
    z = w @ X_CB
    nearest = CB_NAMES[int(np.argmin(np.linalg.norm(X_CB - z, axis=1)))]
    label, right = marked_right(at, "convex_blending", "where_z")
    assert "(" + ", ".join(f"{x:.2f}" for x in w) + ")" in label
    assert right == [f"Inside the hull, nearest to {nearest}"]


# ── The dot product as a shadow ──────────────────────────────────────────────────────────────────────────
@SLOW
@given(q_len=st.integers(1, 50), k_len=st.integers(1, 50), k_angle=st.integers(-180, 180),
       turn=st.one_of(st.integers(-180, 180), st.sampled_from([0, 90, -90, 180])), equal=st.booleans())
def test_the_swap_marks_equal_shadows_only_when_they_are_equal(q_len, k_len, k_angle, turn, equal):
    q_len = k_len if equal else q_len
    q_angle = max(-180, min(180, k_angle + turn))
    at = open_page("projection", pr_q_len=f"{q_len / 10:.1f}", pr_k_len=f"{k_len / 10:.1f}",
                   pr_q_angle=str(q_angle), pr_k_angle=str(k_angle))
    q = q_len / 10 * np.array([math.cos(math.radians(q_angle)), math.sin(math.radians(q_angle))])
    k = k_len / 10 * np.array([math.cos(math.radians(k_angle)), math.sin(math.radians(k_angle))])
    on_k, on_q = (q @ k) / (k @ k) * k, (q @ k) / (q @ q) * q
    same = np.allclose(on_k, on_q, rtol=0, atol=1e-9 * max(np.linalg.norm(q) * np.linalg.norm(k), 1))
    _, right = marked_right(at, "projection", "swap")
    assert right == ["The score and the shadow vector both stay the same." if same
                     else "The score stays the same, but the shadow becomes a different vector."]


# ── Queries, keys and values ─────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("same", [False, True])
def test_it_attends_where_its_softmax_weight_is_largest(same):
    K = 3.0 * np.eye(3)                                       # robot, repaired, it: thing, action, pronoun
    Q = K if same else np.array([[0, 2.0, 0], [2.0, 0, 0], [2.0, 0, 0]])
    w = core.softmax(Q[2] @ K.T / np.sqrt(3))
    expected = {0: "On robot.", 1: "On repaired.", 2: "On itself."}[int(np.argmax(w))]
    at = open_page("queries_keys_values", qkv_same=str(same).lower())
    _, right = marked_right(at, "queries_keys_values", "it_attends")
    assert right == [expected]


# ── Learned projections ──────────────────────────────────────────────────────────────────────────────────
@SLOW
@given(seed=st.integers(0, 99), d_k=st.integers(1, 4))
def test_the_pair_is_judged_from_its_own_learned_scores(seed, d_k):
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).resolve().parent.parent / "assets" / "data" / "pronoun_sentence.toml")
                         .read_text(encoding="utf-8"))
    labels, X = core.token_table(data["tokens"])
    W_Q, W_K = core.random_projections(d_k, X.shape[1], np.random.default_rng(seed))
    A = (X @ W_Q.T) @ (X @ W_K.T).T                           # query of row i against key of column j
    a, b = data["pair"]
    i, j = labels.index(a), labels.index(b)
    if np.isclose(A[i, j], A[j, i], rtol=1e-9, atol=1e-12):
        expected = "Yes: the two scores match."
    else:
        first, second = (a, b) if A[i, j] > A[j, i] else (b, a)
        expected = f"No: “{first}” → “{second}” is the larger one."
    at = open_page("learned_projections", lp_mode="random, from a seed", lp_seed=str(seed), lp_dk=str(d_k))
    _, right = marked_right(at, "learned_projections", "mutual")
    assert right == [expected]


# ── The formula, step by step ────────────────────────────────────────────────────────────────────────────
def _rows(m: np.ndarray) -> str:
    return "\n".join(", ".join(f"{x:g}" for x in row) for row in m)


@SLOW
@given(Q=st.lists(st.integers(-2, 2), min_size=3, max_size=3),
       K=st.lists(st.lists(st.integers(-2, 2), min_size=3, max_size=3), min_size=2, max_size=4))
def test_the_top_key_is_the_largest_softmax_weight_or_a_tie(Q, K):
    Qm, Km = np.array([Q], float), np.array(K, float)
    s = (Qm @ Km.T / np.sqrt(3))[0]
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    tops = np.flatnonzero(np.isclose(w, w.max(), rtol=1e-9, atol=1e-12))
    expected = "A tie for the top" if len(tops) > 1 else f"k{tops[0] + 1}"
    V = np.arange(len(K), dtype=float)[:, None]
    at = open_page("scaled_formula", Q=_rows(Qm), K=_rows(Km), V=_rows(V))
    _, right = marked_right(at, "scaled_formula", "top_key")
    assert right == [expected]


# ── RNN versus attention ─────────────────────────────────────────────────────────────────────────────────
@SLOW
@given(rho=st.integers(2, 30), length=st.integers(2, 500))
def test_the_decay_marks_rho_to_the_power_of_the_steps(rho, length):
    rho = rho * 0.05
    at = open_page("rnn_vs_attention", rn_rho=f"{rho:.2f}", rn_len=str(length))
    label, right = marked_right(at, "rnn_vs_attention", "decay")
    assert f"at most {rho:.2f}" in label and f"token {length}" in label
    assert len(right) == 1
    number = right[0].removeprefix("About ").split(":")[0]
    mantissa, _, power = number.partition(" × 10")
    log10 = math.log10(float(mantissa)) + (int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
                                           if power else 0)
    assert log10 == pytest.approx((length - 1) * math.log10(rho), abs=0.03)   # two significant digits shown


# ── One word, many meanings ──────────────────────────────────────────────────────────────────────────────
@SLOW
@given(d=st.sampled_from([2, 4, 16, 300, 4096]), seed=st.integers(0, 9999))
def test_the_static_point_stays_on_the_fence_at_the_chosen_d(d, seed):
    run = core.sense_experiment(d, np.random.default_rng([seed, d]))
    assert run.relative_gap < 0.25                          # "about equal" is true for this state
    at = open_page("polysemy", pl_dim=str(d), pl_seed=str(seed))
    _, right = marked_right(at, "polysemy", "bigger_d")
    assert right == ["The two distances stay about equal at every d."]

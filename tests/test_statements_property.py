"""Properties of what the pages say, at any state the learner can set.

The first half: on every page, the prediction option marked right is right for the state the learner has set.
Hypothesis picks random control states (sent as a link's query parameters, as a shared link would); the
page runs under AppTest; the test reveals the prediction, reads which option the page calls right, and
checks it against an answer recomputed here from attention_core and NumPy, never from the page's code.

The second half: every page's sentences stay true with every control at its ends and at random values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

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
        # The revealed option is graded alone; another is practice, its verdict beside the graded one's.
        kinds = [kind for kind, _ in verdicts]
        assert len(kinds) == (1 if option == options[0] else 2), (option, verdicts)
        if option == options[0]:
            graded = kinds[0]
        else:
            kinds.remove(graded)
        right += [option] if kinds[0] == "right" else []
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


# ══ Every page, every control, at its ends and at random: the sentences stay true ════════════════════════════
# For each page the lesson controls are found on the page itself (after its predictions are revealed, so the
# controls they hold back are there too); each is set to its lowest, its highest and random legal values (sent
# as a shared link would send them), and everything the page says is read back. Every page is checked for what
# no sentence may ever show (NaN, inf, an underflowed "×0.000"); the pages whose sentences state numbers from a
# long chain of products (the RNN and LSTM), a block size or a verdict (FlashAttention) are checked number by
# number against values recomputed here from attention_core, by a second path where the page's could underflow.
import functools  # noqa: E402
import re  # noqa: E402

from devtools.apptest import metrics, reveal, texts, widgets  # noqa: E402
from ui import controls  # noqa: E402
from ui.content import page_index  # noqa: E402

SLUGS = [p.slug for p in page_index()]
DRAWN = ("slider", "select_slider", "toggle", "number_input", "selectbox", "radio")
PAGE_EXAMPLES = settings(max_examples=4, deadline=None, derandomize=True,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
NUMBER = r"-?[0-9][0-9,]*(?:\.[0-9]+)?(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"


def log10_of(shown: str) -> float:
    """log₁₀ of a number as the pages write it ("0.18", "2.9 × 10⁻³⁷¹"), exact below the smallest double."""
    mantissa, _, power = shown.replace(",", "").partition(" × 10")
    m = float(mantissa)
    return (math.log10(abs(m)) if m else -math.inf) + (int(power.translate(_SUPER)) if power else 0)


@functools.cache
def page_controls(slug: str) -> tuple:
    """The page's lesson controls, as found at its defaults with every prediction revealed."""
    at = reveal(open_page(slug), slug)
    return tuple(info for _, info in widgets(at) if controls.is_lesson_control(info.key) and info.kind in DRAWN
                 and not info.disabled)


def _ends(info) -> list:
    """The legal values a control can take: its two ends first."""
    if info.kind == "slider":
        lo, hi, step = info.min, info.max, info.step or 1
        count = round((hi - lo) / step)
        return [round(lo + i * step, 9) for i in (0, count, *range(1, count))]
    if info.kind == "number_input":
        return [int(info.min), int(info.max), *range(int(info.min) + 1, int(info.min) + 50)]
    if info.kind == "toggle":
        return [False, True]
    return list(info.options)


def as_param(info, value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{round(value, 6):g}"
    return str(value)


def run_at(slug: str, values: dict[str, object]):
    at = open_page(slug, **{key: as_param(info, values[key]) for key, info in
                            ((i.key, i) for i in page_controls(slug)) if key in values})
    return reveal(at, slug)


def setting(slug: str, pick) -> dict[str, object]:
    return {info.key: pick(info, _ends(info)) for info in page_controls(slug)}


def said(at) -> str:
    """Everything the page says: its text and its metrics (label and value)."""
    return texts(at) + "\n" + "\n".join(f"{k}: {v}" for k, v in metrics(at).items())


def never_shown(text: str) -> list[str]:
    """What no page may ever say: a NaN or an infinity, or a factor written as ×0.000 (a product of two numbers,
    "5.000 × 0.000", may be 0 when one of them is)."""
    bad = re.findall(r"(?i)\b(?:nan|-?inf(?:inity)?)\b", text)
    bad += re.findall(r"(?<![0-9] )×\s?0\.0+(?![0-9]*[1-9])", text)    # a factor, not "5.000 × 0.000"
    return bad


# ── RNN and LSTM: each number recomputed by a forward product of the Jacobians, kept in log space ──────────────
def rnn_log10_influence(length: int, rho: float, seed: int) -> tuple[float, float]:
    """log₁₀ ‖∂h_T/∂x_1‖ and log₁₀ ‖∂h_T/∂x_T‖ of the page's RNN, forward from x_1 (the core goes backward)."""
    from ui.lessons.rnn_vs_attention import D_IN, D_K, HIDDEN

    rng = np.random.default_rng(seed)
    rnn = core.random_rnn(HIDDEN, D_IN, rho, rng)
    core.random_head(D_IN, D_K, rng)
    X = rng.standard_normal((length, D_IN))
    H = core.rnn_forward(rnn, X)
    P, scale = (1 - H[0] ** 2)[:, None] * rnn.W_xh, 0.0          # ∂h_1/∂x_1
    for t in range(1, length):
        P = (1 - H[t] ** 2)[:, None] * (rnn.W_hh @ P)
        size = np.abs(P).max()
        if size == 0:
            return -math.inf, 0.0
        P, scale = P / size, scale + math.log10(size)
    last = np.linalg.norm((1 - H[-1] ** 2)[:, None] * rnn.W_xh, ord=2)
    return scale + math.log10(np.linalg.norm(P, ord=2)), math.log10(last)


def lstm_first(length: int, bias: float, seed: int) -> float:
    """‖∂(h_T, c_T)/∂x_1‖ of the page's LSTM (0 where it underflows)."""
    from ui.lessons.rnn_vs_attention import D_IN, D_K, HIDDEN

    rng = np.random.default_rng(seed)
    core.random_rnn(HIDDEN, D_IN, 1.0, rng)
    core.random_head(D_IN, D_K, rng)
    X = rng.standard_normal((length, D_IN))
    lstm = core.random_lstm(HIDDEN, D_IN, bias, np.random.default_rng([seed, 1]))
    with np.errstate(under="ignore"):
        return float(core.lstm_input_influence(lstm, X)[0])


def rnn_findings(at, values: dict) -> list[str]:
    text, found = said(at), []
    length, rho = int(values["rn_len"]), float(values["rn_rho"])
    seed = int(values.get("rn_seed", 0))
    first, last = rnn_log10_influence(length, rho, seed)
    reach = re.search(rf"token 1 reaches the last state at ({NUMBER})", text)
    if reach and abs(log10_of(reach.group(1)) - first) > 0.05:
        found.append(f"token 1 reaches the last state at {reach.group(1)}, but its gradient is 10^{first:.2f}")
    trend = re.search(rf"its gradient (shrinks|grows) by about ×({NUMBER}) per step", text)
    if trend:
        rate = (first - last) / (length - 1)                      # log₁₀ of the factor per step
        word, shown = trend.groups()
        if (word == "shrinks") != (rate < 0) and abs(rate) > 1e-4:
            found.append(f"its gradient {word}, but the factor per step is 10^{rate:.4f}")
        if abs(log10_of(shown) - rate) > 0.01:
            found.append(f"about ×{shown} per step, but the factor is 10^{rate:.3f}")
    bound = metrics(at).get("bound ‖J‖ᵀ⁻¹")
    if bound is not None and abs(log10_of(bound) - (length - 1) * math.log10(rho)) > 0.01:
        found.append(f"the bound is written {bound}, but ‖J‖ᵀ⁻¹ is 10^{(length - 1) * math.log10(rho):.2f}")
    fades = first < last
    if "blows up above 1" in text and rho > 1 and fades:
        found.append(f"says the gradient blows up above 1 while this RNN at ‖J‖ = {rho} fades")
    lstm = re.search(rf"the LSTM keeps ({NUMBER}) of token 1's gradient|token 1's gradient (grows) to ({NUMBER}) "
                     "in the LSTM", text)
    if lstm and "rn_fbias" in values:
        kept = log10_of(lstm.group(1) or lstm.group(3))
        if kept > 0 and not lstm.group(2):
            found.append(f"the LSTM “keeps” {lstm.group(1)} of the gradient, more than all of it")
        if kept <= 0 and lstm.group(2):
            found.append(f"the LSTM's gradient “grows” to {lstm.group(3)}, less than it started with")
        true = lstm_first(length, float(values["rn_fbias"]), seed)
        if true > 0 and abs(kept - math.log10(true)) > 0.05:
            found.append(f"the LSTM's gradient is written {lstm.group(1) or lstm.group(3)}, but measured {true:.3g}")
        if true == 0 and kept == -math.inf:
            found.append("the LSTM's gradient is written 0 (it underflowed; it is not 0)")
    return found


# ── FlashAttention: block sizes within the sequence, verdicts that say when a block size cannot run ──────────
def flash_findings(at, values: dict) -> list[str]:
    text, found = said(at), []
    length = int(values.get("fa_tokens", 12))
    n = int(values.get("fa_n", 8192))
    found += [f"a block of {b} keys in a sequence of {length}" for b in re.findall(r"[Bb]lock of (\d+) ", text)
              if int(b) > length and f"N = {n:,}" not in text]
    tiled = re.search(r"reads each block of (\d+) keys", text)
    if tiled and int(tiled.group(1)) > n:
        found.append(f"a block of {tiled.group(1)} keys read from a sequence of N = {n:,}")
    if "bounds below" in text:
        found.append("“bounds below” points at nothing below")
    for caption in (c.value for c in at.caption):
        if "/M" in caption and not re.search(r"\bM\b (?:is|=)|, M,|\(M\b|M: ", caption):
            found.append(f"the caption's M is not defined: {caption[:80]}")
    cannot = "could not run as counted" in text
    for paragraph in (m.value for m in at.markdown):
        if cannot and "Tiled, the same FLOPs" in paragraph and "could not run" not in paragraph:
            found.append("a ridge-point verdict for a block size that could not run, with no caveat")
    for label, value in metrics(at).items():
        if cannot and label.startswith("plain ÷ tiled") and "if" not in (label + value):
            found.append(f"a speed-up {value} for a block size that could not run, with no caveat")
    return found


FINDINGS = {"rnn_vs_attention": rnn_findings, "flash_attention": flash_findings}


def findings(slug: str, at, values: dict) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    return never_shown(said(at)) + FINDINGS.get(slug, lambda *_: [])(at, values)


@pytest.mark.parametrize("end", ["lowest", "highest"])
@pytest.mark.parametrize("slug", SLUGS)
def test_every_sentence_holds_with_every_control_at_an_end(slug, end):
    values = setting(slug, lambda info, legal: legal[0] if end == "lowest" or len(legal) < 2 else legal[1])
    at = run_at(slug, values)
    found = findings(slug, at, values)
    assert not found, (values, found)


@PAGE_EXAMPLES
@given(data=st.data())
@pytest.mark.parametrize("slug", SLUGS)
def test_every_sentence_holds_at_random_settings(slug, data):
    values = setting(slug, lambda info, legal: data.draw(st.sampled_from(legal), label=info.key))
    at = run_at(slug, values)
    found = findings(slug, at, values)
    assert not found, (values, found)


# ── The settings the walk-through found, each pinned ───────────────────────────────────────────────────────────
@pytest.mark.parametrize("values", [
    {"rn_len": 500, "rn_rho": 0.5},                           # token 1's gradient underflows: 10⁻³⁷¹, ×0.18 a step
    {"rn_len": 500, "rn_rho": 0.1},                           # so does the bound itself: 0.1⁴⁹⁹ = 10⁻⁴⁹⁹
    {"rn_len": 100, "rn_rho": 1.2},                           # the table's "blows up above 1" against a fading RNN
    {"rn_len": 500, "rn_rho": 0.9, "rn_fbias": 6.0},          # the LSTM's gradient grows: it does not "keep" 89
])
def test_the_rnn_pages_examples(values):
    at = run_at("rnn_vs_attention", values)
    found = findings("rnn_vs_attention", at, values)
    assert not found, found


@pytest.mark.parametrize("values", [
    {"fa_bc": 512, "fa_d": 128},                              # cannot run as counted, yet verdict and speed-up
    {"fa_tokens": 3, "fa_block": 20},                         # a block larger than the sequence
])
def test_the_flash_pages_examples(values):
    at = run_at("flash_attention", values)
    found = findings("flash_attention", at, values)
    assert not found, found

"""The FlashAttention page: blocks stepped through, the prediction that gates the exactness check, the traffic
counts and the roofline, each checked against an independent computation (plain attention, closed forms)."""

import math

import numpy as np
import pytest

from attention_core import A100_SXM_40GB, scaled_dot_product_attention
from devtools.apptest import choose, feedback_follows_the_marked_answer, figure, metric, metrics, open_page, texts

PAGE = "flash_attention"


def scores(at):
    """The page's example scores, made by the plain formula from the same seeded draw (the page's recipe)."""
    from ui.lessons.flash_attention import D_K as FLASH_D_K

    length, spread, seed = (at.session_state[k] for k in ("fa_tokens", "fa_spread", "fa_seed"))
    rng = np.random.default_rng([seed, length])
    Q, K = (rng.standard_normal((length, FLASH_D_K)) * spread for _ in range(2))
    return scaled_dot_product_attention(Q, K, np.ones((length, 1))).scaled


def shown_number(at, start):
    """The number the metric whose label starts with ``start`` shows (plain, or written m × 10ⁿ)."""
    return metric(at, next(k for k in metrics(at) if k.startswith(start)))


def test_each_block_updates_m_and_l_as_the_online_softmax_says():
    at = open_page(PAGE)
    s = scores(at)[-1]                                    # the last query, which the page follows
    block = at.session_state["fa_block"]
    for step in range(1, math.ceil(len(s) / block) + 1):
        at.slider(key="fa_step").set_value(step).run()
        seen = s[: step * block]
        m = seen.max()
        assert shown_number(at, "q12: running max m") == pytest.approx(m, rel=1e-3)
        assert shown_number(at, "q12: running sum ℓ") == pytest.approx(np.exp(seen - m).sum(), rel=1e-3)
        if step > 1:
            m_old = s[: (step - 1) * block].max()
            assert shown_number(at, "rescale") == pytest.approx(np.exp(m_old - m), rel=1e-3)
            said = "raised" if m > m_old else "did not raise"
            assert f"Block {step} {said} q12's max" in texts(at)
        grid = np.array(figure(at, "fa_fig_grid")["data"][0]["z"], dtype=float)
        assert np.isfinite(grid[:, : step * block]).all() and np.isnan(grid[:, step * block:]).all()


def test_a_block_as_big_as_t_leaves_nothing_to_step_and_block_one_steps_every_key():
    at = open_page(PAGE)
    at.slider(key="fa_block").set_value(12).run()
    assert "keys in block 1 of 1" in metrics(at) and "nothing to rescale" in texts(at)
    at.slider(key="fa_block").set_value(1).run()
    assert any(k.endswith("of 12") for k in metrics(at))
    at.slider(key="fa_step").set_value(12).run()
    at.slider(key="fa_tokens").set_value(5).run()          # fewer blocks than the step shown: still a valid block
    assert not at.exception
    shown = next(k for k in metrics(at) if k.startswith("keys in block"))
    assert int(shown.split()[3]) <= 5 and shown.endswith("of 5")


def reveal(at, right=True):
    choose(at, PAGE, "predict", "same", right=right)
    at.button(key="flash_attention__predict__same__button").click().run()
    return at


@pytest.mark.parametrize("spread, causal", [(1.5, False), (30.0, False), (30.0, True), (0.1, True)])
def test_the_difference_is_hidden_until_predicted_then_is_rounding_only(spread, causal):
    at = open_page(PAGE)
    assert not any(k.startswith("max |Δ|") for k in metrics(at))
    at.slider(key="fa_spread").set_value(spread)
    at.toggle(key="fa_causal").set_value(causal).run()
    reveal(at)
    assert len(at.success) >= 1
    assert 0 <= shown_number(at, "max |Δ|, this") < 1e-12
    assert 0 <= shown_number(at, "max |Δ| over B") < 1e-12
    assert ("causal mask on both sides" in texts(at)) == causal


def test_a_wrong_prediction_gets_its_own_feedback():
    at = reveal(open_page(PAGE), right=False)
    assert len(at.error) == 1 and not at.success               # the wrong choice's feedback, nothing else


def test_causal_mask_blanks_the_keys_after_each_query():
    at = open_page(PAGE)
    at.toggle(key="fa_causal").set_value(True).run()
    at.slider(key="fa_step").set_value(3).run()
    grid = np.array(figure(at, "fa_fig_grid")["data"][0]["z"], dtype=float)
    assert np.isnan(grid[np.triu_indices(12, 1)]).all() and np.isfinite(grid[np.tril_indices(12)]).all()


def shown_block(at) -> str:
    return next(label for label in (m.label for m in at.metric) if label.startswith("keys in block"))


@pytest.mark.parametrize("control, value", [("fa_block", 3), ("fa_tokens", 20)])
def test_new_tiles_start_the_walk_again_at_block_one(control, value):
    at = open_page(PAGE)
    at.slider(key="fa_step").set_value(3).run()
    assert shown_block(at).startswith("keys in block 3 of")
    at.slider(key=control).set_value(value).run()
    n_blocks = math.ceil(at.slider(key="fa_tokens").value / at.slider(key="fa_block").value)
    assert at.slider(key="fa_step").value == 1 and shown_block(at) == f"keys in block 1 of {n_blocks}"
    at.slider(key="fa_step").set_value(2).run()                 # and steps on from there
    assert shown_block(at) == f"keys in block 2 of {n_blocks}"


def test_a_link_opens_at_its_block():
    at = open_page(PAGE, fa_block="3", fa_step="3")
    assert shown_block(at) == "keys in block 3 of 4"


@pytest.mark.parametrize("n, d, bc", [(8192, 64, 256), (256, 32, 16), (16384, 128, 1024)])
def test_traffic_metrics_follow_the_papers_counts(n, d, bc):
    at = open_page(PAGE)
    at.select_slider(key="fa_n").set_value(n)
    at.select_slider(key="fa_d").set_value(d)
    at.select_slider(key="fa_bc").set_value(bc).run()
    plain = 2 * (4 * n * d + 4 * n * n)                   # Q, K, V, O once each and S, P twice each, 2 bytes
    t_c = math.ceil(n / bc)
    tiled = 2 * (2 * n * d + t_c * (2 * n * d + 2 * n) + n * d + 2 * n + t_c * (n * d + 2 * n))
    assert metrics(at)["plain: bytes moved"] == f"{plain / 1e6:,.1f} MB"
    assert metrics(at)["tiled: bytes moved"] == f"{tiled / 1e6:,.1f} MB"
    fits = 4 * bc * d * 2 <= A100_SXM_40GB.shared_per_sm
    assert ("do not fit" in texts(at)) == (not fits)
    fig = figure(at, "fa_fig_traffic")
    assert [t["name"] for t in fig["data"]] == ["plain attention", "tiled (FlashAttention)"]
    assert fig["data"][0]["y"][list(fig["data"][0]["x"]).index(n)] == pytest.approx(plain)


def test_why_it_exists_computes_the_roofline_at_8k():
    at = open_page(PAGE)
    shown = texts(at)
    n, d = 8192, 64
    flops, plain = 4 * n * n * d, 2 * (4 * n * d + 4 * n * n)
    ridge = 312e12 / 1555e9
    assert f"**{ridge:.0f} FLOPs per byte**" in shown
    assert f"Plain attention at N = 8,192 is memory-bound:** it does {flops / plain:.1f} FLOPs per byte" in shown
    assert f"{(plain / 1555e9) / (flops / 312e12):.1f}× as long" in shown
    assert "Source: NVIDIA A100" in shown


def test_presenter_mode_reveals_the_sections_one_step_at_a_time():
    at = open_page(PAGE, present="1")
    assert "plain: bytes moved" not in metrics(at) and "The same answer" not in texts(at)
    for _ in range(2):
        at.button(key="flash_attention__step__next").click().run()
    assert "plain: bytes moved" in metrics(at) and "ridge point" not in texts(at)
    at.button(key="flash_attention__step__next").click().run()
    assert "ridge point" in texts(at)


def test_the_trap_check_gives_feedback_on_every_option():
    at = open_page(PAGE)
    assert not any(r.key == "flash_attention__check__approximation" for r in at.radio), "held back until revealed"
    feedback_follows_the_marked_answer(reveal(at), PAGE, "approximation")


def test_sizes_are_decimal_throughout_and_one_key_is_singular():
    """Issue 47 item 11: on-chip memory in decimal MB like every other size (not MiB beside MB), and a block of
    one key says "1 key"."""
    at = open_page(PAGE)
    said = texts(at)
    gpu = A100_SXM_40GB
    assert f"= {gpu.sram_per_sm * gpu.sms / 1e6:,.1f} MB" in said
    assert f"{gpu.sram_per_sm * gpu.sms / 2 ** 20:.1f} MB" not in said and " KB" not in said
    at = open_page(PAGE, fa_block="1")
    said = texts(at)
    assert "over its 1 key." in said and "1 keys" not in said

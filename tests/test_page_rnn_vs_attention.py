"""The RNN-versus-attention page: the seed's 2.95 × 10⁻⁵ at defaults, sliders that move the bound and the race."""

import pytest

from devtools import apptest
from devtools.apptest import answer, leading_number, metrics, open_page, texts


def revealed():
    at = open_page("rnn_vs_attention")
    answer(at, "rnn_vs_attention__predict__decay", "About 3 × 10⁻⁵")
    at.button(key="rnn_vs_attention__predict__decay__button").click().run()
    return at


def read(text: str) -> float:
    """A number as the page writes it ("0.0295", "2.95 × 10⁻⁵") back to a float."""
    mantissa, _, power = text.partition(" × 10")
    return float(mantissa) * 10 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")) or 0)


def test_bound_hidden_until_predicted_then_shows_the_seed_number():
    at = open_page("rnn_vs_attention")
    assert "bound ‖J‖ᵀ⁻¹" not in metrics(at)
    at = revealed()
    m = metrics(at)
    assert m["bound ‖J‖ᵀ⁻¹"] == "2.95 × 10⁻⁵"              # seed: 0.9^99 ≈ 2.95 × 10⁻⁵, never "2.95e-05"
    assert m["steps from token 1 to token T"] == "99"
    assert "0.90⁹⁹ = 2.95 × 10⁻⁵" in texts(at)


@pytest.mark.parametrize("length, rho", [(10, 0.5), (300, 0.95), (2, 1.2)])
def test_sliders_move_the_bound_to_rho_to_the_t_minus_one(length, rho):
    at = revealed()
    at.slider(key="rn_len").set_value(length)
    at.slider(key="rn_rho").set_value(rho).run()
    assert read(metrics(at)["bound ‖J‖ᵀ⁻¹"]) == pytest.approx(rho ** (length - 1), rel=5e-3)
    assert metrics(at)["RNN path, token 1 → T"].startswith(str(length - 1))
    assert metrics(at)["RNN: in sequence"] == str(length)
    assert (rho > 1) == any("explode" in w.value for w in at.warning)


@pytest.mark.parametrize("rho, length", [(0.9, 100), (1.5, 100), (1.0, 50), (0.1, 2)])
def test_the_decay_prediction_quotes_the_sliders_and_marks_rho_to_the_steps_right(rho, length):
    """The prompt names the current ‖J‖ and T, and the option marked right is ρ^(T−1), computed independently."""
    import numpy as np

    at = open_page("rnn_vs_attention", rn_rho=str(rho), rn_len=str(length))
    radio = at.radio(key="rnn_vs_attention__predict__decay")
    assert f"at most {rho:.2f}" in radio.label and f"to token {length}" in radio.label
    assert len(set(radio.options)) == len(radio.options)
    exact = rho ** (length - 1)
    key = "rnn_vs_attention__predict__decay"
    right = []
    for option in radio.options:                       # each committed in its own session: graded once
        fresh = open_page("rnn_vs_attention", rn_rho=str(rho), rn_len=str(length))
        fresh.radio(key=key).set_value(option).run()
        fresh.button(key=f"{key}__button").click().run()
        right += [option for m in fresh.success if m.value.startswith("Right")]
    assert len(right) == 1
    number = right[0].removeprefix("About ").split(":")[0]
    mantissa, _, power = number.partition(" × 10")
    value = float(mantissa) * 10 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))) if power \
        else float(number)
    assert np.isclose(value, exact, rtol=0.06)


def test_the_real_rnn_fading_is_explained_from_its_own_jacobians():
    """At ‖J‖ = 1.5 the bound grows, yet the tanh RNN fades: the page says why, with numbers from the chain."""
    import numpy as np

    import attention_core as core
    from ui.lessons import rnn_vs_attention as data

    at = revealed()
    at.slider(key="rn_rho").set_value(1.5).run()
    said = next(m.value for m in at.markdown if m.value.startswith("**Why the real RNN"))
    rng = np.random.default_rng(0)
    rnn = core.random_rnn(data.HIDDEN, data.D_IN, 1.5, rng)
    core.random_head(data.D_IN, data.D_K, rng)
    X = rng.standard_normal((100, data.D_IN))
    H = core.rnn_forward(rnn, X)
    slopes = 1 - H ** 2
    norms = [np.linalg.norm(np.diag(s) @ rnn.W_hh, 2) for s in slopes[1:]]
    assert said.startswith("**Why the real RNN fades at ‖J‖ = 1.50.**")
    assert f"averages {slopes.mean():.2f}" in said and f"norm {np.exp(np.mean(np.log(norms))):.3f}" in said
    assert max(norms) <= 1.5 + 1e-12                       # tanh' ≤ 1: no real step stretches more than ‖W_hh‖


def test_real_rnn_forgets_token_one_while_attention_does_not():
    at = open_page("rnn_vs_attention")
    m = metrics(at)
    assert read(m["token 1 → last RNN state"]) < 1e-6 * read(m["last token → last RNN state"])
    assert read(m["token 1 → attention out"]) > 1e3 * read(m["token 1 → last RNN state"])
    at.slider(key="rn_len").set_value(5).run()                 # a short chain leaves much more
    assert read(metrics(at)["token 1 → last RNN state"]) > 1e-3


def test_extremes_do_not_crash_and_seed_changes_the_run():
    at = revealed()
    at.slider(key="rn_len").set_value(500)
    at.slider(key="rn_rho").set_value(0.1).run()
    assert not at.exception and "underflows" in texts(at)
    before = metrics(at)["token 1 → attention out"]
    at.number_input(key="rn_seed").set_value(9).run()
    assert metrics(at)["token 1 → attention out"] != before


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    at = apptest.reveal(open_page("rnn_vs_attention"), "rnn_vs_attention")  # the check waits
    apptest.feedback_follows_the_marked_answer(at, "rnn_vs_attention", "lstm")


def test_the_race_numbers_match_the_cached_run_once_their_expander_opens():
    from ui.lessons import rnn_vs_attention as data

    at = open_page("rnn_vs_attention")
    at.session_state["rn_fig_infl__numbers"] = True       # what opening "Show the numbers" sets
    table = at.run().dataframe[0].value
    length, rho, seed = (at.session_state[k] for k in ("rn_len", "rn_rho", "rn_seed"))
    race = data.rnn_race.__wrapped__(length, rho, seed)    # the computation itself, not Streamlit's cache
    assert list(table.columns) == ["distance", "RNN", "attention", "RNN bound"] and len(table) == length
    for column, name in (("distance", "distance"), ("RNN", "rnn"), ("attention", "attention"),
                         ("RNN bound", "ceiling")):
        shown = table[column].to_numpy()
        if shown.dtype == object:                          # written out (2.95 × 10⁻⁵): four significant digits
            assert [leading_number(x) for x in shown] == pytest.approx(getattr(race, name), rel=1e-3, abs=0)
        else:
            assert shown == pytest.approx(getattr(race, name))

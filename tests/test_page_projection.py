"""The projection page: every control moves what it claims to, bad input is caught, questions answer back."""

import numpy as np
import pytest

from devtools.apptest import answer, feedback_follows_the_marked_answer, metrics, open_page, reveal, texts

COS50 = np.cos(np.radians(50))
PROJ_K, PROJ_Q = r"$\operatorname{proj}_k(q)$", r"$\operatorname{proj}_q(k)$"     # as the page writes them


def test_defaults_show_the_shadow_and_score_of_the_default_vectors():
    at = open_page("projection")
    m = metrics(at)
    assert m["score q·k"] == f"{2 * 3 * COS50:.3f}" and m["shadow (q·k)/‖k‖"] == f"{2 * COS50:.3f}"
    assert m["angle q to k"] == "50.0°"


def test_turning_q_changes_the_score_and_perpendicular_gives_zero():
    at = open_page("projection")
    at.slider(key="pr_q_angle").set_value(120).run()
    assert metrics(at)["score q·k"] == f"{6 * np.cos(np.radians(120)):.3f}"
    at.toggle(key="pr_perp").set_value(True).run()
    assert metrics(at)["score q·k"] == "0.000"
    assert "exactly 0" in texts(at)
    at.slider(key="pr_k_angle").set_value(-137).run()            # stays perpendicular as the runway turns
    assert metrics(at)["score q·k"] == "0.000"


def test_lengths_scale_the_score():
    at = open_page("projection")
    at.slider(key="pr_k_len").set_value(1.5).run()               # half the runway: half the score
    assert float(metrics(at)["score q·k"]) == pytest.approx(3 * COS50, abs=1e-3)
    at.slider(key="pr_q_len").set_value(4.0).run()
    assert float(metrics(at)["score q·k"]) == pytest.approx(6 * COS50, abs=1e-3)


def test_coordinates_mode_and_zero_length_k():
    at = open_page("projection")
    at.radio(key="pr_input").set_value("coordinates").run()
    assert metrics(at)["score q·k"] == f"{2 * 3 + 1 * 0:.3f}"      # default q = (2, 1), k = (3, 0)
    at.number_input(key="pr_kx").set_value(0.0).run()
    assert not at.exception
    assert any("length 0" in w.value for w in at.warning)
    assert "score q·k" not in metrics(at)


def test_zero_length_k_from_sliders_warns_instead_of_failing():
    at = open_page("projection")
    at.slider(key="pr_k_len").set_value(0.0).run()
    assert not at.exception and any("no runway" in w.value for w in at.warning)


def test_prediction_gates_the_side_by_side_shadows():
    at = open_page("projection")
    assert "projection__predict__swap__button" in [b.key for b in at.button]
    assert PROJ_Q not in texts(at)
    answer(at, "projection__predict__swap", "The score and the shadow vector both stay the same")
    at.button(key="projection__predict__swap__button").click().run()
    out = texts(at)
    shadow_on_q = 3 * COS50 * np.array([COS50, np.sin(np.radians(50))])   # ‖k‖ cos θ along q̂
    assert f"{PROJ_Q} = ({shadow_on_q[0]:.3f}, {shadow_on_q[1]:.3f})" in out
    assert f"{PROJ_K} = ({2 * COS50:.3f}, 0.000)" in out
    assert any(e.value.startswith("Not quite") and "different vectors" in e.value for e in at.error)


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    at = reveal(open_page("projection"), "projection")
    feedback_follows_the_marked_answer(at, "projection", "commutative")


def _number(text: str) -> float:
    """A number as the page writes it: 0.001, 100.000 or 1 × 10⁻⁵."""
    mantissa, _, power = text.partition(" × 10")
    return float(mantissa) * 10.0 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")) or 0)


@pytest.mark.parametrize("q, k", [((0.00001, 0.0), (100.0, 0.0)), ((2.0, 1.0), (3.0, 0.0)),
                                  ((0.0004, 0.0), (-1000.0, 0.0)), ((0.5, 0.0), (0.001, 0.0))])
def test_the_product_line_reads_true_for_tiny_and_large_factors(q, k):
    """Issue 47 item 11: "100.000 × 0.000 = 0.001" is false as written; every factor shows enough figures
    that the written product matches the written score."""
    import re

    at = open_page("projection", pr_input="coordinates", pr_qx=str(q[0]), pr_qy=str(q[1]), pr_kx=str(k[0]),
                   pr_ky=str(k[1]))
    line = next(m.value for m in at.markdown if "runway length × shadow" in m.value)
    number = r"(-?[\d.]+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)"
    a, b, c = re.search(rf"q·k = {number} × {number} = \*\*{number}\*\*", line).groups()
    assert _number(a) * _number(b) == pytest.approx(_number(c), rel=2e-3, abs=5e-4 * (_number(c) != 0))
    assert float(np.dot(q, k)) == pytest.approx(_number(c), rel=2e-3)

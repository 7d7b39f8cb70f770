"""The learned-projections page: presets, random weights, typed weights, the rank bottleneck and the questions."""

import tomllib
from pathlib import Path

import numpy as np

from devtools import apptest
from devtools.apptest import answer, metrics, open_page

DATA = tomllib.loads((Path(__file__).resolve().parent.parent / "assets/data/pronoun_sentence.toml").read_text())
X = np.array([t["embedding"] for t in DATA["tokens"]])
LABELS = [t["text"] for t in DATA["tokens"]]
IT, ROBOT = LABELS.index("it"), LABELS.index("robot")


RANK = "rank of M"                               # the metric's label, plain text for a screen reader


def naive_score(i, j, W_Q, W_K):
    q = [sum(W_Q[a][m] * X[i][m] for m in range(4)) for a in range(len(W_Q))]
    k = [sum(W_K[a][m] * X[j][m] for m in range(4)) for a in range(len(W_K))]
    return sum(x * y for x, y in zip(q, k, strict=True))


def revealed():
    at = open_page("learned_projections")
    answer(at, "learned_projections__predict__mutual", "No: “it”")
    at.button(key="learned_projections__predict__mutual__button").click().run()
    return at


def test_preset_makes_it_look_at_robot_but_not_back():
    at = open_page("learned_projections")
    assert "it → robot" not in metrics(at)                    # hidden until the learner has predicted
    at = revealed()
    m = metrics(at)
    W_Q, W_K = DATA["preset"]["W_Q"], DATA["preset"]["W_K"]
    assert m["it → robot"] == f"{naive_score(IT, ROBOT, W_Q, W_K):.3f}"
    assert m["robot → it"] == f"{naive_score(ROBOT, IT, W_Q, W_K):.3f}"
    assert float(m["it → robot"]) > 5 * abs(float(m["robot → it"]))
    assert float(m["‖A − Aᵀ‖, learned"]) > 0
    assert any("scores **robot** highest" in md.value for md in at.markdown)


def test_random_weights_follow_seed_and_d_k_sets_the_rank():
    at = revealed()
    at.radio(key="lp_mode").set_value("random, from a seed").run()
    first = metrics(at)["it → robot"]
    at.slider(key="lp_seed").set_value(7).run()
    assert metrics(at)["it → robot"] != first
    for d_k in (1, 3, 4):
        at.slider(key="lp_dk").set_value(d_k).run()
        m = metrics(at)
        assert m["dₖ"] == str(d_k) and m[RANK] == str(min(d_k, 4))


def test_typed_weights_change_the_scores_and_bad_ones_show_an_error():
    at = revealed()
    at.radio(key="lp_mode").set_value("type your own").run()
    W = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    at.text_area(key="lp_wq").set_value("\n".join(",".join(map(str, r)) for r in W))
    at.text_area(key="lp_wk").set_value("\n".join(",".join(map(str, r)) for r in W)).run()
    m = metrics(at)
    assert m["‖A − Aᵀ‖, learned"] == "0.000"          # W_Q = W_K gives a symmetric grid
    assert m[RANK] == "3"
    for bad in ["", "1, 2", "nan, 1, 2, 3", "<script>x</script>", "1e400, 0, 0, 0", "1,2,3,4\n" * 40]:
        at.text_area(key="lp_wq").set_value(bad).run()
        assert not at.exception and at.error, bad
        assert RANK not in metrics(at)


def test_prediction_gates_the_learned_heatmap():
    at = open_page("learned_projections")
    n_before = len(at.get("plotly_chart"))
    answer(at, "learned_projections__predict__mutual", "No: “it”")
    at.button(key="learned_projections__predict__mutual__button").click().run()
    assert len(at.get("plotly_chart")) == n_before + 1
    assert at.success


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    at = apptest.reveal(open_page("learned_projections"), "learned_projections")  # the check waits
    apptest.feedback_follows_the_marked_answer(at, "learned_projections", "symmetric")


def test_one_non_zero_singular_value_takes_a_singular_verb():
    """Issue 47 item 11: at dₖ = 1, "1 of its 4 singular values is non-zero", never "… are"."""
    at = revealed()
    at.radio(key="lp_mode").set_value("random, from a seed").run()
    at.slider(key="lp_dk").set_value(1).run()
    said = " ".join(c.value for c in at.caption)
    assert "1 of its 4 singular values is non-zero" in said and "values are non-zero" not in said.split("1 of")[1]
    at.slider(key="lp_dk").set_value(3).run()
    assert "3 of its 4 singular values are non-zero" in " ".join(c.value for c in at.caption)

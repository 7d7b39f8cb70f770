"""The LSTM section of RNN versus attention: the forget-gate bias keeps token 1's gradient alive, and the
fixed-size state stops recalling once the pairs outnumber its numbers, while attention recalls them all."""

import numpy as np
import pytest

from devtools.apptest import figure, metric, metrics, open_page, texts

PAGE = "rnn_vs_attention"


def test_a_larger_forget_bias_keeps_far_more_of_token_one_than_the_rnn():
    at = open_page(PAGE)
    at.slider(key="rn_fbias").set_value(-2.0).run()
    low = metric(at, "LSTM: token 1 → last state")
    at.slider(key="rn_fbias").set_value(6.0).run()
    high = metric(at, "LSTM: token 1 → last state")
    rnn = metric(at, "RNN: token 1 → last state")
    assert high > 1e6 * low and high > 1e6 * rnn
    assert "times** the tanh RNN's" in texts(at)
    fig = figure(at, "rn_fig_lstm")
    assert [t["name"] for t in fig["data"]] == ["RNN (tanh)", "LSTM", "attention"]
    assert np.asarray(fig["data"][1]["y"], float)[0] == pytest.approx(high, rel=1e-2)


def test_the_lstm_runs_on_the_same_length_as_the_rnn():
    at = open_page(PAGE)
    at.slider(key="rn_len").set_value(30).run()
    fig = figure(at, "rn_fig_lstm")
    assert len(fig["data"][1]["y"]) == len(fig["data"][0]["y"]) == 30


def test_recall_is_perfect_with_few_pairs_and_falls_once_k_passes_d():
    at = open_page(PAGE)
    at.select_slider(key="rn_state_d").set_value(64)
    at.slider(key="rn_pairs").set_value(4).run()
    m = metrics(at)
    assert m["best state: recalled"] == "100%" and m["attention: recalled"] == "100%"
    assert float(m["LSTM cell: recalled"].rstrip("%")) >= 95
    assert m["comparisons / recall"] == "4"
    at.slider(key="rn_pairs").set_value(512).run()
    m = metrics(at)
    assert float(m["best state: recalled"].rstrip("%")) < 85
    assert float(m["LSTM cell: recalled"].rstrip("%")) < 85
    assert m["attention: recalled"] == "100%" and m["comparisons / recall"] == "512"
    assert "k is 8 times d" in texts(at)


def test_the_recall_chart_names_the_lstm_cell_and_attention_and_marks_k_equals_d():
    at = open_page(PAGE)
    at.select_slider(key="rn_state_d").set_value(16).run()
    fig = figure(at, "rn_fig_recall")
    names = [t["name"] for t in fig["data"]]
    assert any("LSTM" in n for n in names) and any("attention" in n for n in names)
    assert fig["layout"]["shapes"][0]["x0"] == 16
    attention = np.asarray(fig["data"][2]["y"], float)
    assert (attention == 1).all() and np.asarray(fig["data"][1]["y"], float)[-1] < 0.85


def test_the_seed_redraws_the_pairs():
    at = open_page(PAGE)
    at.slider(key="rn_pairs").set_value(40).run()
    before = figure(at, "rn_fig_recall")["data"][0]["y"]
    at.number_input(key="rn_seed").set_value(3).run()
    assert list(figure(at, "rn_fig_recall")["data"][0]["y"]) != list(before)

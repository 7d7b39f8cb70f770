"""The shared layout: margins that already hold what they must (so Plotly lays a figure out once) and
the label helpers that size them."""

import numpy as np
from hypothesis import given, strategies as st

from figures._layout import LEGEND_ROW, MARGIN, figure, text_px, wrapped
from figures.queries_keys_values import scores_and_weights

LINE = {"type": "scatter", "x": [0, 1], "y": [0, 1]}


def test_a_legend_adds_a_row_to_the_bottom_margin_and_nothing_else():
    alone, pair = figure([LINE], "one"), figure([LINE, LINE], "two")
    assert alone.layout.margin.to_plotly_json() == MARGIN
    assert pair.layout.margin.b == MARGIN["b"] + LEGEND_ROW
    assert (pair.layout.margin.l, pair.layout.margin.r, pair.layout.margin.t) == (MARGIN["l"], MARGIN["r"], MARGIN["t"])


def test_a_figure_can_refuse_the_legend_its_traces_would_get():
    fig = figure([LINE, LINE], "two, no legend", legend=False)
    assert fig.layout.showlegend is False and fig.layout.margin.to_plotly_json() == MARGIN
    assert fig.layout.height == figure([LINE], "one").layout.height
    assert figure([LINE], "one, with a legend", legend=True).layout.margin.b == MARGIN["b"] + LEGEND_ROW


def test_an_override_margin_keeps_the_other_sides():
    fig = figure([LINE], "t", override={"margin": {"b": 140}})
    assert fig.layout.margin.b == 140 and fig.layout.margin.l == MARGIN["l"]


def test_text_px_follows_the_longest_line_and_the_font_size():
    assert text_px(["ab", "abcdef"]) > text_px(["abc"]) > text_px([])
    assert text_px(["abcdef"], size=8) < text_px(["abcdef"], size=12)
    assert text_px(["abc<br>abc"]) == text_px(["abc"])                 # lines, not the whole string


@given(st.text(alphabet=st.sampled_from("abcdefgh ijk"), min_size=1, max_size=60))
def test_wrapped_keeps_every_word_in_order_on_short_lines(label):
    lines = wrapped(label).split("<br>")
    assert " ".join(lines).split() == label.split()
    assert all(len(line) <= 14 or " " not in line for line in lines)


def test_long_titles_wrap_and_the_margin_holds_the_longest_line():
    titles = ["Sourdough for beginners", "Replace a bicycle chain", "tap"]
    fig = scores_and_weights(titles, np.array([1.0, 2.0, 0.0]), np.array([0.2, 0.7, 0.1]))
    assert list(fig.data[0].y) == ["Sourdough for<br>beginners", "Replace a<br>bicycle chain", "tap"]
    assert fig.layout.margin.l >= text_px(["bicycle chain"]) > text_px(["tap"])


# ── What the browser layout check (tests/browser/test_layout.py) found, kept fixed in the figure JSON ──

WORDS = st.lists(st.sampled_from(["attention", "the", "W<sub>Q</sub>ᵀ", "(dₖ", "=", "2)", "q", "·", "k", "weights,",
                                  "of", "M", "softmax(scores", "/", "T)"]), min_size=1, max_size=14)


@given(WORDS)
def test_a_wrapped_title_keeps_every_word_in_order_and_lines_fit_unless_one_formula_is_longer(words):
    from figures._layout import TITLE_CHARS, title_lines

    title = " ".join(words)
    lines = title_lines(title).split("<br>")
    assert " ".join(lines) == title
    for line in lines:                                  # a subscript's tags take no width of their own
        shown = line.replace("<sub>", "").replace("</sub>", "")
        assert len(shown) <= TITLE_CHARS or " " not in line or "(" in line or "=" in line or "<sub>" in line, lines


def test_a_title_is_never_split_inside_a_formula():
    from figures._layout import title_lines

    q, k = "W<sub>Q</sub>", "W<sub>K</sub>"
    assert title_lines(f"Learned scores (X {q}ᵀ)(X {k}ᵀ)ᵀ").split("<br>") == ["Learned scores", f"(X {q}ᵀ)(X {k}ᵀ)ᵀ"]
    assert title_lines(f"Singular values of M = {q}ᵀ {k} (dₖ = 2)").split("<br>")[1] == f"M = {q}ᵀ {k} (dₖ = 2)"
    # A subscript counts as about one letter: its tags alone would push a short title onto two lines.
    assert title_lines("How much of the d<sub>model</sub>").count("<br>") == 0


def test_a_stage_number_never_ends_a_title_line():
    from figures._layout import TITLE_CHARS, title_lines

    for title in ("① Scores q · kⱼ → ② weights softmax(scores/T)",
                  "① Scores go up then ② weights and ③ outputs follow"):
        lines = title_lines(title).split("<br>")
        assert len(lines) > 1 and " ".join(lines) == title
        for line in lines:
            assert line.rstrip()[-1] not in "①②③④⑤" and len(line) <= TITLE_CHARS, lines


def test_each_wrapped_line_adds_its_height_to_the_top_margin_and_the_figure():
    from figures._layout import TITLE_LINE

    one, three = figure([LINE], "short"), figure([LINE], "this title is long enough to need three lines of room here")
    lines = three.layout.title.text.count("<br>") + 1
    assert lines == 3
    assert three.layout.margin.t - one.layout.margin.t == TITLE_LINE * (lines - 1)
    assert three.layout.height - one.layout.height == TITLE_LINE * (lines - 1)


def test_a_legend_hangs_a_fixed_distance_under_the_plot_whatever_its_height():
    from figures._layout import LEGEND_DROP

    for height in (240, 320, 600):
        fig = figure([LINE, LINE], "two", height=height)
        plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
        assert abs(fig.layout.legend.y * plot + LEGEND_DROP) < 1e-9


def test_heatmap_numbers_keep_the_common_size_and_the_colour_bar_title_sits_beside_the_bar():
    from figures._layout import FONT

    heat = {"type": "heatmap", "z": [[0.1, 0.9]], "text": [["0.1", "0.9"]], "texttemplate": "%{text}",
            "colorbar": {"title": {"text": "weight"}}}
    trace = figure([heat], "t").data[0]
    assert trace.textfont.size == FONT                  # Plotly would shrink them to fit a narrow column
    assert trace.colorbar.title.side == "right"

"""The first look's animation figure: one frame per stage, its caption, Play / Pause and a slider that scrub it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from figures.first_look import FRAME_MS, head_row_figure, pass_figure

STAGES = tomllib.loads((Path(__file__).resolve().parent.parent / "assets" / "lessons" / "first_look.toml")
                       .read_text(encoding="utf-8"))["stages"]
ROWS = ["[CLS]", "i", "sat", "bank", "the", "the", "[SEP]", "bank (till)"]


def data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    heats = [rng.standard_normal((len(ROWS), 24)) for _ in range(n)]
    bars = [np.abs(rng.standard_normal(len(ROWS))) for _ in range(n)]
    if n > 2:
        bars[1][[2, -1]] = np.nan                               # a stage with no bar for some rows
        bars[2] = rng.standard_normal(len(ROWS)) * 3            # a stage with bars below 0 (scores)
    return heats, bars


def build(n: int = len(STAGES), seed: int = 0):
    heats, bars = data(n, seed)
    labels = [s["label"] for s in STAGES][:n]
    captions = [f"caption of stage {i + 1}, long enough to need a second line on a phone" for i in range(n)]
    return pass_figure(ROWS, 3, heats, bars, labels, captions, [f"heat {i}" for i in range(n)],
                       [f"bar {i}" for i in range(n)]), heats, bars, labels, captions


def plain(text: str) -> str:
    return " ".join(text.replace("<br>", " ").split())


def test_one_frame_per_stage_named_by_its_label_in_order():
    fig, heats, bars, labels, _ = build()
    assert len(STAGES) >= 9                                        # tokens … block output, then the two banks
    assert [f.name for f in fig.frames] == labels
    assert len(set(labels)) == len(labels)                         # a slider step finds its frame by name
    for f, heat, bar in zip(fig.frames, heats, bars, strict=True):
        assert [t.type for t in f.data] == ["heatmap", "bar"] and list(f.traces) == [0, 1]
        np.testing.assert_array_equal(np.asarray(f.data[0].z), heat)
        np.testing.assert_array_equal(np.asarray(f.data[1].x, dtype=float), bar)         # NaN draws no bar


def test_each_frame_carries_its_own_caption_and_axis_titles_and_the_first_is_drawn_at_once():
    fig, _, bars, _, captions = build()
    for i, (f, caption) in enumerate(zip(fig.frames, captions, strict=True)):
        assert plain(f.layout.title.text) == caption
        assert plain(f.layout.xaxis.title.text) == f"heat {i}" and plain(f.layout.xaxis2.title.text) == f"bar {i}"
        lo, hi = f.layout.xaxis2.range
        finite = bars[i][np.isfinite(bars[i])]
        assert lo <= min(0.0, finite.min()) and hi > finite.max()     # every bar fits, from 0 or below
    assert plain(fig.layout.title.text) == captions[0]
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), np.asarray(fig.frames[0].data[0].z))


def test_the_caption_lines_fit_a_phone_and_the_top_margin_holds_the_longest():
    fig, *_ = build()
    lines = [f.layout.title.text.split("<br>") for f in fig.frames]
    assert max(len(line) for caption in lines for line in caption) <= 34
    assert fig.layout.margin.t >= 22 * max(len(c) for c in lines)


def test_play_and_pause_animate_in_the_browser_and_the_slider_scrubs_stage_by_stage():
    fig, _, _, labels, _ = build()
    (menu,) = fig.layout.updatemenus
    play, pause = menu.buttons
    assert "Play" in play.label and "Pause" in pause.label
    assert play.method == pause.method == "animate"
    assert play.args[0] is None and play.args[1]["frame"]["duration"] == FRAME_MS    # every frame, in turn
    assert play.args[1]["fromcurrent"] and play.args[1]["frame"]["redraw"]           # a heatmap needs a redraw
    assert list(pause.args[0]) == [None] and pause.args[1]["mode"] == "immediate"     # [None] stops the animation
    (slider,) = fig.layout.sliders
    assert [list(s.args[0]) for s in slider.steps] == [[name] for name in labels]
    assert [s.label for s in slider.steps] == [str(i + 1) for i in range(len(labels))]
    assert all(s.method == "animate" and s.args[1]["mode"] == "immediate" for s in slider.steps)
    assert slider.currentvalue.suffix == f" of {len(labels)}"


def test_the_followed_word_is_outlined_and_the_other_sentences_word_sits_under_a_line():
    fig, *_ = build()
    rect, line = fig.layout.shapes
    assert (rect.y0, rect.y1) == (2.5, 3.5)                                   # row 3: "bank"
    assert line.y0 == line.y1 == len(ROWS) - 1.5                            # above the last row
    assert list(fig.layout.yaxis.ticktext) == ROWS
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]            # the first token on top


@pytest.mark.parametrize("n", [1, 3])
def test_a_figure_of_fewer_stages_still_has_a_frame_and_a_step_each(n):
    fig, *_ = build(n)
    assert len(fig.frames) == len(fig.layout.sliders[0].steps) == n


def test_presenter_mode_keeps_every_frame_with_its_caption_enlarged():
    from figures._layout import presented

    fig, *_ = build()
    big = presented(fig)
    assert [f.name for f in big.frames] == [f.name for f in fig.frames]       # the animation survives the copy
    for small, large in zip(fig.frames, big.frames, strict=True):
        assert large.layout.title.text == small.layout.title.text
        assert large.layout.title.font.size > small.layout.title.font.size


def test_the_still_first_stage_has_no_frames_no_buttons_and_no_slider():
    heats, bars = data(1)
    fig = pass_figure(ROWS, 3, heats, bars, ["Tokens"], ["where they start"], ["heat"], ["bar"], animated=False)
    assert not fig.frames and not fig.layout.updatemenus and not fig.layout.sliders
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), heats[0])
    assert fig.layout.height < build(1)[0].layout.height                  # no room kept for the player


def test_a_heads_row_is_one_bar_per_token_in_order_with_the_query_marked():
    tokens = ["[CLS]", "the", "animal", "the", "it", "[SEP]"]
    row = np.array([0.1, 0.05, 0.5, 0.05, 0.2, 0.1])
    fig = head_row_figure(row, tokens, 4, "Where it looks")
    (bars,) = fig.data
    assert list(bars.y) == [f"{i}: {t}" for i, t in enumerate(tokens)]          # two "the"s, two rows
    np.testing.assert_allclose(np.asarray(bars.x), row)
    assert [c == bars.marker.color[4] for c in bars.marker.color].count(True) == 1   # the query alone
    assert list(bars.text) == [f"{w:.2f}" for w in row]
    assert fig.layout.xaxis.range[1] > row.max()

"""Every chart reads from the back row and on a phone: its type is at least 14 px (18 px presenting),
every trace's hover names what it shows, and every axis has a title that says what it measures.

The figures are the ones the pages really draw: every page runs through AppTest with each prediction
revealed, while every public builder in figures/ is wrapped to keep what it returns. A builder that no
page reached fails the coverage test, so a new one cannot slip past these checks.
"""

from __future__ import annotations

import base64
import functools
import importlib
import inspect
import pkgutil
import re
import sys

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st

import figures
from devtools.apptest import open_page
from figures._layout import FONT, presented
from ui.content import load_lesson, page_index
from ui.lru import ByteLRU, deep_size

SLUGS = [p.slug for p in page_index() if p.slug != "home"]
PRESENTER_FONT = 18
# States that draw what the defaults do not: weights off the simplex draw bars instead of the triangle.
EXTRA_STATES = [("convex_blending", [("toggle", "cb_off", True), ("slider", "cb_w1", -0.5)])]


def _builders() -> dict[str, tuple[object, str]]:
    """Every public function in figures/ annotated to return a go.Figure: name -> (module, attribute)."""
    out = {}
    for info in pkgutil.iter_modules(figures.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"figures.{info.name}")
        for name, fn in vars(module).items():
            if (inspect.isfunction(fn) and fn.__module__ == module.__name__ and not name.startswith("_")
                    and "Figure" in str(inspect.signature(fn).return_annotation)):
                out[f"{module.__name__}.{name}"] = (module, name)
    return out


def _reveal_everything(at) -> None:
    """Answer each prediction with its first choice and press its reveal, so what sits behind it is drawn."""
    for _ in range(12):                       # one reveal a pass; the first look has seven predictions
        pressed = False
        for radio in at.radio:
            if radio.key and "__predict__" in radio.key and radio.value is None:
                radio.set_value(radio.options[0]).run()
        for button in at.button:
            if button.key and button.key.endswith("__button") and not button.disabled:
                button.click().run()
                pressed = True
                break
        if not pressed:
            return


@pytest.fixture(scope="module")
def drawn() -> dict[str, list[go.Figure]]:
    """builder name -> the figures it returned while every page ran with its predictions revealed."""
    made: dict[str, list[go.Figure]] = {}
    saved = []
    for qualified, (module, name) in _builders().items():
        original = getattr(module, name)

        @functools.wraps(original)
        def keep(*args, __original=original, __name=qualified, **kwargs):
            fig = __original(*args, **kwargs)
            made.setdefault(__name, []).append(go.Figure(fig.to_dict()))
            return fig

        # The builder's own module, and any loaded module that imported it by name (ui.real_vectors does).
        for holder in [m for m in list(sys.modules.values()) if getattr(m, name, None) is original]:
            saved.append((holder, name, original))
            setattr(holder, name, keep)
    st.cache_resource.clear()                         # built() would hand back figures made before the wrap
    import ui.charts as charts  # ... and so would its byte-bounded figure cache: start empty

    shared_figures = charts.FIGURES
    charts.FIGURES = ByteLRU(charts.FIGURES_MAX_BYTES, charts.FIGURES_MAX_ENTRIES,
                             lambda fig: 2 * deep_size(fig.to_dict()))
    try:
        for slug in SLUGS:
            _reveal_everything(open_page(slug))
        for slug, settings in EXTRA_STATES:
            at = open_page(slug)
            for kind, key, value in settings:
                getattr(at, kind)(key=key).set_value(value).run()
            _reveal_everything(at)
        # The class poll's chart is drawn only while a live class answers: built here as ui.classroom
        # builds it, from a real lesson question, while answering and once revealed.
        import figures.classroom as classroom_figures

        check = load_lesson("sqrt_dk").checks[0]
        options = tuple(c.text for c in check.choices)
        counts = {o: n for n, o in enumerate(options)}
        right = next(i for i, c in enumerate(check.choices) if c.correct)
        classroom_figures.poll_figure(options, counts)
        classroom_figures.poll_figure(options, counts, right)
        import figures.class_votes as class_votes  # ui.classroom.polls: hidden answer, revealed, two rounds

        class_votes.votes_figure(options, (counts,))
        class_votes.votes_figure(options, (counts,), right)
        class_votes.votes_figure(options, (counts, counts), right)
        import figures.class_results as class_results  # ui.classroom.results_view: a dialog no page run opens

        class_results.share_right_figure(["Q one", "Q two"],
                                         {"First vote": [40.0, None], "After discussion": [75.0, 50.0]})
        class_results.counts_table_figure(["#", "Option", "First vote"], [[1, 1], ["Yes", "No"], [3, None]])
    finally:
        for module, name, original in saved:
            setattr(module, name, original)
        st.cache_resource.clear()
        charts.FIGURES = shared_figures
    return made


def _font_sizes(node, inside_font=False, path=""):
    """Every explicit font size in a figure dict, with where it sits."""
    if isinstance(node, dict):
        for k, v in node.items():
            if inside_font and k == "size" and isinstance(v, int | float):
                yield path + "." + k, v
            else:
                yield from _font_sizes(v, inside_font or "font" in k, f"{path}.{k}")
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            yield from _font_sizes(v, inside_font, f"{path}[{i}]")


def _used_axes(fig: go.Figure) -> set[str]:
    """Layout names ("xaxis", "yaxis2") of the cartesian axes that some trace draws on."""
    axes = set()
    for trace in fig.data:
        if trace.type in ("scatterternary", "pie", "table"):     # no cartesian axes
            continue
        x, y = getattr(trace, "xaxis", None) or "x", getattr(trace, "yaxis", None) or "y"
        axes |= {"xaxis" + x[1:], "yaxis" + y[1:]}
    return axes


def _axis_title(fig: go.Figure, name: str) -> str:
    axis = fig.layout[name]
    return (axis.title.text or "").strip() if axis is not None and axis.title is not None else ""


def test_every_public_builder_was_drawn_by_some_page(drawn):
    missing = sorted(set(_builders()) - set(drawn))
    assert not missing, f"no page drew these builders' figures, so nothing here checked them: {missing}"


def test_every_font_is_at_least_14_px_and_18_px_presenting(drawn):
    small, small_presenting = [], []
    for name, figs in drawn.items():
        for fig in figs:
            data = fig.to_dict()
            base = (data["layout"].get("font") or {}).get("size")
            if base is None or base < FONT:
                small.append((name, "layout.font", base))
            small += [(name, where, size) for where, size in _font_sizes(data) if size < FONT]
            shown = presented(fig).to_dict()
            if shown["layout"]["font"]["size"] < PRESENTER_FONT:
                small_presenting.append((name, "layout.font", shown["layout"]["font"]["size"]))
            small_presenting += [(name, w, s) for w, s in _font_sizes(shown) if s < PRESENTER_FONT]
    assert not small, small[:20]
    assert not small_presenting, small_presenting[:20]


def test_every_trace_that_hovers_has_a_hovertemplate_naming_it(drawn):
    bare = []
    for name, figs in drawn.items():
        for fig in figs:
            for trace in fig.data:
                if getattr(trace, "hoverinfo", None) == "skip":
                    continue
                template = trace.hovertemplate
                # A template that is only placeholders, e.g. "(%{x}, %{y})", names nothing.
                words = "".join(ch for ch in (template or "").replace("<extra></extra>", "")
                                .split("%{")[0] + "".join(p.split("}", 1)[-1] for p in (template or "").split("%{")[1:])
                                if ch.isalpha())
                if not template or not (words or trace.name):
                    bare.append((name, trace.type, trace.name, template))
    assert not bare, bare[:20]


def test_every_axis_a_trace_draws_on_has_a_title_other_than_value(drawn):
    untitled = []
    for name, figs in drawn.items():
        for fig in figs:
            for axis in _used_axes(fig):
                title = _axis_title(fig, axis)
                if not title or title.lower() == "value":
                    untitled.append((name, axis, title))
            if fig.layout.ternary is not None and any(t.type == "scatterternary" for t in fig.data):
                for a in ("aaxis", "baxis", "caxis"):
                    if not (fig.layout.ternary[a].title.text or "").strip():
                        untitled.append((name, f"ternary.{a}", ""))
    assert not untitled, untitled[:20]


def test_presenting_scales_every_font_and_keeps_the_shared_figure_untouched(drawn):
    fig = next(iter(drawn.values()))[0]
    before = fig.to_dict()
    shown = presented(fig)
    assert fig.to_dict() == before
    assert shown.layout.height >= before["layout"].get("height", 320)
    sizes = dict(_font_sizes(before))
    for where, size in _font_sizes(shown.to_dict()):
        if where in sizes:
            assert size >= sizes[where] * 18 / 14 - 1e-9


def _values_on(fig: go.Figure, axis: str) -> list:
    """Every x (or y) value of the traces that draw on a layout axis such as "yaxis2"."""
    letter, suffix = axis[0], axis[5:]
    out = []
    for trace in fig.data:
        values = getattr(trace, letter, None)
        if (getattr(trace, f"{letter}axis", None) or letter)[1:] != suffix or values is None:
            continue
        if isinstance(values, dict):                     # a typed array, as Plotly 6 stores NumPy's
            values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        out += [float(v) for v in values if isinstance(v, int | float | np.number) and v > 0]
    return out


def test_every_log_axis_shows_few_labels_that_do_not_crowd(drawn):
    """Plotly's own log ticks add 2 and 5 between decades (overlapping at presenter sizes) or label each of
    thirty decades: each log axis names its ticks, and the range its traces span gets at most 8 of them."""
    import math

    crowded = []
    for name, figs in drawn.items():
        for fig in figs:
            for axis in _used_axes(fig):
                spec = fig.layout[axis]
                if spec is None or spec.type != "log" or spec.tickvals is not None:
                    continue
                values = _values_on(fig, axis)
                span = math.log10(max(values) / min(values)) if values else 0.0
                if spec.dtick is None or span / float(spec.dtick) + 1 > 8:
                    crowded.append((name, axis, spec.dtick, round(span, 1)))
    assert not crowded, crowded


def test_every_axis_legend_and_colour_bar_names_its_own_font_size(drawn):
    """Streamlit's chart theme sets ticks, legends and colour bars to 12 px, and its template beats the
    figure's overall font: each must carry its own size, or the browser draws 12 px whatever FONT says."""
    bare = []
    for name, figs in drawn.items():
        for fig in figs:
            for axis in _used_axes(fig):
                if (fig.layout[axis].tickfont.size or 0) < FONT:
                    bare.append((name, axis, "tickfont"))
            if fig.layout.showlegend is not False and len(fig.data) > 1 and (fig.layout.legend.font.size or 0) < FONT:
                bare.append((name, "legend", "font"))
            for trace in fig.data:
                shown = trace.type == "heatmap" and trace.showscale is not False
                if shown and (trace.colorbar.tickfont.size or 0) < FONT:
                    bare.append((name, "heatmap colour bar", "tickfont"))
            if any(t.type == "scatterternary" for t in fig.data):
                bare += [(name, a, "tickfont") for a in ("aaxis", "baxis", "caxis")
                         if (fig.layout.ternary[a].tickfont.size or 0) < FONT]
    assert not bare, bare[:20]


def _wcag_luminance(rgb: tuple[float, float, float]) -> float:
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _wcag_contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted((_wcag_luminance(a), _wcag_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _decoded(values) -> np.ndarray:
    if isinstance(values, dict) and "bdata" in values:                  # Plotly 6's typed arrays
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    return np.asarray(values, dtype=object)


def _heatmap_cells(fig: go.Figure):
    """(cell colour as Plotly draws it, text colour, text) for every numbered heatmap cell of ``fig``. The cell
    colour comes from Plotly's own colour-scale sampler (plotly.colors), not from figures/palette."""
    import re

    from plotly.colors import sample_colorscale, unlabel_rgb

    layout = fig.to_dict()["layout"]
    for trace in fig.to_dict()["data"]:
        if trace.get("type") != "heatmap" or "texttemplate" not in trace:
            continue
        z = np.atleast_2d(_decoded(trace["z"]).astype(float))
        text = np.atleast_2d(_decoded(trace["text"]))
        finite = z[np.isfinite(z)]
        lo, hi = trace.get("zmin"), trace.get("zmax")
        if lo is None or hi is None:
            lo, hi = float(finite.min()), float(finite.max())
            if trace.get("zmid") is not None:
                half = max(hi - trace["zmid"], trace["zmid"] - lo)
                lo, hi = trace["zmid"] - half, trace["zmid"] + half
        base = (trace.get("textfont") or {}).get("color")
        for value, label in zip(z.ravel(), text.ravel(), strict=True):
            label = str(label)
            span = re.fullmatch(r'<span style="color:(#[0-9a-fA-F]{6})">(.*)</span>', label)
            colour = span.group(1) if span else base
            if np.isfinite(value):
                t = 0.5 if hi == lo else min(max((value - lo) / (hi - lo), 0.0), 1.0)
                cell = unlabel_rgb(sample_colorscale(trace["colorscale"], [t], colortype="rgb")[0])
            else:
                cell = layout.get("plot_bgcolor", "")
                cell = unlabel_rgb(cell) if cell.startswith("rgb(") else cell
            yield cell, colour, span.group(2) if span else label


def test_every_heatmap_cell_number_is_at_least_4_5_to_1_against_its_own_cell(drawn):
    """In both themes: each number's colour is set in the figure (black, or white where it reads better),
    so the theme never picks it, and a gap cell shows an opaque plot background, the same in both themes."""
    from plotly.colors import hex_to_rgb

    weak, cells = [], 0
    for name, figs in drawn.items():
        for fig in figs:
            for cell, colour, label in _heatmap_cells(fig):
                cells += 1
                if not colour or not str(colour).startswith("#"):
                    weak.append((name, label, "text colour left to the theme", colour))
                    continue
                if isinstance(cell, str):
                    if not cell.startswith("#"):
                        weak.append((name, label, "gap cell on a transparent background", cell))
                        continue
                    cell = hex_to_rgb(cell)
                ratio = _wcag_contrast(tuple(cell), hex_to_rgb(colour))
                if ratio < 4.5:
                    weak.append((name, label, colour, cell, round(ratio, 2)))
    assert cells > 100, "the pages drew too few numbered cells for this to test anything"
    assert not weak, weak[:20]


def test_heatmap_cells_read_on_every_colour_of_both_scales():
    """A sweep of each scale from end to end, with and without a zmid, through the shared figure()."""
    from figures import palette
    from figures._layout import figure

    values = np.linspace(-1.0, 3.0, 401).reshape(1, -1)
    figs = [figure([{"type": "heatmap", "z": values, "text": np.round(values, 2), "texttemplate": "%{text}",
                     "colorscale": scale, **extra}], "sweep")
            for scale in (palette.WEIGHT_SCALE, palette.DIVERGING_SCALE) for extra in ({}, {"zmid": 0.0})]
    test_every_heatmap_cell_number_is_at_least_4_5_to_1_against_its_own_cell({"sweep": figs})


# Plotly's placeholders (%{x:.3f}) and markup tags say nothing to a reader; an underscore between letters does.
_PLACEHOLDER = re.compile(r"%\{[^}]*\}|<[^>]*>")
_RAW_SUBSCRIPT = re.compile(r"[A-Za-z]_[A-Za-z{0-9]")
# Fields that hold no words a reader sees (enumerations, formats, colours, ids).
_WORDLESS = ("type", "mode", "hoverinfo", "textposition", "xref", "yref", "xanchor", "yanchor", "anchor", "side",
             "tickformat", "hoverformat", "family", "color", "bgcolor", "fillcolor", "colorscale", "dash",
             "symbol", "fill", "ticks", "tickmode", "autorange", "constrain", "matches", "scaleanchor", "uid",
             "legendgroup", "hovermode", "dragmode", "barmode", "shape", "valign", "align", "sizemode", "layer")


def _words(node, path=""):
    """Every string a chart draws for a reader, with where it sits (the template's own strings excepted)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in _WORDLESS and k != "template" and not k.endswith("src"):
                yield from _words(v, f"{path}.{k}")
    elif isinstance(node, list | tuple):
        for v in node:
            yield from _words(v, path)
    elif isinstance(node, str):
        yield path, node


def test_no_chart_shows_a_raw_underscore_between_letters(drawn):
    """W_Q or d_model drawn as typed: a chart writes W<sub>Q</sub> and d<sub>model</sub> (Plotly shows no
    LaTeX inside Streamlit)."""
    raw = [(name, where, text) for name, figs in drawn.items() for fig in figs
           for where, text in _words(fig.to_dict())
           if _RAW_SUBSCRIPT.search(_PLACEHOLDER.sub(" ", text))]
    assert not raw, raw[:20]

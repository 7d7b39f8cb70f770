"""Where a labelled point's word goes: a Plotly text position per point, chosen so that no label meets another,
covers a point or leaves the plot area, at every size the chart is drawn at.

Plotly puts a point's text at a fixed offset in px from its marker, so two labels' boxes move apart or together
only along x, and only in proportion to the plot's width, when a chart is drawn wider or narrower (its height
is fixed by the figure). A gap that is open at the narrowest and the widest width is open at every width in
between (it is linear in the width), so checking the two ends (each View) is enough.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from ._layout import FONT, PRESENTER_SCALE

# Plotly's text positions, in the order a label tries them when several are equally clear.
POSITIONS = ("top center", "bottom center", "middle right", "middle left",
             "top right", "top left", "bottom right", "bottom left")
CHAR_EM, BOLD_EM = 0.56, 0.62           # a character's width in em, with room to spare (the theme's sans-serif)
ASCENT, DESCENT = 1.0, 0.28             # a text box's extent above and below its baseline, in em
EDGE = 3                                # px a label keeps from the plot area's edge
# Up to this many placings (8 places for up to 4 labels), every one is scored and the best taken.
EVERY_PLACING = 8 ** 4
GAP = 1.0                               # px the search keeps around each label beyond its estimated box


@dataclass(frozen=True)
class View:
    """One size the plot area is drawn at, in px, and the labels' font size there."""

    width: float
    height: float
    font: float = FONT


def views(widths: tuple[float, float], height: float, presenter: tuple[float, float] | None = None) -> tuple[View, ...]:
    """The narrowest and widest plot area at the common font, and (if given) presenter mode's widths at its
    larger font, the figure drawn 1.4 times taller (figures._layout.presented)."""
    out = [View(w, height) for w in widths]
    if presenter:
        out += [View(w, height * 1.4, round(FONT * PRESENTER_SCALE)) for w in presenter]
    return tuple(out)


def text_width(text: str, font: float) -> float:
    """About how wide ``text`` draws at ``font`` px, in px; bold (<b>…</b>) is wider."""
    plain = re.sub(r"<[^>]+>", "", text)
    return len(plain) * font * (BOLD_EM if "<b>" in text else CHAR_EM) + 2


def _boxes(px: np.ndarray, py: np.ndarray, widths: np.ndarray, radius: np.ndarray, font: float) -> np.ndarray:
    """[n, len(POSITIONS), 4] label boxes (left, top, right, bottom) in screen px (y down), as Plotly draws
    them (drawing.textPointPosition: a marker of radius m pushes its text out by m / 0.8 + 1)."""
    r = np.where(radius > 0, radius / 0.8 + 1, 0.0)
    out = np.empty((len(px), len(POSITIONS), 4))
    for k, place in enumerate(POSITIONS):
        v, h = place.split()
        left = {"left": px - r - widths, "right": px + r, "center": px - widths / 2}[h]
        baseline = {"top": py - r - 0.25 * font, "middle": py + 0.25 * font, "bottom": py + r + 0.75 * font}[v]
        out[:, k] = np.stack([left, baseline - ASCENT * font, left + widths, baseline + DESCENT * font], axis=1)
    return out


def _area(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Overlap area of boxes a and b (broadcast over leading axes)."""
    w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _geometry(x, y, texts, sizes, x_range, y_range, view: View) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate label box [n, k, 4] and every marker's box [n, 4] in one view."""
    px = (np.asarray(x, float) - x_range[0]) / (x_range[1] - x_range[0]) * view.width
    py = (y_range[1] - np.asarray(y, float)) / (y_range[1] - y_range[0]) * view.height
    radius = np.asarray(sizes, float) / 2                # presenter mode scales the fonts, not the markers
    widths = np.array([text_width(t, view.font) for t in texts])
    markers = np.stack([px - radius, py - radius, px + radius, py + radius], axis=1)
    return _boxes(px, py, widths, radius, view.font), markers


def _fixed_cost(labels: np.ndarray, markers: np.ndarray, view: View) -> np.ndarray:
    """[n, k]: how much of each candidate covers another point or leaves the plot area (px²)."""
    n = len(markers)
    cover = _area(labels[:, :, None, :], markers[None, None, :, :])          # [n, k, n]
    cover[np.arange(n), :, np.arange(n)] = 0                                 # its own point is not covered
    inner = np.array([EDGE, EDGE, view.width - EDGE, view.height - EDGE])
    height = labels[..., 3] - labels[..., 1]
    outside = (labels[..., 2] - labels[..., 0]) * height - _area(labels, inner)
    return cover.sum(axis=2) + 4 * outside


def place_labels(x, y, texts: list[str], sizes, x_range, y_range, views: tuple[View, ...],
                 optional: tuple[int, ...] = ()) -> list[str | None]:
    """A Plotly textposition per point (x, y), its marker ``sizes`` px across, on axes with these ranges.

    Up to four labels, every placing is scored and the best taken. More: greedy, most crowded point first, then
    passes in which each label moves to its best place given all the others, until none moves, then pairs of
    labels that still meet moved together: deterministic, and quick for the tens of labels a map carries. Where
    no place is clear, the one that overlaps least; but a label listed in ``optional`` (a point the legend
    names already) is left off (None) rather than overlap.
    """
    places, cost = _place(x, y, texts, sizes, x_range, y_range, views)
    dropped = [i for i in optional if cost[i] > 1]
    if dropped:
        keep = [j for j in range(len(texts)) if j not in dropped]
        kept, _ = _place(*([v[j] for j in keep] for v in (x, y, texts, sizes)), x_range, y_range, views)
        places = [None] * len(texts)
        for j, place in zip(keep, kept, strict=True):
            places[j] = place
    return places


def _place(x, y, texts: list[str], sizes, x_range, y_range, views: tuple[View, ...],
           passes: int = 12) -> tuple[list[str], np.ndarray]:
    """Every label placed (see place_labels), and what each still overlaps (px², summed over the views)."""
    n = len(texts)
    if n == 0:
        return [], np.zeros(0)
    geo = [_geometry(x, y, texts, sizes, x_range, y_range, v) for v in views]
    fixed = sum(_fixed_cost(labels, markers, v) for (labels, markers), v in zip(geo, views, strict=True))
    fixed = fixed + np.arange(len(POSITIONS)) * 1e-6                          # on a tie, the earlier position
    boxes = np.stack([labels for labels, _ in geo], axis=2) + np.array([-GAP, -GAP, GAP, GAP])   # [n, k, views, 4]
    # pair[i, a, j, b]: how much label i at place a meets label j at place b, over every view (px²).
    pair = 3 * _area(boxes[:, :, None, None], boxes[None, None]).sum(axis=-1)
    pair[np.arange(n), :, np.arange(n), :] = 0
    chosen = _best_of_all(fixed, pair) if len(POSITIONS) ** n <= EVERY_PLACING else _search(fixed, pair, geo, passes)
    every = np.arange(n)
    left = fixed[every, chosen] + pair[every, chosen][:, every, chosen].sum(axis=1)
    return [POSITIONS[k] for k in chosen], left


def _search(fixed: np.ndarray, pair: np.ndarray, geo: list, passes: int) -> np.ndarray:
    """The place of each label, found greedily, most crowded point first, then improved label by label and
    pair by pair (see place_labels)."""
    n = fixed.shape[0]
    centres = np.stack([(m[:, :2] + m[:, 2:]) / 2 for _, m in geo], axis=1)   # [n, views, 2]
    gaps = np.abs(centres[:, None] - centres[None]).sum(axis=(2, 3))
    np.fill_diagonal(gaps, np.inf)
    order = np.argsort(gaps.min(axis=1), kind="stable")
    chosen = np.zeros(n, dtype=int)
    placed = np.zeros(n, dtype=bool)
    for i in order:                                       # greedy: against the labels placed so far
        cost = fixed[i] + pair[i, :, placed, chosen[placed]].sum(axis=0)
        chosen[i], placed[i] = int(np.argmin(cost)), True
    every = np.arange(n)
    for _ in range(passes):                               # then each against all the others, until none moves
        moved = False
        for i in order:
            pick = int(np.argmin(fixed[i] + pair[i, :, every, chosen].sum(axis=0)))
            moved |= pick != chosen[i]
            chosen[i] = pick
        if not moved:
            break
    _untangle(fixed, pair, chosen)
    return chosen


def _best_of_all(fixed: np.ndarray, pair: np.ndarray) -> np.ndarray:
    """Every placing of a few labels scored whole: the one that overlaps least (on a tie, the earliest). The
    greedy search and its repairs can miss a clear placing that exists, as with three labels on one point."""
    n, k = fixed.shape
    combos = np.array(list(itertools.product(range(k), repeat=n)))                # [k^n, n]
    total = fixed[np.arange(n), combos].sum(axis=1)
    for i, j in itertools.permutations(range(n), 2):
        total += pair[i, combos[:, i], j, combos[:, j]]
    return combos[int(np.argmin(total))]


def _untangle(fixed: np.ndarray, pair: np.ndarray, chosen: np.ndarray, rounds: int = 6) -> None:
    """Where two labels still meet, try every pair of places for the two together (one label alone may have
    no better place while the other stays put): in place, keeping any move that lowers the total."""
    n, every = len(chosen), np.arange(len(chosen))
    for _ in range(rounds):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                if pair[i, chosen[i], j, chosen[j]] <= 0:
                    continue
                rest = np.ones(n, dtype=bool)
                rest[[i, j]] = False
                own_i = fixed[i] + pair[i, :, every[rest], chosen[rest]].sum(axis=0)      # [k]
                own_j = fixed[j] + pair[j, :, every[rest], chosen[rest]].sum(axis=0)
                total = own_i[:, None] + own_j[None, :] + pair[i, :, j, :]              # [k, k]
                a, b = np.unravel_index(int(np.argmin(total)), total.shape)
                if total[a, b] < total[chosen[i], chosen[j]] - 1e-9:
                    chosen[i], chosen[j], moved = a, b, True
        if not moved:
            return


def clashes(x, y, texts: list[str], sizes, x_range, y_range, views: tuple[View, ...],
            places: list[str], slack: float = 1.0, point_slack: float = 3.0) -> list[str]:
    """What is wrong with these places in any view: each pair of labels that meet or a label that crosses the
    plot area's edge, by more than ``slack`` px, and each label that covers more than ``point_slack`` px of
    another point (the text box is an estimate, a little wider than the drawn text). Empty when all is clear."""
    out = []
    ks = [POSITIONS.index(p) for p in places]
    for v in views:
        labels, markers = _geometry(x, y, texts, sizes, x_range, y_range, v)
        mine = labels[np.arange(len(texts)), ks]                              # [n, 4]
        for i in range(len(texts)):
            a = mine[i] + [slack, slack, -slack, -slack]
            if a[0] < 0 or a[1] < 0 or a[2] > v.width or a[3] > v.height:
                out.append(f"{texts[i]!r} leaves the plot at {v}")
            covers = mine[i] + [point_slack, point_slack, -point_slack, -point_slack]
            for j in range(len(texts)):
                if j != i and _area(covers, markers[j]) > 0:
                    out.append(f"{texts[i]!r} covers the point of {texts[j]!r} at {v}")
                if j > i and _area(a, mine[j]) > 0:
                    out.append(f"{texts[i]!r} meets {texts[j]!r} at {v}")
    return out

"""One colour-blind-safe palette (Okabe–Ito), used the same way on every page.

Query, key and value keep their colours everywhere; the four formula stages keep theirs, and the
LaTeX formula on the formula page is coloured with the same hex codes.
"""

from itertools import pairwise

QUERY = "#0072B2"      # blue
KEY = "#E69F00"        # orange
VALUE = "#009E73"      # bluish green
SCORES = "#D55E00"     # vermillion: Q Kᵀ
SCALED = "#CC79A7"     # reddish purple: ÷ √d_k
WEIGHTS = "#56B4E9"    # sky blue: softmax
OUTPUT = VALUE         # the output is made of values, so it wears their colour
NEUTRAL = "#7F7F7F"    # grey: references, static vectors, guides

# For coloured text (the LaTeX formula): sky blue and orange are too light on white (2.3:1 each), so text
# takes a deeper shade: "softmax" 4.8:1 on white (the dark theme's CSS in ui/present.py puts it back to sky
# blue, 8.2:1 on #0E1117), the small ⊤ at least 3:1 on both.
TEXT_SHADES = {WEIGHTS: "#1F78B4", KEY: "#B07A00"}

STAGE_COLOURS = {"scores": SCORES, "scaled": SCALED, "weights": WEIGHTS, "output": OUTPUT}

# Sequential scale for heatmaps of weights: light to sky blue to deep blue, legible in both themes.
WEIGHT_SCALE = [[0.0, "#f7fbff"], [0.5, WEIGHTS], [1.0, "#08306b"]]
# Diverging scale for signed scores.
DIVERGING_SCALE = [[0.0, SCORES], [0.5, "#f7f7f7"], [1.0, QUERY]]


# --- Text on a coloured cell: WCAG 2 contrast, for a heatmap's cell numbers ---

BLACK, WHITE = "#000000", "#ffffff"


def rgb(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' or 'rgb(r, g, b)' as three channels from 0 to 255."""
    colour = colour.strip()
    if colour.startswith("#"):
        return tuple(float(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    return tuple(float(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance, 0 (black) to 1 (white)."""
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb(colour)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``: one of them is always at least 4.58:1 (Plotly's
    own choice, #444 or white by brightness, fell to about 3:1 on the mid-blue of WEIGHT_SCALE)."""
    return BLACK if contrast(colour, BLACK) >= contrast(colour, WHITE) else WHITE


def scale_colour(scale: list, t: float) -> str:
    """The colour of ``scale`` ([[stop, '#rrggbb'], ...], stops from 0 to 1) at ``t``, mixed channel by channel
    between its two neighbouring stops, as Plotly draws a heatmap cell."""
    t = min(max(float(t), 0.0), 1.0)
    for (s0, c0), (s1, c1) in pairwise(scale):
        if t <= s1:
            f = 0.0 if s1 == s0 else (t - s0) / (s1 - s0)
            mixed = [a + f * (b - a) for a, b in zip(rgb(c0), rgb(c1), strict=True)]
            return "#" + "".join(f"{round(v):02x}" for v in mixed)
    return scale[-1][1]

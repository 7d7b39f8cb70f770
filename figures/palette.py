"""One colour-blind-safe palette (Okabe–Ito), used the same way on every page.

Query, key and value keep their colours everywhere; the four formula stages keep theirs, and the
LaTeX formula on the formula page is coloured with the same hex codes.
"""

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

"""The attention lesson's maths: pure NumPy, no Streamlit, no Plotly.

Functions are named after the formulas they compute, take shapes documented in their docstrings,
and return every intermediate so that a chart and the sentence under it share one number.
"""

from ._validate import is_on_simplex
from .attention import (
    AttentionTrace,
    convex_combination,
    linear_combination,
    output_with_rounded_weights,
    scaled_dot_product_attention,
)
from .context import ContextTrace, SenseExperiment, contextualize, distance_gap, sense_experiment
from .geometry import BilinearScores, Projection, bilinear_scores, centroid, interaction_matrix, project
from .hull import Blend, blend, convex_hull_2d, in_convex_hull, simplex_from_free
from .lookup import SoftLookup, hard_lookup, self_alignment, soft_lookup
from .parsing import format_matrix, parse_matrix, parse_vector
from .rnn import TinyRNN, gradient_bound, input_influence, path_lengths, random_rnn, rnn_forward
from .sampling import dot_product_samples, random_score_rows
from .softmax import (
    entropy,
    masked_softmax,
    sigmoid,
    sigmoid_slope,
    softmax,
    softmax_gradient_norm,
    softmax_jacobian,
)
from .words import clean_label, parse_labels

__all__ = [
    "AttentionTrace", "BilinearScores", "Projection", "TinyRNN",
    "bilinear_scores", "centroid", "convex_combination", "dot_product_samples", "entropy",
    "format_matrix", "gradient_bound", "input_influence", "interaction_matrix", "is_on_simplex",
    "linear_combination", "masked_softmax", "output_with_rounded_weights", "parse_matrix", "parse_vector",
    "path_lengths", "project", "random_rnn", "random_score_rows", "rnn_forward", "scaled_dot_product_attention",
    "sigmoid", "sigmoid_slope", "softmax", "softmax_gradient_norm", "softmax_jacobian",
]

# Lesson pages: polysemy, convex blending, queries/keys/values.
__all__ += [
    "Blend", "ContextTrace", "SenseExperiment", "SoftLookup", "blend", "clean_label", "contextualize",
    "convex_hull_2d", "distance_gap", "hard_lookup", "in_convex_hull", "parse_labels", "self_alignment",
    "sense_experiment", "simplex_from_free", "soft_lookup",
]

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
from .bert import load_model
from .geometry import BilinearScores, Projection, bilinear_scores, centroid, interaction_matrix, project
from .glove import load_glove, pca_2d
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

__all__ = [
    "AttentionTrace", "BilinearScores", "Projection", "TinyRNN",
    "bilinear_scores", "centroid", "convex_combination", "dot_product_samples", "entropy",
    "format_matrix", "gradient_bound", "input_influence", "interaction_matrix", "is_on_simplex",
    "linear_combination", "load_glove", "load_model", "masked_softmax", "output_with_rounded_weights",
    "parse_matrix", "parse_vector", "path_lengths", "pca_2d", "project", "random_rnn", "random_score_rows",
    "rnn_forward", "scaled_dot_product_attention",
    "sigmoid", "sigmoid_slope", "softmax", "softmax_gradient_norm", "softmax_jacobian",
]

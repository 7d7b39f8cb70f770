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
from .geometry import BilinearScores, Projection, bilinear_scores, centroid, interaction_matrix, project
from .learned import random_projections, rank_sweep, singular_values, strongest_target, token_table
from .long_range import AttentionHead, attention_input_influence, last_output, random_head, sequential_steps
from .parsing import format_matrix, parse_matrix, parse_vector
from .plane import angle_between, from_polar, tidy_zero
from .rnn import TinyRNN, gradient_bound, input_influence, path_lengths, random_rnn, rnn_forward
from .sampling import dot_product_prefix_sums, dot_product_samples, random_score_rows
from .scaling import (
    Histogram,
    SoftmaxSweep,
    histogram_density,
    max_eigenvalue_of_softmax_jacobian,
    normal_pdf,
    row_summary,
    softmax_sweep,
)
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
    "AttentionHead", "AttentionTrace", "BilinearScores", "Histogram", "Projection", "SoftmaxSweep", "TinyRNN",
    "angle_between", "attention_input_influence", "bilinear_scores", "centroid", "convex_combination",
    "dot_product_prefix_sums", "dot_product_samples", "entropy", "format_matrix", "from_polar", "gradient_bound",
    "histogram_density", "input_influence", "interaction_matrix", "is_on_simplex", "last_output",
    "linear_combination", "masked_softmax", "max_eigenvalue_of_softmax_jacobian", "normal_pdf",
    "output_with_rounded_weights", "parse_matrix", "parse_vector", "path_lengths", "project", "random_head",
    "random_projections", "random_rnn", "random_score_rows", "rank_sweep", "rnn_forward", "row_summary",
    "scaled_dot_product_attention", "sequential_steps", "sigmoid", "sigmoid_slope", "singular_values", "softmax",
    "softmax_gradient_norm", "softmax_jacobian", "softmax_sweep", "strongest_target", "tidy_zero", "token_table",
]

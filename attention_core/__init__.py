"""The attention lesson's maths: pure NumPy, no Streamlit, no Plotly.

Functions are named after the formulas they compute, take shapes documented in their docstrings,
and return every intermediate so that a chart and the sentence under it share one number.

Everything imported here is the public face (ruff's F401 is off for this file: these are re-exports).
"""

from ._validate import is_on_simplex, read_only
from .attention import (
    AttentionTrace,
    convex_combination,
    linear_combination,
    output_with_rounded_weights,
    scaled_dot_product_attention,
)
from .bert import BlockParts, LayerStages, StagedRun, encoder_layer_stages, load_model
from .convex_blending import Blend, blend, convex_hull_2d, in_convex_hull, simplex_from_free
from .first_look import FirstPass, SameWord, first_pass, same_word, strongest_head
from .flash_attention import (
    A100_SXM_40GB,
    GPU,
    FlashStep,
    FlashTrace,
    Roofline,
    Traffic,
    attention_flops,
    fits_in_sram,
    flash_attention,
    flash_attention_traffic,
    roofline,
    scores_seen,
    standard_attention_traffic,
)
from .geometry import BilinearScores, Projection, bilinear_scores, centroid, interaction_matrix, project
from .glove import load_glove, pca_2d
from .kv_cache import (
    GPT2_SMALL,
    LLAMA2_7B,
    LLAMA2_7B_GQA,
    MODEL_SHAPES,
    DecoderWeights,
    DecodeStep,
    KVCache,
    LayerStep,
    ModelShape,
    UncachedRun,
    cache_bytes_per_token,
    cache_outgrows_weights,
    decode_all_uncached,
    decode_cached,
    decode_step,
    decode_token_flops,
    empty_cache,
    kv_cache_bytes,
    random_decoder,
    token_input,
)
from .lab import (
    LAYER_LABELS,
    Word,
    attention_map,
    contextual_vector,
    cosine,
    cosine_by_layer,
    find_word,
    layer_vectors,
    lookup_vector,
    normalise_word,
    rank_by_cosine,
    sense_means,
    static_map,
    top_keys,
    word_pieces,
    words_of,
)
from .learned import random_projections, rank_sweep, singular_values, strongest_target, token_table
from .lstm import (
    LSTMTrace,
    RecallCurve,
    TinyLSTM,
    additive_state,
    best_state,
    lstm_forward,
    lstm_input_influence,
    lstm_log10_input_influence,
    random_lstm,
    random_pairs,
    recall_by_attention,
    recall_curve,
    recall_from_state,
)
from .masks import (
    CrossAttention,
    causal_mask,
    cross_attention,
    padding_mask,
    prompt_words,
    renormalised_rows,
    scene_patches,
)
from .multi_head import (
    AttentionCost,
    HeadRoles,
    MultiHeadTrace,
    attention_cost,
    head_columns,
    head_roles,
    multi_head_attention,
)
from .parsing import format_matrix, parse_matrix
from .polysemy import ContextTrace, SenseExperiment, contextualize, sense_experiment
from .positional_encoding import (
    Equivariance,
    Rotary,
    RotaryPair,
    ShuffledAttention,
    cosine_similarities,
    encoder_output,
    frequencies,
    permutation_equivariance,
    random_head_weights,
    rotary,
    rotary_pair,
    rotate_pairs,
    rotation_angles,
    shuffled_order,
    shuffled_self_attention,
    similarity_by_offset,
    similarity_spread_by_offset,
    sinusoidal_positions,
    word_blocks_order,
)
from .projection import angle_between, from_polar, tidy_zero
from .queries_keys_values import SoftLookup, hard_lookup, self_alignment, soft_lookup
from .rnn import (
    ChainFactors,
    TinyRNN,
    chain_factors,
    gradient_bound,
    input_influence,
    log10_gradient_bound,
    log10_input_influence,
    path_lengths,
    random_rnn,
    rnn_forward,
)
from .rnn_vs_attention import AttentionHead, attention_input_influence, last_output, random_head, sequential_steps
from .softmax import (
    entropy,
    masked_softmax,
    sigmoid,
    sigmoid_slope,
    softmax,
    softmax_gradient_norm,
    softmax_jacobian,
)
from .sqrt_dk import (
    Histogram,
    SoftmaxSweep,
    dot_product_excess_kurtosis,
    dot_product_prefix_sums,
    dot_product_samples,
    excess_kurtosis,
    histogram_density,
    max_eigenvalue_of_softmax_jacobian,
    normal_pdf,
    random_score_rows,
    row_summary,
    softmax_sweep,
)
from .transformer_block import (
    alikeness_by_layer,
    compare_alikeness,
    cosine_to_others,
    first_layer_at,
    mean_pairwise_cosine,
    token_norms,
    unit_rows,
)
from .words import clean_label, parse_labels

"""The FlashAttention page's cached computations: one tiled run against the plain one, and memory traffic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import attention_core as core
from ui.lru import shared

D_K, D_V = 4, 3                                           # the stepping example's query/key and value sizes
LENGTHS = (256, 512, 1024, 2048, 4096, 8192, 16384)
BLOCKS = (16, 32, 64, 128, 256, 512, 1024)


@dataclass(frozen=True)
class Run:
    """Random Q, K, V for T tokens attended tile by tile, against the plain answer."""

    trace: core.FlashTrace
    m: np.ndarray                       # [n_blocks, T] each query's running maximum after each block
    l: np.ndarray                       # [n_blocks, T] its running denominator
    rescale: np.ndarray                 # [n_blocks, T] the factor the old sums were rescaled by
    delta: float                        # max |tiled − plain| at this block size
    delta_all: float                    # the same, over every block size B = 1 … T
    largest: float                      # the largest |plain output| entry, for scale


@shared(max_entries=64)
def flash_run(length: int, block: int, spread: float, causal: bool, seed: int) -> Run:
    """Random Q, K, V for T tokens, attended tile by tile and plainly: the trace, each block's m, ℓ and rescale
    factor ([n_blocks, T] each), and the largest |tiled − plain| at this block size and over B = 1 … T."""
    rng = np.random.default_rng([seed, length])
    Q, K = (rng.standard_normal((length, D_K)) * spread for _ in range(2))
    V = rng.standard_normal((length, D_V))
    mask = core.causal_mask(length, length) if causal else None
    plain = core.scaled_dot_product_attention(Q, K, V, mask=mask).output
    trace = core.flash_attention(Q, K, V, block, causal=causal)
    delta_all = max(float(np.abs(core.flash_attention(Q, K, V, b, causal=causal).output - plain).max())
                    for b in range(1, length + 1))
    return Run(trace=trace, m=np.array([s.m_new for s in trace.steps]), l=np.array([s.l for s in trace.steps]),
               rescale=np.array([s.rescale for s in trace.steps]),
               delta=float(np.abs(trace.output - plain).max()), delta_all=delta_all,
               largest=float(np.abs(plain).max()))


@dataclass(frozen=True)
class Traffic:
    """Main-memory traffic of one head, plain and tiled, at (N, d, B_c) and along the page's sweeps."""

    standard: core.Traffic
    tiled: core.Traffic
    passes: int                         # ⌈N / B_c⌉ passes over K and V
    standard_curve: np.ndarray          # [len(LENGTHS)] plain bytes against N
    tiled_curve: np.ndarray             # [len(LENGTHS)] tiled bytes against N
    block_curve: np.ndarray             # [len(BLOCKS)] tiled bytes against B_c
    fits: np.ndarray                    # [len(BLOCKS)] bool: the block fits on chip
    roof_standard: core.Roofline
    roof_tiled: core.Roofline


@shared(max_entries=64)
def flash_traffic(n: int, d: int, block: int) -> Traffic:
    """Main-memory traffic of one head (Dao et al. 2022), plain and tiled, at (N, d, B_c), against N and
    against B_c, with the roofline of each on the page's GPU."""
    gpu = core.A100_SXM_40GB
    standard, tiled = core.standard_attention_traffic(n, d), core.flash_attention_traffic(n, d, block)
    flops = core.attention_flops(n, d)
    return Traffic(
        standard=standard, tiled=tiled, passes=-(-n // block),
        standard_curve=np.array([core.standard_attention_traffic(m, d).bytes for m in LENGTHS], float),
        tiled_curve=np.array([core.flash_attention_traffic(m, d, block).bytes for m in LENGTHS], float),
        block_curve=np.array([core.flash_attention_traffic(n, d, b).bytes for b in BLOCKS], float),
        fits=np.array([core.fits_in_sram(b, d, gpu.sram_elements()) for b in BLOCKS]),
        roof_standard=core.roofline(flops, standard.bytes, gpu.peak_flops, gpu.bandwidth),
        roof_tiled=core.roofline(flops, tiled.bytes, gpu.peak_flops, gpu.bandwidth),
    )

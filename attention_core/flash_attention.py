"""Attention computed tile by tile (the online softmax of FlashAttention), and the memory traffic it saves.

For each query, walk the keys and values in blocks of B. Keep a running max m, a running sum ℓ of
e^(s − m) and a running output õ = Σ e^(s − m) v. When a block raises the max from m_old to m_new,
multiply ℓ and õ by e^(m_old − m_new) first, so every term is measured against the same max. At the
end, output = õ / ℓ: exactly softmax(s) V, without ever holding a whole row, let alone the T × T matrix.

The traffic model counts the elements Algorithm 0 (standard attention) and Algorithm 1 (FlashAttention)
of Dao et al. (2022) read from and write to the GPU's main memory (HBM): standard Θ(Nd + N²),
FlashAttention Θ(N²d²/M) for on-chip memory (SRAM) of M elements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, read_only
from .masks import causal_mask


@dataclass(frozen=True)
class FlashStep:
    """The state after one block of keys, for every query.

    start, stop: the block's key indices [start, stop). scores: this block's scaled scores [n_q, B]
    (−inf where the causal mask blocks a key). block_max: [n_q]; m_old, m_new: [n_q];
    rescale = e^(m_old − m_new): [n_q] (1 when the max did not move); l: [n_q];
    unnormalised: õ after the block [n_q, d_v]; partial = õ / ℓ, the output over the keys seen so far.
    """

    start: int
    stop: int
    scores: np.ndarray
    block_max: np.ndarray
    m_old: np.ndarray
    m_new: np.ndarray
    rescale: np.ndarray
    l: np.ndarray
    unnormalised: np.ndarray
    partial: np.ndarray


@dataclass(frozen=True)
class FlashTrace:
    """Every step of tiled attention. output: [n_q, d_v]; m, l: [n_q] at the end; steps: one per block."""

    output: np.ndarray
    m: np.ndarray
    l: np.ndarray
    steps: tuple[FlashStep, ...]
    block_size: int
    causal: bool
    scale_factor: float

    @property
    def n_blocks(self) -> int:
        return len(self.steps)


def _ro(a: np.ndarray) -> np.ndarray:
    return read_only(np.array(a, dtype=np.float64))


def flash_attention(Q: object, K: object, V: object, block_size: int, causal: bool = False) -> FlashTrace:
    """softmax(Q Kᵀ / √d_k) V, one block of B keys at a time (the online softmax).

    Q: [n_q, d_k], K: [n_k, d_k], V: [n_k, d_v]; block_size B ≥ 1 (the last block may be shorter).
    causal: query i sees keys j ≤ i (queries aligned with the last keys; needs n_q ≤ n_k).
    Only one [n_q, B] block of scores exists at a time.
    """
    Q = as_matrix(Q, "Q")
    K = as_matrix(K, "K", cols=Q.shape[1])
    V = as_matrix(V, "V", rows=K.shape[0])
    B = int(block_size)
    if B != block_size or B < 1:
        raise ValueError(f"block size must be a whole number ≥ 1, got {block_size}.")
    n_q, n_k = Q.shape[0], K.shape[0]
    if causal and n_q > n_k:
        raise ValueError(f"a causal mask needs no more queries than keys, got {n_q} queries and {n_k} keys.")
    root = float(np.sqrt(K.shape[1]))
    m = np.full(n_q, -np.inf)                              # running max, per query
    l = np.zeros(n_q)                                      # running Σ e^(s − m)
    acc = np.zeros((n_q, V.shape[1]))                      # running Σ e^(s − m) v: [n_q, d_v]
    steps = []
    for start in range(0, n_k, B):
        stop = min(start + B, n_k)
        s = Q @ K[start:stop].T / root                     # [n_q, B]: this block's scores only
        if causal:
            s = np.where(causal_mask(n_q, n_k)[:, start:stop], s, -np.inf)
        block_max = s.max(axis=1)                          # [n_q]; −inf where the whole block is masked
        m_new = np.maximum(m, block_max)
        seen = np.isfinite(m_new)                          # rows with at least one visible key so far
        with np.errstate(invalid="ignore", over="ignore"):
            rescale = np.where(seen, np.exp(np.where(seen, m - m_new, 0.0)), 1.0)     # e^(m_old − m_new) ≤ 1
            p = np.where(seen[:, None], np.exp(s - np.where(seen, m_new, 0.0)[:, None]), 0.0)   # [n_q, B]
        l_new = rescale * l + p.sum(axis=1)
        acc = rescale[:, None] * acc + p @ V[start:stop]   # [n_q, d_v]
        with np.errstate(invalid="ignore", divide="ignore"):
            partial = np.where(l_new[:, None] > 0, acc / np.where(l_new > 0, l_new, 1.0)[:, None], 0.0)
        steps.append(FlashStep(start=start, stop=stop, scores=_ro(s), block_max=_ro(block_max), m_old=_ro(m),
                               m_new=_ro(m_new), rescale=_ro(rescale), l=_ro(l_new), unnormalised=_ro(acc),
                               partial=_ro(partial)))
        m, l = m_new, l_new
    if np.any(l == 0):
        raise ValueError("every key is blocked for some query; its softmax is undefined.")
    return FlashTrace(output=_ro(acc / l[:, None]), m=_ro(m), l=_ro(l), steps=tuple(steps), block_size=B,
                      causal=bool(causal), scale_factor=root)


# ── memory traffic (Dao et al. 2022, Algorithms 0 and 1, forward pass of one head) ──────────────────────────────


@dataclass(frozen=True)
class Traffic:
    """Elements read from and written to main memory (HBM), and the bytes they make at ``bytes_per`` each."""

    reads: int
    writes: int
    bytes_per: int

    @property
    def elements(self) -> int:
        return self.reads + self.writes

    @property
    def bytes(self) -> int:
        return self.elements * self.bytes_per


def _check_sizes(n: int, d: int) -> None:
    if int(n) != n or int(d) != d or n < 1 or d < 1:
        raise ValueError(f"N and d must be whole numbers ≥ 1, got N = {n}, d = {d}.")


def standard_attention_traffic(n: int, d: int, bytes_per: int = 2) -> Traffic:
    """Algorithm 0: read Q, K; write S = QKᵀ (N²); read S, write P = softmax(S) (N² each); read P, V; write O.

    Reads 3Nd + 2N², writes Nd + 2N²: Θ(Nd + N²).
    """
    _check_sizes(n, d)
    n, d = int(n), int(d)
    return Traffic(reads=3 * n * d + 2 * n * n, writes=n * d + 2 * n * n, bytes_per=bytes_per)


def flash_attention_traffic(n: int, d: int, block_size: int, bytes_per: int = 2) -> Traffic:
    """Algorithm 1 with key/value blocks of B_c = block_size and query blocks of B_r = min(B_c, d).

    Initialise O, ℓ, m in HBM (Nd + 2N writes). For each of T_c = ⌈N/B_c⌉ key blocks: read K_j, V_j
    (2 B_c d, 2Nd in all); for every query block read Q_i, O_i, ℓ_i, m_i and write O_i, ℓ_i, m_i back,
    2Nd + 2N reads and Nd + 2N writes per key block. With B_c ≈ M/(4d) this is Θ(N²d²/M).
    """
    _check_sizes(n, d)
    if int(block_size) != block_size or block_size < 1:
        raise ValueError(f"block size must be a whole number ≥ 1, got {block_size}.")
    n, d, t_c = int(n), int(d), -(-int(n) // int(block_size))
    return Traffic(reads=2 * n * d + t_c * (2 * n * d + 2 * n), writes=n * d + 2 * n + t_c * (n * d + 2 * n),
                   bytes_per=bytes_per)


def fits_in_sram(block_size: int, d: int, sram_elements: int) -> bool:
    """Algorithm 1's blocks K_j, V_j (B_c × d each) and Q_i, O_i (B_r × d each, B_r ≤ B_c) fit: 4 B_c d ≤ M."""
    return 4 * int(block_size) * int(d) <= int(sram_elements)


def attention_flops(n: int, d: int) -> int:
    """Multiply-adds of the two products Q Kᵀ and P V, counted as 2 FLOPs each: 4N²d (softmax left out)."""
    _check_sizes(n, d)
    return 4 * int(n) * int(n) * int(d)


@dataclass(frozen=True)
class Roofline:
    """Time lower bounds on one GPU: moving the bytes at full bandwidth, and doing the FLOPs at full speed."""

    flops: int
    bytes: int
    intensity: float                                       # FLOPs per byte moved
    ridge: float                                           # the GPU's FLOP/s over its bytes/s
    memory_seconds: float
    compute_seconds: float

    @property
    def memory_bound(self) -> bool:
        return self.memory_seconds > self.compute_seconds


def roofline(flops: int, bytes_moved: int, peak_flops: float, bandwidth: float) -> Roofline:
    """Arithmetic intensity FLOPs/bytes against the ridge point peak_flops/bandwidth (both per second)."""
    if flops < 0 or bytes_moved <= 0 or peak_flops <= 0 or bandwidth <= 0:
        raise ValueError("FLOPs must be ≥ 0, and bytes, peak FLOP/s and bandwidth > 0.")
    return Roofline(flops=int(flops), bytes=int(bytes_moved), intensity=flops / bytes_moved,
                    ridge=peak_flops / bandwidth, memory_seconds=bytes_moved / bandwidth,
                    compute_seconds=flops / peak_flops)


def scores_seen(trace: FlashTrace, blocks: int) -> np.ndarray:
    """The scores the first ``blocks`` steps computed, laid out as [n_q, n_k] for a picture; NaN where no block
    has reached yet or the causal mask blocks a key. (For drawing only: the algorithm never holds this.)"""
    n_q, n_k = trace.output.shape[0], trace.steps[-1].stop
    grid = np.full((n_q, n_k), np.nan)
    for step in trace.steps[: max(0, int(blocks))]:
        grid[:, step.start:step.stop] = np.where(np.isfinite(step.scores), step.scores, np.nan)
    return grid


@dataclass(frozen=True)
class GPU:
    """One accelerator's published figures: main-memory bandwidth (bytes/s), dense FP16 tensor FLOP/s, and
    on-chip memory: per SM in total (L1 and shared) and the most a kernel can use as shared memory."""

    name: str
    bandwidth: float
    peak_flops: float
    sram_per_sm: int
    shared_per_sm: int
    sms: int
    source: str

    def sram_elements(self, bytes_per: int = 2) -> int:
        """M for the traffic model: how many elements fit in one SM's shared memory."""
        return self.shared_per_sm // bytes_per


A100_SXM_40GB = GPU(
    name="NVIDIA A100 40GB SXM", bandwidth=1555e9, peak_flops=312e12, sram_per_sm=192 * 1024,
    shared_per_sm=164 * 1024, sms=108,
    source="NVIDIA A100 Tensor Core GPU datasheet (bandwidth, FP16 tensor FLOP/s); NVIDIA Ampere GA100 "
           "architecture whitepaper and Ampere tuning guide (SMs, 192 KiB L1/shared per SM, up to 164 KiB shared)",
)

"""erf and the exact GELU in NumPy, which has neither: the float32 path the encoder runs on, and a float64
path good to about 1e-16 that the tests hold to ``math.erf``."""

from __future__ import annotations

import numpy as np

# --- erf and GELU ---------------------------------------------------------------------------------
# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969),
# the coefficients used by most libms: about 1e-16 relative error on three intervals of |x|.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERFC_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
           8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
           2.15311535474403846e-8)
_ERFC_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
           3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERFC_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
           6.58749161529837803e-4, 1.63153871373020978e-2)
_ERFC_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
           2.33520497626869185e-3)
_INV_SQRT_PI = 0.56418958354775628695


def _ratio(num: tuple, den: tuple, t: np.ndarray) -> np.ndarray:
    """Cody's nested evaluation: (((n_last·t + n_0)·t + n_1)·t … + n_{k-1}) / ((t + d_0)·t … + d_{k-1})."""
    xnum, xden = num[-1] * t, t
    for a, b in zip(num[:-2], den[:-1], strict=True):
        xnum, xden = (xnum + a) * t, (xden + b) * t
    return (xnum + num[-2]) / (xden + den[-1])


# Numerical Recipes' erfcc (Press et al., 2nd ed., §6.2): a Chebyshev fit with fractional error below
# 1.2e-7 for every x ≥ 0, one exp and a degree-9 polynomial: a quarter of Cody's work, as accurate as
# float32 can hold. Coefficients innermost first.
_ERFCC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
          1.48851587, -0.82215223, 0.17087277)


def erfc_float32(y: np.ndarray) -> np.ndarray:
    """erfc(y) = 1 − erf(y) for y ≥ 0, in float32, with relative error about 1e-7 (NR's erfcc)."""
    t = 1.0 / (1.0 + np.float32(0.5) * y)
    poly = np.full_like(y, _ERFCC[-1])
    for c in _ERFCC[-2::-1]:                          # Horner, in place: no temporaries per step
        poly *= t
        poly += np.float32(c)
    poly -= y * y
    np.exp(poly, out=poly)
    poly *= t
    return poly


def erf(x: np.ndarray) -> np.ndarray:
    """The error function erf(x) = 2/√π ∫₀ˣ e^(−t²) dt, elementwise (NumPy has none).

    float32 in → float32 out (about 1e-7 absolute error, what GELU needs, through erfc_float32);
    anything else is computed in float64 with Cody's approximations (about 1e-16).
    """
    x = np.asarray(x)
    if x.dtype == np.float32:                         # near 0, 1 − erfc would cancel: Cody's first interval
        xs = np.clip(x, np.float32(-0.46875), np.float32(0.46875))
        return np.where(np.abs(x) <= 0.46875, xs * _ratio(_ERF_A, _ERF_B, xs * xs),
                        np.copysign(1.0 - erfc_float32(np.abs(x)), x)).astype(np.float32)
    x = x.astype(np.float64)
    # Every interval is evaluated on the whole array with its argument clipped into range, then the
    # right one is picked per element: cheaper than boolean indexing, and nothing overflows.
    y = np.abs(x)
    xs = np.clip(x, -0.46875, 0.46875)
    small = xs * _ratio(_ERF_A, _ERF_B, xs * xs)                               # |x| ≤ 0.46875: erf directly
    ym = np.clip(y, 0.46875, 4.0)
    erfc_mid = _ratio(_ERFC_C, _ERFC_D, ym) * np.exp(-ym * ym)                 # 0.46875 < |x| ≤ 4
    yb = np.clip(y, 4.0, 1e8)
    inv_y2 = 1.0 / (yb * yb)
    erfc_big = (_INV_SQRT_PI - inv_y2 * _ratio(_ERFC_P, _ERFC_Q, inv_y2)) / yb * np.exp(-yb * yb)  # |x| > 4
    erfc = np.where(y <= 4.0, erfc_mid, erfc_big)                              # erfc(|x|); NaN stays NaN
    return np.where(y <= 0.46875, small, np.copysign(1.0 - erfc, x))


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU: x·Φ(x) = ½ x (1 + erf(x/√2)), the one BERT was trained with (not the tanh variant).

    In float32 through Φ(x) = ½ erfc(−x/√2): for x < 0 that is erfc(|x|/√2) itself, so the small tail
    keeps its relative accuracy instead of cancelling in 1 + erf.
    """
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
        return 0.5 * x * (1.0 + erf(x * np.sqrt(0.5)))
    tail = erfc_float32(np.abs(x) * np.float32(np.sqrt(0.5)))                 # erfc(|x|/√2)
    # 2 Φ(x) = tail·k + (1 − k) with k = +1 for x < 0 (tail itself, exactly) and −1 otherwise (2 − tail). Not
    # np.where: on signs that change at random it mispredicts a branch per element, 8× these five passes.
    k = np.copysign(np.float32(1.0), x)                                        # [T, d_ff]
    np.negative(k, out=k)
    rest = np.float32(1.0) - k
    tail *= k
    tail += rest                                                               # 2 Φ(x)
    tail *= x
    tail *= np.float32(0.5)
    return tail

"""Convex hulls and blends, checked against the seed's worked example and a brute-force reference."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core

SEED_X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])     # river, bank, muddy (seed 000)


def _in_triangle(p, a, b, c, tol=1e-9):
    """Barycentric test; degenerate triangles fall back to the segment test below."""
    T = np.column_stack([b - a, c - a])
    if abs(np.linalg.det(T)) < 1e-12:
        return any(_on_segment(p, u, v, tol) for u, v in ((a, b), (b, c), (a, c)))
    lam = np.linalg.solve(T, p - a)
    return lam.min() >= -tol and lam.sum() <= 1 + tol


def _on_segment(p, a, b, tol=1e-9):
    ab = b - a
    if ab @ ab == 0:
        return np.linalg.norm(p - a) <= tol
    t = (p - a) @ ab / (ab @ ab)
    return -tol <= t <= 1 + tol and np.linalg.norm(a + t * ab - p) <= tol


def reference_in_hull(p, P):
    """Carathéodory in the plane: p is in conv(P) iff it is in a triangle (or segment, or point) of P."""
    P = np.asarray(P, float)
    if len(P) == 1:
        return bool(np.allclose(p, P[0]))
    if len(P) == 2:
        return _on_segment(p, P[0], P[1])
    return any(_in_triangle(p, P[i], P[j], P[k]) for i, j, k in itertools.combinations(range(len(P)), 3))


def reference_corners(P):
    """A point is a corner iff it is not in the hull of the other (distinct) points."""
    P = np.unique(np.asarray(P, float), axis=0)
    if len(P) <= 2:
        return {tuple(p) for p in P}
    return {tuple(P[i]) for i in range(len(P)) if not reference_in_hull(P[i], np.delete(P, i, axis=0))}


def shoelace(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_seed_muddy_river_bank_blend():
    b = core.blend([0.60, 0.30, 0.10], SEED_X)
    np.testing.assert_allclose(b.z, [0.215, 0.830], atol=1e-12)
    assert b.on_simplex and b.inside_hull and b.bound_holds
    assert b.max_norm == pytest.approx(max(np.hypot(*x) for x in SEED_X))
    assert b.norm_z == pytest.approx(np.hypot(0.215, 0.830))


def test_square_hull_drops_interior_and_edge_points_and_runs_counter_clockwise():
    P = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1], [1, 0], [0, 0]], float)
    idx = core.convex_hull_2d(P)
    assert {tuple(P[i]) for i in idx} == {(0, 0), (2, 0), (2, 2), (0, 2)}
    assert len(idx) == 4 and shoelace(P[idx]) == pytest.approx(4.0)


@pytest.mark.parametrize("P, expected", [
    ([[1, 1]], 1), ([[1, 1], [1, 1]], 1), ([[0, 0], [1, 1], [2, 2]], 2),
])
def test_degenerate_hulls(P, expected):
    assert len(core.convex_hull_2d(P)) == expected


def test_off_simplex_weights_escape_a_triangle():
    b = core.blend([2.0, -1.0, 0.0], SEED_X)           # x1 + (x1 − x2): beyond river, away from bank
    np.testing.assert_allclose(b.z, 2 * SEED_X[0] - SEED_X[1])
    assert not b.on_simplex and not b.inside_hull


def test_weights_summing_past_one_break_the_norm_bound():
    b = core.blend([1.5, 0.5, 0.5], SEED_X)
    assert not b.on_simplex and not b.bound_holds


def test_blend_rejects_wrong_shapes():
    with pytest.raises(ValueError, match="weights must have 3 entries"):
        core.blend([0.5, 0.5], SEED_X)
    with pytest.raises(ValueError, match="2 columns"):
        core.blend([1.0], [[1.0, 2.0, 3.0]])


def test_simplex_from_free_remainder_and_rescale():
    w, rescaled = core.simplex_from_free([0.6, 0.3])
    np.testing.assert_allclose(w, [0.6, 0.3, 0.1])
    assert not rescaled
    w, rescaled = core.simplex_from_free([0.9, 0.3])
    np.testing.assert_allclose(w, [0.75, 0.25, 0.0])
    assert rescaled
    with pytest.raises(ValueError):
        core.simplex_from_free([-0.1, 0.5])


grid_points = st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(grid_points)
def test_hull_corners_match_brute_force(pts):
    P = np.array(pts, float)
    idx = core.convex_hull_2d(P)
    assert {tuple(P[i]) for i in idx} == reference_corners(P)
    if len(idx) >= 3:
        assert shoelace(P[idx]) > 0                      # counter-clockwise


@settings(max_examples=150, deadline=None)
@given(grid_points, st.tuples(st.integers(-7, 7), st.integers(-7, 7)))
def test_membership_matches_caratheodory(pts, q):
    P, q = np.array(pts, float), np.array(q, float)
    assert core.in_convex_hull(q, P) == reference_in_hull(q, P)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=n, max_size=n),
    st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n).filter(lambda w: sum(w) > 1e-3)),
))
def test_any_simplex_blend_stays_in_hull_and_under_the_norm_bound(case):
    pts, raw = case
    w = np.array(raw) / np.sum(raw)
    b = core.blend(w, np.array(pts))
    assert b.on_simplex and b.inside_hull and b.bound_holds

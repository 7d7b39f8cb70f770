"""project() and the plane helpers, against closed forms and invariants."""

import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from attention_core import angle_between, from_polar, project, tidy_zero

finite = st.floats(-50, 50, allow_nan=False)
vec2 = st.tuples(finite, finite).map(np.array)


@given(vec2, vec2)
def test_parallel_plus_perpendicular_rebuilds_q_and_they_are_orthogonal(q, k):
    if np.linalg.norm(k) < 1e-3:
        return
    p = project(q, k)
    np.testing.assert_allclose(p.parallel + p.perpendicular, q, atol=1e-9)
    assert abs(p.parallel @ p.perpendicular) <= 1e-7 * (1 + np.linalg.norm(q) ** 2)
    assert p.score == pytest.approx(float(np.dot(q, k)), abs=1e-9)
    assert p.score == pytest.approx(np.linalg.norm(k) * p.comp, abs=1e-7)


def test_shadow_is_length_times_cosine():
    q, k = from_polar(2.0, 50.0), from_polar(3.0, 0.0)
    p = project(q, k)
    assert p.comp == pytest.approx(2.0 * np.cos(np.deg2rad(50.0)))
    assert p.score == pytest.approx(6.0 * np.cos(np.deg2rad(50.0)))
    np.testing.assert_allclose(p.k_hat, [1.0, 0.0])


def test_perpendicular_scores_exactly_zero_and_zero_key_is_refused():
    assert project(from_polar(2, 90), from_polar(3, 0)).score == 0.0
    with pytest.raises(ValueError, match="zero vector"):
        project([1.0, 2.0], [0.0, 0.0])


def test_projection_is_not_commutative_but_the_score_is():
    q, k = np.array([2.0, 1.0]), np.array([3.0, 0.0])
    a, b = project(q, k), project(k, q)
    assert a.score == b.score
    assert not np.allclose(a.parallel, b.parallel)
    np.testing.assert_allclose(a.parallel, [2.0, 0.0])
    np.testing.assert_allclose(b.parallel, 6.0 / 5.0 * q)


@given(st.floats(0, 100), st.floats(-720, 720))
@example(1.2e-6, 1.2e-6)                                  # a short vector's tiny y was once snapped to 0
def test_from_polar_has_the_requested_length_and_direction(length, angle):
    xy = from_polar(length, angle)
    assert np.linalg.norm(xy) == pytest.approx(length, abs=1e-9)
    if length > 1e-6:
        expected = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
        np.testing.assert_allclose(xy / length, expected, atol=1e-9)


def test_from_polar_refuses_bad_input_and_angle_between_matches_arccos():
    with pytest.raises(ValueError):
        from_polar(-1, 0)
    with pytest.raises(ValueError):
        from_polar(1, float("nan"))
    assert angle_between([1, 0], [1, 1]) == pytest.approx(45.0)
    with pytest.raises(ValueError):
        angle_between([0, 0], [1, 0])
    assert tidy_zero(-1e-17) == 0.0 and tidy_zero(0.25) == 0.25

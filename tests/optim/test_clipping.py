import numpy as np

from eagerflow.optim import clipping


def test_clip_by_norm_matches_keras_formula():
    g = np.array([[3.0, 4.0], [0.0, 12.0]], np.float32)  # norm 13
    np.testing.assert_allclose(clipping.clip_by_norm(g, 2.0), g * 2.0 / 13.0, rtol=1e-6)
    small = np.array([0.1, 0.2], np.float32)
    assert clipping.clip_by_norm(small, 1.0) is small  # within bounds: untouched


def test_clip_by_value():
    np.testing.assert_array_equal(
        clipping.clip_by_value(np.array([-5.0, 0.1, 5.0]), 2.0), [-2.0, 0.1, 2.0])


def test_global_norm_skips_none():
    assert clipping.global_norm([np.array([6.0]), None, np.array([8.0])]) == 10.0


def test_clip_by_global_norm():
    grads = [np.array([6.0], np.float32), None, np.array([8.0], np.float32)]
    clipped = clipping.clip_by_global_norm(grads, 5.0)
    assert clipped[1] is None
    np.testing.assert_allclose([clipped[0][0], clipped[2][0]], [3.0, 4.0], rtol=1e-6)
    assert clipping.clip_by_global_norm(grads, 50.0)[0] is grads[0]


def test_non_finite_global_norm_gives_nan_gradients():
    clipped = clipping.clip_by_global_norm([np.array([np.inf, 1.0]), np.array([1.0])], 1.0)
    assert all(np.isnan(c).all() for c in clipped)

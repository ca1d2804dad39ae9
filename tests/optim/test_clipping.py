import numpy as np

import eagerflow as ef
from eagerflow.optim import clipping


def test_clip_by_norm_matches_keras_formula():
    g = np.array([[3.0, 4.0], [0.0, 12.0]], np.float32)  # norm 13
    np.testing.assert_allclose(clipping.clip_by_norm(ef.constant(g), 2.0), g * 2.0 / 13.0,
                               rtol=1e-6)
    small = np.array([0.1, 0.2], np.float32)
    np.testing.assert_allclose(clipping.clip_by_norm(ef.constant(small), 1.0), small,
                               rtol=1e-6)


def test_clip_by_norm_of_zeros_is_zeros():
    np.testing.assert_array_equal(clipping.clip_by_norm(ef.zeros([3]), 1.0), [0.0, 0.0, 0.0])


def test_clip_by_value():
    np.testing.assert_array_equal(
        clipping.clip_by_value(ef.constant([-5.0, 0.1, 5.0]), 2.0),
        np.array([-2.0, 0.1, 2.0], np.float32))


def test_clip_by_global_norm():
    grads = [ef.constant([6.0]), None, ef.constant([8.0])]
    clipped = clipping.clip_by_global_norm(grads, 5.0)
    assert clipped[1] is None
    np.testing.assert_allclose([float(clipped[0][0]), float(clipped[2][0])], [3.0, 4.0],
                               rtol=1e-6)
    unchanged = clipping.clip_by_global_norm(grads, 50.0)
    np.testing.assert_allclose(unchanged[0], [6.0], rtol=1e-6)


def test_non_finite_global_norm_gives_nan_gradients():
    clipped = clipping.clip_by_global_norm(
        [ef.constant([np.inf, 1.0]), ef.constant([1.0])], 1.0)
    assert all(np.isnan(c.numpy()).all() for c in clipped)


def test_clipping_traces_into_a_graph():
    @ef.function
    def clip(g):
        return clipping.clip_by_global_norm([g, g], 1.0)[0]

    np.testing.assert_allclose(clip(ef.constant([3.0, 4.0])),
                               np.array([3.0, 4.0]) / (5.0 * np.sqrt(2.0)), rtol=1e-6)

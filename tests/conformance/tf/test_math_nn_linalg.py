"""ef.math, ef.nn and ef.linalg names added from TensorFlow 2.21: values (and dtypes) recorded
from `tf.math`, `tf.nn` and `tf.linalg` on the same inputs, including the NaN/inf and empty-segment
cases of TensorFlow's `math_ops_test.py`, `segment_reduction_ops_test.py` and
`linalg_grad_test.py`; gradients recorded from `tf.GradientTape`; singular and eigenvectors are
compared up to sign (LAPACK drivers differ)."""
import numpy as np
import pytest

import eagerflow as ef
NAN, INF = float("nan"), float("inf")
nan, inf = NAN, INF

A = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
B = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
x4 = ef.reshape(ef.range(32.0), (2, 2, 1, 8))

MATH = {
    "divide_no_nan": lambda: ef.math.divide_no_nan([1.0, 0.0, inf, nan, 3.0], [0.0, 0.0, 0.0, 0.0, 2.0]),
    "multiply_no_nan": lambda: ef.math.multiply_no_nan([inf, nan, 2.0, inf], [0.0, 0.0, 3.0, 1.0]),
    "reciprocal_no_nan": lambda: ef.math.reciprocal_no_nan([0.0, 2.0, -4.0]),
    "xlogy": lambda: ef.math.xlogy([0.0, 0.0, 1.0, 2.0, 0.0], [0.0, nan, 2.0, 0.0, inf]),
    "xlog1py": lambda: ef.math.xlog1py([0.0, 1.0, 2.0], [-1.0, 1.0, -1.0]),
    "xdivy": lambda: ef.math.xdivy([0.0, 0.0, 1.0, 2.0], [0.0, nan, 4.0, 0.0]),
    "is_nan": lambda: ef.math.is_nan([1.0, nan, inf]),
    "is_inf": lambda: ef.math.is_inf([1.0, nan, -inf]),
    "is_finite": lambda: ef.math.is_finite([1.0, nan, -inf]),
    "floormod": lambda: ef.math.floormod([-7, 7, 5], [3, -3, 5]),
    "floormod_f": lambda: ef.math.floormod([-7.5, 7.5], [2.0, -2.0]),
    "rint": lambda: ef.math.rint([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7]),
    "count_nonzero": lambda: ef.math.count_nonzero([[0, 1, 2], [0, 0, 3]]),
    "count_nonzero_ax": lambda: ef.math.count_nonzero([[0., 1., 2.], [0., 0., 3.]], axis=1, keepdims=True),
    "zero_fraction": lambda: ef.math.zero_fraction([[0, 1, 2], [0, 0, 3]]),
    "polyval": lambda: ef.math.polyval([2.0, -1.0, 3.0], ef.constant([0.5, 2.0])),
    "cumulative_logsumexp": lambda: ef.math.cumulative_logsumexp([1.0, 2.0, 3.0, 1000.0]),
    "cumulative_logsumexp_ex_rev": lambda: ef.math.cumulative_logsumexp([[1.0, 2.0, 3.0]], axis=1, exclusive=True, reverse=True),
    "invert_permutation": lambda: ef.math.invert_permutation([3, 4, 0, 2, 1]),
    "in_top_k": lambda: ef.math.in_top_k([0, 1, 2, 0], [[0.5, 0.5, 0.1], [0.1, 0.2, 0.3], [0.1, 0.2, nan], [1.0, 2.0, 3.0]], 2),
    "segment_sum": lambda: ef.math.segment_sum([[1., 2.], [3., 4.], [5., 6.]], [0, 0, 2]),
    "segment_mean": lambda: ef.math.segment_mean([1., 2., 3., 6.], [0, 0, 1, 3]),
    "segment_max": lambda: ef.math.segment_max([1., 2., 3., 6.], [0, 0, 1, 3]),
    "segment_min": lambda: ef.math.segment_min([1, 2, 3, 6], [0, 0, 1, 3]),
    "segment_prod": lambda: ef.math.segment_prod([1., 2., 3., 6.], [0, 0, 1, 3]),
    "unsorted_segment_sum": lambda: ef.math.unsorted_segment_sum([1., 2., 3., 6.], [1, -1, 1, 0], 3),
    "unsorted_segment_mean": lambda: ef.math.unsorted_segment_mean([1., 2., 3., 6.], [1, 0, 1, 0], 3),
    "unsorted_segment_sqrt_n": lambda: ef.math.unsorted_segment_sqrt_n([1., 2., 3., 6.], [1, 0, 1, 1], 3),
    "unsorted_segment_max": lambda: ef.math.unsorted_segment_max([[1., 2.], [3., 4.]], [1, 1], 3),
    "unsorted_segment_min": lambda: ef.math.unsorted_segment_min([1., 2., 3., 6.], [1, 0, 1, 0], 3),
    "unsorted_segment_prod": lambda: ef.math.unsorted_segment_prod([[1., 2.], [3., 6.]], [[1, 0], [1, 0]], 3),
    "bincount": lambda: ef.math.bincount([1, 1, 3, 0]),
    "bincount_w": lambda: ef.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0], minlength=5),
    "bincount_max": lambda: ef.math.bincount([1, 1, 3, 5], maxlength=3),
    "bincount_axis": lambda: ef.math.bincount([[1, 1, 2], [0, 2, 2]], axis=-1),
    "bincount_binary": lambda: ef.math.bincount([1, 1, 3], binary_output=True),
    "confusion_matrix": lambda: ef.math.confusion_matrix([1, 2, 4], [2, 2, 4]),
    "confusion_matrix_w": lambda: ef.math.confusion_matrix([0, 1, 1], [1, 1, 0], num_classes=3, weights=[1.0, 2.0, 3.0], dtype=ef.float32),
    "l2_normalize": lambda: ef.math.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1),
    "softsign": lambda: ef.math.softsign([-3.0, 1.0]),
    "log_softmax": lambda: ef.math.log_softmax([1.0, 2.0, 3.0]),
}
MATH.update({
    "real": lambda: ef.math.real(ef.constant([1.5, -2.0])),
    "imag": lambda: ef.math.imag(ef.constant([1.5, -2.0])),
    "conj": lambda: ef.math.conj(ef.constant([1.5, -2.0])),
    "is_non_decreasing": lambda: ef.math.is_non_decreasing([[1, 2], [2, 5]]),
    "is_strictly_increasing": lambda: ef.math.is_strictly_increasing([1.0, 1.0, 2.0]),
    "scalar_mul": lambda: ef.math.scalar_mul(3.0, ef.constant([1.0, -2.0])),
    "accumulate_n": lambda: ef.math.accumulate_n([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    "erfcinv": lambda: ef.math.erfcinv(np.array([0.0, 1e-20, 0.3, 1.0, 1.7, 2.0, 2.5])),
    "lbeta": lambda: ef.math.lbeta(np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])),
    "nextafter": lambda: ef.math.nextafter(np.array([1.0, 0.0], np.float32),
                                           np.array([2.0, -1.0], np.float32)),
})
NN = {
    "max_pool1d": lambda: ef.nn.max_pool(ef.reshape(ef.range(8.0), (1, 8, 1)), 3, 2, "SAME"),
    "avg_pool2d": lambda: ef.nn.avg_pool(ef.reshape(ef.range(16.0), (1, 4, 4, 1)), 2, 2, "VALID"),
    "max_pool3d": lambda: ef.nn.max_pool(ef.reshape(ef.range(8.0), (1, 2, 2, 2, 1)), 2, 1, "VALID"),
    "top_k": lambda: ef.nn.top_k([1.0, 3.0, 2.0], 2),
    "space_to_depth": lambda: ef.nn.space_to_depth(ef.reshape(ef.range(32.0), (1, 4, 4, 2)), 2),
    "depth_to_space": lambda: ef.nn.depth_to_space(x4, 2),
    "weighted_ce": lambda: ef.nn.weighted_cross_entropy_with_logits([1.0, 0.0, 0.5], [2.0, -1.0, 0.3], 3.0),
    "log_poisson": lambda: ef.nn.log_poisson_loss([0.0, 1.0, 3.0], [0.5, -1.0, 1.2]),
    "log_poisson_full": lambda: ef.nn.log_poisson_loss([0.0, 1.0, 3.0], [0.5, -1.0, 1.2], compute_full_loss=True),
    "sufficient_statistics": lambda: list(ef.nn.sufficient_statistics(ef.constant([[1.0, 2.0], [4.0, 8.0]]), [0], shift=1.0)),
    "sufficient_statistics_keep": lambda: list(ef.nn.sufficient_statistics(ef.constant([[1.0, 2.0], [4.0, 8.0]]), [1], keepdims=True)[:3]),
    "normalize_moments": lambda: ef.nn.normalize_moments(2.0, [3.0, 8.0], [9.0, 50.0], 1.0),
    "weighted_moments": lambda: ef.nn.weighted_moments(ef.constant([[1.0, 2.0], [4.0, 8.0]]), [0], ef.constant([[1.0], [3.0]])),
    "weighted_moments_keep": lambda: ef.nn.weighted_moments(ef.constant([[1.0, 2.0], [4.0, 8.0]]), [1], ef.constant([0.0, 0.0]), keepdims=True),
    "crelu": lambda: ef.nn.crelu([[1.0, -2.0], [0.0, 3.0]], axis=0),
    "compute_average_loss": lambda: ef.nn.compute_average_loss([1.0, 2.0, 3.0], sample_weight=[1.0, 0.5, 2.0]),
    "compute_average_loss_g": lambda: ef.nn.compute_average_loss([[1.0, 2.0], [3.0, 4.0]], global_batch_size=4),
    "scale_regularization_loss": lambda: ef.nn.scale_regularization_loss([0.5, 0.25]),
    "in_top_k": lambda: ef.nn.in_top_k([2, 0], [[0.1, 0.2, 0.7], [0.5, 0.4, 0.1]], 1),
    "zero_fraction": lambda: ef.nn.zero_fraction([0.0, 1.0]),
}
LINALG = {
    "adjoint": lambda: ef.linalg.adjoint(B),
    "matrix_transpose": lambda: ef.linalg.matrix_transpose(np.zeros((2, 3, 4)))[0].shape,
    "band_part": lambda: ef.linalg.band_part(ef.reshape(ef.range(1.0, 13.0), (3, 4)), 1, 0),
    "band_part2": lambda: ef.linalg.band_part(ef.reshape(ef.range(1.0, 13.0), (3, 4)), -1, 1),
    "set_diag": lambda: ef.linalg.set_diag(ef.zeros((2, 3, 4)), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    "set_diag_k1": lambda: ef.linalg.set_diag(ef.zeros((3, 4)), [1.0, 2.0, 3.0], k=1),
    "set_diag_km1": lambda: ef.linalg.set_diag(ef.zeros((3, 4)), [1.0, 2.0], k=-1),
    "matvec": lambda: ef.linalg.matvec(B, np.array([1.0, -1.0, 2.0]), transpose_a=True),
    "eye": lambda: ef.linalg.eye(2, 3, batch_shape=[2]),
    "cross": lambda: ef.linalg.cross(np.array([[1.0, 2.0, 3.0]]), np.array([[4.0, 5.0, 6.0]])),
    "cholesky_solve": lambda: ef.linalg.cholesky_solve(ef.linalg.cholesky(A), B),
    "slogdet": lambda: ef.linalg.slogdet(np.array([[1.0, 2.0], [3.0, 4.0]])),
    "svd": lambda: ef.linalg.svd(B),
    "svd_s": lambda: ef.linalg.svd(B.T, compute_uv=False),
    "qr": lambda: ef.linalg.qr(B),
    "qr_full": lambda: ef.linalg.qr(B, full_matrices=True),
    "eigh": lambda: ef.linalg.eigh(A),
    "eigvalsh": lambda: ef.linalg.eigvalsh(A),
    "lstsq": lambda: ef.linalg.lstsq(B, np.array([[1.0], [2.0], [2.0]])),
    "lstsq_l2": lambda: ef.linalg.lstsq(B, np.array([[1.0], [2.0], [2.0]]), l2_regularizer=0.5),
    "pinv": lambda: ef.linalg.pinv(B),
    "matrix_rank": lambda: ef.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])),
    "l2_normalize": lambda: ef.linalg.l2_normalize([3.0, 4.0]),
}


def _g(f, *xs):
    xs = [ef.constant(np.asarray(x, np.float64)) for x in xs]
    with ef.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return tape.gradient(y, xs)


GRADS = {
    "grad_lbeta": lambda: _g(lambda x: ef.reduce_sum(ef.math.lbeta(x)),
                             np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])),
    "grad_erfcinv": lambda: _g(lambda x: ef.reduce_sum(ef.math.erfcinv(x)),
                               np.array([0.1, 1.0, 1.7])),
    "divide_no_nan": lambda: _g(lambda x, y: ef.reduce_sum(ef.math.divide_no_nan(x, y)), [1.0, 2.0, 3.0], [0.0, 4.0, -1.0]),
    "xlogy": lambda: _g(lambda x, y: ef.reduce_sum(ef.math.xlogy(x, y)), [0.0, 2.0, 3.0], [0.0, 4.0, 1.5]),
    "xdivy": lambda: _g(lambda x, y: ef.reduce_sum(ef.math.xdivy(x, y)), [0.0, 2.0, 3.0], [0.0, 4.0, 1.5]),
    "multiply_no_nan": lambda: _g(lambda x, y: ef.reduce_sum(ef.math.multiply_no_nan(x, y)), [5.0, 2.0], [0.0, 4.0]),
    "segment_max": lambda: _g(lambda x: ef.reduce_sum(ef.math.unsorted_segment_max(x, [0, 0, 1], 2) * [1.0, 2.0]), [1.0, 3.0, 2.0]),
    "eigh": lambda: _g(lambda a: ef.reduce_sum(ef.linalg.eigh(a)[0] * [1.0, 2.0, 3.0]) + ef.reduce_sum(ef.abs(ef.linalg.eigh(a)[1][:, 0])), A + np.triu(np.ones((3, 3)), 1)),
    "slogdet": lambda: _g(lambda a: ef.linalg.slogdet(a)[1], np.array([[1.0, 2.0], [3.0, 4.0]])),
    "svd": lambda: _g(lambda a: ef.reduce_sum(ef.linalg.svd(a)[0] * [1.0, 2.0]) + ef.reduce_sum(ef.linalg.svd(a)[1] ** 2 * B), B),
    "qr": lambda: _g(lambda a: ef.reduce_sum(ef.linalg.qr(a)[1] ** 2 * [[1.0, 2.0], [3.0, 4.0]]) + ef.reduce_sum(ef.linalg.qr(a)[0] * ef.linalg.qr(a)[0] * B), B),
}

# name -> recorded TensorFlow result: (values, dtype) or a list of them.
EXPECTED = {
    # math
    "math/divide_no_nan": ([0.0, 0.0, 0.0, 0.0, 1.5], "float32"),
    "math/multiply_no_nan": ([0.0, 0.0, 6.0, INF], "float32"),
    "math/reciprocal_no_nan": ([0.0, 0.5, -0.25], "float32"),
    "math/xlogy": ([0.0, 0.0, 0.693147, -INF, 0.0], "float32"),
    "math/xlog1py": ([0.0, 0.693147, -INF], "float32"),
    "math/xdivy": ([0.0, 0.0, 0.25, INF], "float32"),
    "math/is_nan": ([False, True, False], "bool"),
    "math/is_inf": ([False, False, True], "bool"),
    "math/is_finite": ([True, False, False], "bool"),
    "math/floormod": ([2, -2, 0], "int32"),
    "math/floormod_f": ([0.5, -0.5], "float32"),
    "math/rint": ([-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 3.0], "float32"),
    "math/count_nonzero": (3, "int64"),
    "math/count_nonzero_ax": ([[2], [1]], "int64"),
    "math/zero_fraction": (0.5, "float32"),
    "math/polyval": ([3.0, 9.0], "float32"),
    "math/cumulative_logsumexp": ([1.0, 2.313262, 3.407606, 1000.0], "float32"),
    "math/cumulative_logsumexp_ex_rev": ([[3.313262, 3.0, -INF]], "float32"),
    "math/invert_permutation": ([2, 4, 3, 0, 1], "int32"),
    "math/in_top_k": ([True, True, False, False], "bool"),
    "math/segment_sum": ([[4.0, 6.0], [0.0, 0.0], [5.0, 6.0]], "float32"),
    "math/segment_mean": ([1.5, 3.0, 0.0, 6.0], "float32"),
    "math/segment_max": ([2.0, 3.0, 0.0, 6.0], "float32"),
    "math/segment_min": ([1, 3, 0, 6], "int32"),
    "math/segment_prod": ([2.0, 3.0, 1.0, 6.0], "float32"),
    "math/unsorted_segment_sum": ([6.0, 4.0, 0.0], "float32"),
    "math/unsorted_segment_mean": ([4.0, 2.0, 0.0], "float32"),
    "math/unsorted_segment_sqrt_n": ([2.0, 5.773503, 0.0], "float32"),
    "math/unsorted_segment_max": ([[-3.4028234663852886e+38, -3.4028234663852886e+38], [3.0, 4.0], [-3.4028234663852886e+38, -3.4028234663852886e+38]], "float32"),
    "math/unsorted_segment_min": ([2.0, 1.0, 3.4028234663852886e+38], "float32"),
    "math/unsorted_segment_prod": ([12.0, 3.0, 1.0], "float32"),
    "math/bincount": ([1, 2, 0, 1], "int32"),
    "math/bincount_w": ([0.0, 1.5, 0.0, 2.0, 0.0], "float32"),
    "math/bincount_max": ([0, 2, 0], "int32"),
    "math/bincount_axis": ([[0, 2, 1], [1, 0, 2]], "int32"),
    "math/bincount_binary": ([0, 1, 0, 1], "int32"),
    "math/confusion_matrix": ([[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], "int32"),
    "math/confusion_matrix_w": ([[0.0, 1.0, 0.0], [3.0, 2.0, 0.0], [0.0, 0.0, 0.0]], "float32"),
    "math/l2_normalize": ([[0.6, 0.8], [0.0, 0.0]], "float32"),
    "math/softsign": ([-0.75, 0.5], "float32"),
    "math/log_softmax": ([-2.407606, -1.407606, -0.407606], "float32"),
    "math/real": ([1.5, -2.0], "float32"),
    "math/imag": ([0.0, 0.0], "float32"),
    "math/conj": ([1.5, -2.0], "float32"),
    "math/is_non_decreasing": (True, "bool"),
    "math/is_strictly_increasing": (False, "bool"),
    "math/scalar_mul": ([3.0, -6.0], "float32"),
    "math/accumulate_n": ([9.0, 12.0], "float32"),
    "math/erfcinv": ([INF, 6.601581, 0.732869, -0.0, -0.732869, -INF, NAN], "float64"),
    "math/lbeta": ([-4.094345, -0.241564], "float64"),
    "math/nextafter": ([1.0, -0.0], "float32"),
    "grads/grad_lbeta": [([[-2.283333, -1.283333, -0.783333], [-3.469628, -3.469628, -0.25]], "float64")],
    "grads/grad_erfcinv": [([-3.428043, -0.886227, -1.516363], "float64")],
    # nn
    "nn/max_pool1d": ([[[2.0], [4.0], [6.0], [7.0]]], "float32"),
    "nn/avg_pool2d": ([[[[2.5], [4.5]], [[10.5], [12.5]]]], "float32"),
    "nn/max_pool3d": ([[[[[7.0]]]]], "float32"),
    "nn/top_k": [([3.0, 2.0], "float32"), ([1, 2], "int32")],
    "nn/space_to_depth": ([[[[0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0], [4.0, 5.0, 6.0, 7.0, 12.0, 13.0, 14.0, 15.0]], [[16.0, 17.0, 18.0, 19.0, 24.0, 25.0, 26.0, 27.0], [20.0, 21.0, 22.0, 23.0, 28.0, 29.0, 30.0, 31.0]]]], "float32"),
    "nn/depth_to_space": ([[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]], [[12.0, 13.0], [14.0, 15.0]]], [[[16.0, 17.0], [18.0, 19.0]], [[20.0, 21.0], [22.0, 23.0]], [[24.0, 25.0], [26.0, 27.0]], [[28.0, 29.0], [30.0, 31.0]]]], "float32"),
    "nn/weighted_ce": ([0.380784, 0.313262, 1.258711], "float32"),
    "nn/log_poisson": ([1.648721, 1.367879, -0.279883], "float32"),
    "nn/log_poisson_full": ([1.648721, 1.367879, 1.484198], "float32"),
    "nn/sufficient_statistics": [(2.0, "float32"), ([3.0, 8.0], "float32"), ([9.0, 50.0], "float32"), (1.0, "float32")],
    "nn/sufficient_statistics_keep": [(2.0, "float32"), ([[3.0], [12.0]], "float32"), ([[5.0], [80.0]], "float32")],
    "nn/normalize_moments": [([2.5, 5.0], "float32"), ([2.25, 9.0], "float32")],
    "nn/weighted_moments": [([3.25, 6.5], "float32"), ([1.6875, 6.75], "float32")],
    "nn/weighted_moments_keep": [([[0.0], [0.0]], "float32"), ([[0.0], [0.0]], "float32")],
    "nn/crelu": ([[1.0, 0.0], [0.0, 3.0], [0.0, 2.0], [0.0, 0.0]], "float32"),
    "nn/compute_average_loss": (2.666667, "float32"),
    "nn/compute_average_loss_g": (2.5, "float32"),
    "nn/scale_regularization_loss": (0.75, "float32"),
    "nn/in_top_k": ([True, True], "bool"),
    "nn/zero_fraction": (0.5, "float32"),
    # linalg
    "linalg/adjoint": ([[1.0, 3.0, 5.0], [2.0, 4.0, 7.0]], "float64"),
    "linalg/matrix_transpose": ([4, 3], "int64"),
    "linalg/band_part": ([[1.0, 0.0, 0.0, 0.0], [5.0, 6.0, 0.0, 0.0], [0.0, 10.0, 11.0, 0.0]], "float32"),
    "linalg/band_part2": ([[1.0, 2.0, 0.0, 0.0], [5.0, 6.0, 7.0, 0.0], [9.0, 10.0, 11.0, 12.0]], "float32"),
    "linalg/set_diag": ([[[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]], [[4.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 0.0], [0.0, 0.0, 6.0, 0.0]]], "float32"),
    "linalg/set_diag_k1": ([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0]], "float32"),
    "linalg/set_diag_km1": ([[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]], "float32"),
    "linalg/matvec": ([8.0, 12.0], "float64"),
    "linalg/eye": ([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], "float32"),
    "linalg/cross": ([[-3.0, 6.0, -3.0]], "float64"),
    "linalg/cholesky_solve": ([[-0.5625, -0.568182], [1.0, 1.272727], [1.125, 1.5]], "float64"),
    "linalg/slogdet": [(-1.0, "float64"), (0.693147, "float64")],
    "linalg/svd": [([10.191428, 0.367138], "float64"), ([[0.216784, -0.938923], [0.490454, 0.341464], [0.844073, 0.042734]], "float64"), ([[0.579753, 0.814792], [0.814792, -0.579753]], "float64")],
    "linalg/svd_s": ([10.191428, 0.367138], "float64"),
    "linalg/qr": [([[-0.169031, 0.948683], [-0.507093, -0.316228], [-0.845154, -0.0]], "float64"), ([[-5.91608, -8.282512], [0.0, 0.632456]], "float64")],
    "linalg/qr_full": [([[-0.169031, 0.948683, -0.267261], [-0.507093, -0.316228, -0.801784], [-0.845154, -0.0, 0.534522]], "float64"), ([[-5.91608, -8.282512], [0.0, 0.632456], [0.0, 0.0]], "float64")],
    "linalg/eigh": [([2.096522, 3.072224, 6.831254], "float64"), ([[-0.716743, 0.325767, 0.616567], [0.574873, 0.776502, 0.258004], [0.394716, -0.53937, 0.743827]], "float64")],
    "linalg/eigvalsh": ([2.096522, 3.072224, 6.831254], "float64"),
    "linalg/lstsq": ([[-0.214286], [0.5]], "float64"),
    "linalg/lstsq_l2": ([[0.083019], [0.286792]], "float64"),
    "linalg/pinv": ([[-2.071429, 0.785714, 0.142857], [1.5, -0.5, 0.0]], "float64"),
    "linalg/matrix_rank": (1, "int32"),
    "linalg/l2_normalize": ([0.6, 0.8], "float32"),
    # grads
    "grads/divide_no_nan": [([0.0, 0.25, -1.0], "float32"), ([0.0, -0.125, -3.0], "float32")],
    "grads/xlogy": [([0.0, 1.386294, 0.405465], "float32"), ([0.0, 0.5, 2.0], "float32")],
    "grads/xdivy": [([0.0, 0.25, 0.666667], "float32"), ([0.0, -0.125, -1.333333], "float32")],
    "grads/multiply_no_nan": [([0.0, 4.0], "float32"), ([5.0, 2.0], "float32")],
    "grads/segment_max": [([0.0, 1.0, 2.0], "float32")],
    "grads/eigh": [([[1.881182, 0.0, 0.0], [1.094886, 1.76457, 0.0], [1.553437, -0.113407, 2.354247]], "float64")],
    "grads/slogdet": [([[-2.0, 1.5], [1.0, -0.5]], "float64")],
    "grads/svd": [([[-0.917453, 0.861485], [2.288601, -1.226083], [-0.407571, 1.456653]], "float64")],
    "grads/qr": [([[-0.849796, 9.971429], [8.650612, 13.914286], [8.979592, 28.857143]], "float64")],
}

_UP_TO_SIGN = {"linalg/svd", "linalg/eigh"}
_TABLES = {"math": MATH, "nn": NN, "linalg": LINALG, "grads": GRADS}


def _check(got, want, name, up_to_sign):
    if isinstance(want, list):
        got = list(got)
        assert len(got) == len(want), name
        for g, w in zip(got, want, strict=True):
            _check(g, w, name, up_to_sign)
        return
    values, dtype = want
    got = np.asarray(got)
    if not name.startswith("grads/"):  # gradients were recorded in float32 by TF
        assert got.dtype.name == dtype, name
    want_array = np.asarray(values, dtype=got.dtype if got.dtype.kind in "fiub" else None)
    if up_to_sign:
        got, want_array = np.abs(got), np.abs(want_array)
    np.testing.assert_allclose(got, want_array, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_tensorflow(name):
    group, key = name.split("/")
    _check(_TABLES[group][key](), EXPECTED[name], name, name in _UP_TO_SIGN)

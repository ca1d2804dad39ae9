"""`keras.ops` names added to eagerflow (NaN-ignoring reductions, quantiles, number and
bitwise ops, windows, correlations, factorizations, data-dependent ops): values and dtypes
recorded from Keras 3.15 (TensorFlow backend) on the inputs of `keras/src/ops/numpy_test.py`,
`linalg_test.py` and `nn_test.py`'s correctness tests; factors are compared up to sign
(`abs`), as LAPACK drivers differ. For `correlate` with the shorter input first the
TensorFlow backend disagrees with NumPy (and returns garbage for "valid"); those two rows
hold NumPy's values, which Keras documents."""

import numpy as np
import pytest

import eagerflow as ef

NAN, INF = float("nan"), float("inf")
nan, inf = NAN, INF
X = np.array([[1.0, nan, 3.0, -2.0], [nan, nan, nan, nan], [4.0, 0.5, nan, 2.0]], np.float32)
Y = np.array([[3.0, 1.0, 4.0, 1.5], [5.0, 9.0, 2.0, 6.0]], np.float32)
I = np.array([[1, 0, 3], [4, 2, 2]], np.int32)
S = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
B = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
CASES = {
    "nansum": lambda o: o.nansum(X, axis=1),
    "nansum_int": lambda o: o.nansum(np.array([1, 2], np.int8)),
    "nanmean": lambda o: o.nanmean(X, axis=1, keepdims=True),
    "nanmean_all": lambda o: o.nanmean(X),
    "nanmean_int": lambda o: o.nanmean(I),
    "nanmax": lambda o: o.nanmax(X, axis=1),
    "nanmin": lambda o: o.nanmin(X, axis=0),
    "nanprod": lambda o: o.nanprod(X, axis=1),
    "nanstd": lambda o: o.nanstd(X, axis=1),
    "nanvar": lambda o: o.nanvar(X, axis=1),
    "nancumsum": lambda o: o.nancumsum(X, axis=1),
    "nancumsum_flat": lambda o: o.nancumsum(X),
    "nancumprod": lambda o: o.nancumprod(X, axis=0),
    "nanargmax": lambda o: o.nanargmax(X, axis=1),
    "nanargmin": lambda o: o.nanargmin(X, axis=1),
    "nanargmax_all": lambda o: o.nanargmax(X),
    "nanmedian": lambda o: o.nanmedian(X, axis=1),
    "nanpercentile": lambda o: o.nanpercentile(X, 30.0, axis=1),
    "nanquantile": lambda o: o.nanquantile(X, 0.25, axis=1),
    "median": lambda o: o.median(Y, axis=1),
    "median_all": lambda o: o.median(Y),
    "median_nan": lambda o: o.median(X, axis=1),
    "median_int": lambda o: o.median(I, axis=0, keepdims=True),
    "percentile": lambda o: o.percentile(Y, [10.0, 50.0, 100.0], axis=0),
    "quantile": lambda o: o.quantile(Y, 0.4, axis=1, keepdims=True),
    "quantile_lower": lambda o: o.quantile(Y, 0.4, axis=1, method="lower"),
    "quantile_higher": lambda o: o.quantile(Y, 0.4, axis=1, method="higher"),
    "quantile_midpoint": lambda o: o.quantile(Y, 0.4, axis=1, method="midpoint"),
    "quantile_nearest": lambda o: o.quantile(Y, [0.3, 0.5], axis=1, method="nearest"),
    "quantile_axes": lambda o: o.quantile(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4), 0.5, axis=(0, 2)),
    "signbit": lambda o: o.signbit(np.array([-1.0, 0.0, -0.0, 2.0, -inf], np.float32)),
    "nextafter": lambda o: o.nextafter(np.array([1.0, 0.0], np.float32), np.array([2.0, -1.0], np.float32)),
    "gcd": lambda o: o.gcd(np.array([12, -18, 0], np.int32), np.array([8, 12, 5], np.int32)),
    "lcm": lambda o: o.lcm(np.array([4, 6, 0], np.int32), np.array([6, -4, 5], np.int32)),
    "isin": lambda o: o.isin(I, np.array([2, 3], np.int32)),
    "isin_invert": lambda o: o.isin(I, np.array([2, 3], np.int32), invert=True),
    "isreal": lambda o: o.isreal(Y[0]),
    "real": lambda o: o.real(Y[0]),
    "imag": lambda o: o.imag(Y[0]),
    "conj": lambda o: o.conj(Y[0]),
    "left_shift": lambda o: o.left_shift(np.array([1, 3, -2], np.int32), np.array([2, 1, 3], np.int32)),
    "right_shift": lambda o: o.bitwise_right_shift(np.array([8, 7, -8], np.int32), np.array([2, 1, 1], np.int32)),
    "unravel_index": lambda o: o.unravel_index(np.array([5, 0, 11], np.int32), (3, 4)),
    "digitize": lambda o: o.digitize(np.array([0.2, 6.4, 3.0, 1.6], np.float32), np.array([0.0, 1.0, 2.5, 4.0, 10.0], np.float32)),
    "searchsorted": lambda o: o.searchsorted(np.array([1.0, 2.0, 2.0, 3.0], np.float32), np.array([2.0, 0.5, 4.0], np.float32)),
    "searchsorted_right": lambda o: o.searchsorted(np.array([1.0, 2.0, 2.0, 3.0], np.float32), np.array([2.0, 0.5, 4.0], np.float32), side="right"),
    "bartlett": lambda o: o.bartlett(5), "blackman": lambda o: o.blackman(5),
    "hamming": lambda o: o.hamming(5), "hanning": lambda o: o.hanning(5),
    "kaiser": lambda o: o.kaiser(5, 2.5),
    "cross": lambda o: o.cross(np.array([[1.0, 2.0, 3.0]], np.float32), np.array([[4.0, 5.0, 6.0]], np.float32)),
    "cross_2d": lambda o: o.cross(np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)),
    "cross_23": lambda o: o.cross(np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0, 5.0], np.float32)),
    "cross_axis": lambda o: o.cross(np.arange(6.0, dtype=np.float32).reshape(3, 2), np.ones((3, 2), np.float32), axisa=0, axisb=0),
    "correlate": lambda o: o.correlate(np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32)),
    "correlate_full": lambda o: o.correlate(np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32), mode="full"),
    "correlate_same": lambda o: o.correlate(np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32), mode="same"),
    "correlate_same_short": lambda o: o.correlate(np.array([1.0, 2.0], np.float32), np.array([0.0, 1.0, 0.5, 2.0], np.float32), mode="same"),
    "correlate_valid_short": lambda o: o.correlate(np.array([1.0, 2.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32)),
    "corrcoef": lambda o: o.corrcoef(Y),
    "cdist": lambda o: o.cdist(Y[:, :2], np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 1.0]], np.float32)),
    "unique": lambda o: o.unique(np.array([3, 1, 3, 2, 1], np.int32)),
    "unique_all": lambda o: o.unique(np.array([3, 1, 3, 2, 1], np.int32), return_index=True, return_inverse=True, return_counts=True),
    "unique_size": lambda o: o.unique(np.array([3, 1, 3], np.int32), size=4, fill_value=-1),
    "nonzero": lambda o: o.nonzero(I),
    "bincount": lambda o: o.bincount(np.array([1, 1, 4], np.int32)),
    "bincount_w": lambda o: o.bincount(np.array([1, 1, 4], np.int32), weights=np.array([0.5, 1.0, 2.0], np.float32), minlength=6),
    "bincount_2d": lambda o: o.bincount(I, minlength=5),
    "histogram": lambda o: o.histogram(np.array([0.0, 1.0, 1.5, 4.0, 2.0], np.float32), bins=4),
    "histogram_range": lambda o: o.histogram(np.array([0.0, 1.0, 1.5, 4.0, 2.0], np.float32), bins=2, range=(0.0, 2.0)),
    "argpartition": lambda o: o.take_along_axis(Y, o.argpartition(Y, 1, axis=1), axis=1)[:, 1],
    "slogdet": lambda o: o.slogdet(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)),
    "erfinv": lambda o: o.erfinv(np.array([0.0, 0.5, -0.9], np.float32)),
    "svd_s": lambda o: o.svd(B.astype(np.float32), compute_uv=False),
    "svd": lambda o: [o.abs(t) for t in o.svd(B.astype(np.float32), full_matrices=False)],
    "qr": lambda o: [o.abs(t) for t in o.qr(B.astype(np.float32))],
    "qr_complete": lambda o: [o.abs(t) for t in o.qr(B.astype(np.float32), mode="complete")],
    "eigh": lambda o: [o.eigh(S.astype(np.float32))[0], o.abs(o.eigh(S.astype(np.float32))[1])],
    "lstsq": lambda o: o.lstsq(B.astype(np.float32), np.array([1.0, 2.0, 2.0], np.float32)),
    "lstsq_2d": lambda o: o.lstsq(B.astype(np.float32), np.array([[1.0], [2.0], [2.0]], np.float32)),
    "pinv": lambda o: o.pinv(B.astype(np.float32)),
    "matrix_rank": lambda o: o.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)),
    "depth_to_space": lambda o: o.depth_to_space(np.arange(16.0, dtype=np.float32).reshape(1, 1, 2, 8), 2),
    "space_to_depth_cf": lambda o: o.space_to_depth(np.arange(16.0, dtype=np.float32).reshape(1, 1, 4, 4), 2, data_format="channels_first"),
}

# name -> recorded Keras result: (values, dtype) or a list of them.
EXPECTED = {
    "nansum": ([2.0, 0.0, 6.5], "float32"),
    "nansum_int": (3, "int32"),
    "nanmean": ([[0.6666666865348816], [NAN], [2.1666667461395264]], "float32"),
    "nanmean_all": (1.4166666269302368, "float32"),
    "nanmean_int": (2.0, "float32"),
    "nanmax": ([3.0, NAN, 4.0], "float32"),
    "nanmin": ([1.0, 0.5, 3.0, -2.0], "float32"),
    "nanprod": ([-6.0, 1.0, 4.0], "float32"),
    "nanstd": ([2.054804801940918, NAN, 1.4337209463119507], "float32"),
    "nanvar": ([4.222222328186035, NAN, 2.055555582046509], "float32"),
    "nancumsum": ([[1.0, 1.0, 4.0, 2.0], [0.0, 0.0, 0.0, 0.0], [4.0, 4.5, 4.5, 6.5]], "float32"),
    "nancumsum_flat": ([1.0, 1.0, 4.0, 2.0, 2.0, 2.0, 2.0, 2.0, 6.0, 6.5, 6.5, 8.5], "float32"),
    "nancumprod": ([[1.0, 1.0, 3.0, -2.0], [1.0, 1.0, 3.0, -2.0], [4.0, 0.5, 3.0, -4.0]], "float32"),
    "nanargmax": ([2, -1, 0], "int32"),
    "nanargmin": ([3, -1, 1], "int32"),
    "nanargmax_all": (8, "int32"),
    "nanmedian": ([1.0, NAN, 2.0], "float32"),
    "nanpercentile": ([-0.19999992847442627, NAN, 1.4000000953674316], "float32"),
    "nanquantile": ([-0.5, NAN, 1.25], "float32"),
    "median": ([2.25, 5.5], "float32"),
    "median_all": (3.5, "float32"),
    "median_nan": ([NAN, NAN, NAN], "float32"),
    "median_int": ([[2.5, 1.0, 2.5]], "float32"),
    "percentile": ([[3.1999998092651367, 1.8000001907348633, 2.200000047683716, 1.9500000476837158], [4.0, 5.0, 3.0, 3.75], [5.0, 9.0, 4.0, 6.0]], "float32"),
    "quantile": ([[1.8000000715255737], [5.199999809265137]], "float32"),
    "quantile_lower": ([1.5, 5.0], "float32"),
    "quantile_higher": ([3.0, 6.0], "float32"),
    "quantile_midpoint": ([2.25, 5.5], "float32"),
    "quantile_nearest": ([[1.5, 5.0], [3.0, 6.0]], "float32"),
    "quantile_axes": ([7.5, 11.5, 15.5], "float32"),
    "signbit": ([True, False, True, False, True], "bool"),
    "nextafter": ([1.0, -0.0], "float32"),
    "gcd": ([4, 6, 5], "int32"),
    "lcm": ([12, 12, 0], "int32"),
    "isin": ([[False, False, True], [False, True, True]], "bool"),
    "isin_invert": ([[True, True, False], [True, False, False]], "bool"),
    "isreal": ([True, True, True, True], "bool"),
    "real": ([3.0, 1.0, 4.0, 1.5], "float32"),
    "imag": ([0.0, 0.0, 0.0, 0.0], "float32"),
    "conj": ([3.0, 1.0, 4.0, 1.5], "float32"),
    "left_shift": ([4, 6, -16], "int32"),
    "right_shift": ([2, 3, -4], "int32"),
    "unravel_index": [([1, 0, 2], "int32"), ([1, 0, 3], "int32")],
    "digitize": ([1, 4, 3, 2], "int32"),
    "searchsorted": ([1, 0, 4], "int32"),
    "searchsorted_right": ([3, 0, 4], "int32"),
    "bartlett": ([0.0, 0.5, 1.0, 0.5, 0.0], "float32"),
    "blackman": ([-1.4901161193847656e-08, 0.3400000333786011, 0.9999999403953552, 0.3399999737739563, -1.4901161193847656e-08], "float32"),
    "hamming": ([0.08000001311302185, 0.5400000214576721, 1.0, 0.5400000214576721, 0.08000001311302185], "float32"),
    "hanning": ([0.0, 0.5, 1.0, 0.5, 0.0], "float32"),
    "kaiser": ([0.3039661943912506, 0.7791666984558105, 1.0, 0.7791666984558105, 0.3039661943912506], "float32"),
    "cross": ([[-3.0, 6.0, -3.0]], "float32"),
    "cross_2d": (-2.0, "float32"),
    "cross_23": ([10.0, -5.0, -2.0], "float32"),
    "cross_axis": ([[-2.0, 4.0, -2.0], [-2.0, 4.0, -2.0]], "float32"),
    "correlate": ([3.5, 5.0], "float32"),
    "correlate_full": ([0.5, 2.0, 3.5, 5.0, 4.0, 0.0], "float32"),
    "correlate_same": ([2.0, 3.5, 5.0, 4.0], "float32"),
    "correlate_same_short": ([4.5, 2.0, 2.0, 0.0], "float32"),
    "correlate_valid_short": ([2.0, 2.0], "float32"),
    "corrcoef": ([[0.9999999403953552, -0.9434564113616943], [-0.9434564113616943, 1.0]], "float32"),
    "cdist": ([[3.1622776985168457, 2.0, 0.0], [10.29563045501709, 8.9442720413208, 8.246211051940918]], "float32"),
    "unique": ([1, 2, 3], "int32"),
    "unique_all": [([1, 2, 3], "int32"), ([1, 3, 0], "int32"), ([2, 0, 2, 1, 0], "int32"), ([2, 1, 2], "int32")],
    "unique_size": ([1, 3, -1, -1], "int32"),
    "nonzero": [([0, 0, 1, 1, 1], "int32"), ([0, 2, 0, 1, 2], "int32")],
    "bincount": ([0, 2, 0, 0, 1], "int32"),
    "bincount_w": ([0.0, 1.5, 0.0, 0.0, 2.0, 0.0], "float32"),
    "bincount_2d": ([[1, 1, 0, 1, 0], [0, 0, 2, 0, 1]], "int32"),
    "histogram": [([1.0, 2.0, 1.0, 1.0], "float32"), ([0.0, 1.0, 2.0, 3.0, 4.0], "float32")],
    "histogram_range": [([1.0, 3.0], "float32"), ([0.0, 1.0, 2.0], "float32")],
    "argpartition": ([1.5, 5.0], "float32"),
    "slogdet": [(-1.0, "float32"), (0.6931471824645996, "float32")],
    "erfinv": ([0.0, 0.47693631052970886, -1.1630871295928955], "float32"),
    "svd_s": ([10.191427230834961, 0.367137610912323], "float32"),
    "svd": [([[0.2167837768793106, 0.9389230608940125], [0.49045413732528687, 0.3414632976055145], [0.8440731167793274, 0.04273473098874092]], "float32"), ([10.191427230834961, 0.367137610912323], "float32"), ([[0.5797531008720398, 0.8147921562194824], [0.8147921562194824, 0.5797531008720398]], "float32")],
    "qr": [([[0.1690307855606079, 0.9486833810806274], [0.5070924758911133, 0.3162273168563843], [0.8451542258262634, 4.172325134277344e-07]], "float32"), ([[5.916079998016357, 8.282510757446289], [0.0, 0.6324548721313477]], "float32")],
    "qr_complete": [([[0.1690307855606079, 0.9486833810806274, 0.2672606110572815], [0.5070924758911133, 0.3162273168563843, 0.8017839193344116], [0.8451542258262634, 4.172325134277344e-07, 0.534522533416748]], "float32"), ([[5.916079998016357, 8.282510757446289], [0.0, 0.6324548721313477], [0.0, 0.0]], "float32")],
    "eigh": [([2.096522808074951, 3.0722241401672363, 6.831256866455078], "float32"), ([[0.7167432308197021, 0.3257673680782318, 0.6165671348571777], [0.5748728513717651, 0.7765018343925476, 0.2580046057701111], [0.3947160840034485, 0.5393706560134888, 0.7438271641731262]], "float32")],
    "lstsq": ([-0.21428748965263367, 0.5000013113021851], "float32"),
    "lstsq_2d": ([[-0.21428748965263367], [0.5000013113021851]], "float32"),
    "pinv": ([[-2.071429491043091, 0.7857130765914917, 0.1428578495979309], [1.5000005960464478, -0.49999916553497314, -5.066394805908203e-07]], "float32"),
    "matrix_rank": (1, "int32"),
    "depth_to_space": ([[[[0.0, 1.0], [2.0, 3.0], [8.0, 9.0], [10.0, 11.0]], [[4.0, 5.0], [6.0, 7.0], [12.0, 13.0], [14.0, 15.0]]]], "float32"),
    "space_to_depth_cf": ([[[[0.0, 2.0], [8.0, 10.0]], [[1.0, 3.0], [9.0, 11.0]], [[4.0, 6.0], [12.0, 14.0]], [[5.0, 7.0], [13.0, 15.0]]]], "float32"),
}


def _check(got, want, name):
    if isinstance(want, list):
        got = list(got)
        assert len(got) == len(want), name
        for g, w in zip(got, want, strict=True):
            _check(g, w, name)
        return
    values, dtype = want
    got = np.asarray(got)
    assert got.dtype.name == dtype, name
    np.testing.assert_allclose(got, np.asarray(values, dtype=got.dtype), rtol=1e-5, atol=1e-5,
                               err_msg=name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_keras(name):
    _check(CASES[name](ef.ops), EXPECTED[name], name)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN slices of the trace's sample values
@pytest.mark.parametrize("name", ["nanmean", "median", "quantile_axes", "nanpercentile", "cross",
                                  "correlate_full", "corrcoef", "cdist", "argpartition"])
def test_runs_inside_a_function(name):
    traced = ef.function(lambda: CASES[name](ef.ops))
    _check(traced(), EXPECTED[name], name)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on the all-NaN row
def test_nanquantile_with_several_q_is_numpys():
    np.testing.assert_allclose(ef.ops.nanquantile(X, [0.25, 0.9], axis=1).numpy(),
                               np.nanquantile(X, [0.25, 0.9], axis=1), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda: ef.ops.nonzero(ef.constant([1, 0])),
    lambda: ef.ops.unique(ef.constant([1, 0])),
    lambda: ef.ops.bincount(ef.constant([1, 0])),
])
def test_data_dependent_ops_refuse_to_trace_without_a_size(call):
    with pytest.raises(ef.errors.InvalidArgumentError, match="depends on the data"):
        ef.function(call)()


def test_a_static_size_makes_them_trace():
    unique = ef.function(lambda x: ef.ops.unique(x, size=3))
    np.testing.assert_array_equal(unique(ef.constant([2, 2, 5])).numpy(), [2, 5, 0])
    counts = ef.function(lambda x: ef.ops.bincount(x, minlength=3))
    np.testing.assert_array_equal(counts(ef.constant([0, 2, 2, 7])).numpy(), [1, 0, 2])

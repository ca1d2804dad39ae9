"""ef.ops's quantiles and NaN-ignoring reductions: forward against NumPy (NaNs included),
gradients to order 2 (0 at the NaNs), and the errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_rng = np.random.default_rng(11)
_DATA = _rng.uniform(-2, 2, size=(3, 5))
_WITH_NAN = _DATA.copy()
_WITH_NAN[0, 1] = _WITH_NAN[2, 4] = np.nan


def _gradient_at(f, x):
    x = ef.constant(x)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.reduce_sum(f(x))
    return tape.gradient(y, x).numpy()


CASES = [
    OpCase("median", lambda x: ef.ops.median(x, axis=1), lambda x: np.median(x, axis=1),
           inputs=[_DATA]),
    OpCase("quantile", lambda x: ef.ops.quantile(x, [0.1, 0.5, 0.8], axis=0),
           lambda x: np.quantile(x, [0.1, 0.5, 0.8], axis=0), inputs=[_DATA]),
    OpCase("percentile_keepdims", lambda x: ef.ops.percentile(x, 35.0, axis=-1, keepdims=True),
           lambda x: np.percentile(x, 35.0, axis=-1, keepdims=True), inputs=[_DATA]),
    OpCase("quantile_midpoint", lambda x: ef.ops.quantile(x, 0.3, method="midpoint"),
           lambda x: np.quantile(x, 0.3, method="midpoint"), inputs=[_DATA]),
    OpCase("nanmean", lambda x: ef.ops.nanmean(x * x, axis=1), lambda x: np.mean(x * x, 1),
           inputs=[_DATA]),
    OpCase("nanvar", lambda x: ef.ops.nanvar(x, axis=0), lambda x: np.var(x, 0),
           inputs=[_DATA]),
    OpCase("nanstd", lambda x: ef.ops.nanstd(x), lambda x: np.std(x), inputs=[_DATA]),
    OpCase("nanprod", lambda x: ef.ops.nanprod(x, axis=1), lambda x: np.prod(x, 1),
           inputs=[_DATA]),
    OpCase("nanmax", lambda x: ef.ops.nanmax(x, axis=1), lambda x: np.max(x, 1),
           inputs=[_DATA]),
    OpCase("nancumsum", lambda x: ef.ops.nancumsum(x * x, axis=1),
           lambda x: np.cumsum(x * x, 1), inputs=[_DATA]),
    OpCase("nancumprod", lambda x: ef.ops.nancumprod(x, axis=0), lambda x: np.cumprod(x, 0),
           inputs=[_DATA]),
    OpCase("nanmedian", lambda x: ef.ops.nanmedian(x, axis=0), lambda x: np.median(x, 0),
           inputs=[_DATA]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's all-NaN warnings
@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                                  "nanprod", "nanmedian"])
def test_nan_reductions_match_numpy(name):
    got = getattr(ef.ops, name)(_WITH_NAN, axis=1).numpy()
    np.testing.assert_allclose(got, getattr(np, name)(_WITH_NAN, axis=1), rtol=1e-12)
    grad = _gradient_at(lambda x: getattr(ef.ops, name)(x, axis=1), _WITH_NAN)
    assert grad[0, 1] == 0.0 and np.isfinite(grad[1]).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_all_nan_slices():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    assert np.isnan(ef.ops.nanmean(x, axis=1).numpy()[0])
    assert np.isnan(ef.ops.nanmax(x, axis=1).numpy()[0])
    assert ef.ops.nanargmax(x, axis=1).numpy().tolist() == [-1, 0]
    assert ef.ops.nanargmin(x, axis=1, keepdims=True).shape == (2, 1)
    np.testing.assert_allclose(ef.ops.nanquantile(x, 0.5, axis=1).numpy(), [np.nan, 1.0])
    assert np.isnan(ef.ops.median(x[1]).numpy())


def test_dtypes_follow_keras():
    ints = np.array([[1, 2], [3, 4]], np.int32)
    assert ef.ops.nansum(np.array([1, 2], np.int8)).dtype == np.int32
    assert ef.ops.nanmean(ints).dtype == np.float32
    assert ef.ops.median(ints).dtype == np.float32
    assert ef.ops.nanmax(ints).dtype == np.int32
    assert ef.ops.nanargmax(ints).dtype == np.int32
    assert ef.ops.nancumsum(np.array([True, True])).dtype == np.int32


@pytest.mark.parametrize("call, match", [
    (lambda: ef.ops.quantile([1.0, 2.0], 1.5), r"`q` must be in the range \[0, 1\]"),
    (lambda: ef.ops.percentile([1.0, 2.0], -1.0), r"`q` must be in the range \[0, 100\]"),
    (lambda: ef.ops.quantile([1.0, 2.0], 0.5, method="cubic"), "`method` must be one of"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()

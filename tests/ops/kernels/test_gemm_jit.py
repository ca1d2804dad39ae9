"""BLAS's product called from compiled kernels on strided slices
(eagerflow/ops/kernels/gemm_jit.py): NumPy's values, errors named."""

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("scipy")

from eagerflow.ops.kernels import gemm_jit  # noqa: E402 - after the skips


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("m", "n", "k"), [(3, 4, 5), (1, 1, 1), (64, 64, 16), (7, 33, 130)])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_products_match_numpy(dtype, m, n, k, transpose_a, transpose_b):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(k, m) if transpose_a else (m, k)).astype(dtype)
    b = rng.normal(size=(n, k) if transpose_b else (k, n)).astype(dtype)
    out = np.full((m, n), np.nan, dtype)
    gemm_jit.matmul(a, b, out, transpose_a, transpose_b)
    want = (a.T if transpose_a else a) @ (b.T if transpose_b else b)
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("m", "n", "k"), [(5, 4, 3), (1, 7, 9), (64, 33, 700)])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("parts", [1, 2, 3, 8])
def test_products_in_parts_match_numpy(dtype, m, n, k, transpose_a, transpose_b, parts):
    # by rows and by depth, more parts than the pool's threads and than rows or depth too
    # (a part with no rows writes nothing, one with no depth writes zeros)
    gemm_jit.require_blas()
    rng = np.random.default_rng(1)
    a = rng.normal(size=(k, m) if transpose_a else (m, k)).astype(dtype)
    b = rng.normal(size=(n, k) if transpose_b else (k, n)).astype(dtype)
    want = (a.T if transpose_a else a).astype(np.float64) @ (b.T if transpose_b else b)
    tol = k * (1e-6 if dtype == np.float32 else 1e-14)  # (the summation order is BLAS's)
    out = np.full((m, n), np.nan, dtype)
    gemm_jit.product_by_rows(parts, a, b, out, transpose_a, transpose_b)
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
    partials = np.full((parts, m, n), np.nan, dtype)
    gemm_jit.product_by_depth(parts, a, b, partials, transpose_a, transpose_b)
    np.testing.assert_allclose(partials.sum(0), want, rtol=tol, atol=tol)


def test_an_empty_inner_size_gives_zeros():
    out = np.full((2, 3), np.nan)
    gemm_jit.matmul(np.empty((2, 0)), np.empty((0, 3)), out)
    np.testing.assert_array_equal(out, 0.0)


def test_bad_arguments_are_named():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"gemm_jit.matmul: .*shapes \[\(2, 3\), \(2, 3\)"):
        gemm_jit.matmul(a, a, np.empty((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"dtypes \['float32', 'float64', 'float32'\]"):
        gemm_jit.matmul(a, a.T.astype(np.float64).copy(), np.empty((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"C-contiguous"):
        gemm_jit.matmul(a, a.T, np.empty((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"float32 or float64 .*dtypes \['float16'"):
        gemm_jit.matmul(*(np.ones((2, 2), np.float16) for _ in range(3)))


def test_a_missing_scipy_is_named(monkeypatch):
    import sys

    monkeypatch.setattr(gemm_jit, "_loaded", [])
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)  # `import` raises ImportError
    with pytest.raises(ImportError, match=r"through SciPy.*eagerflow\[fast\].*"
                                          r"EAGERFLOW_KERNELS=numpy"):
        gemm_jit.matmul(*(np.ones((2, 2)) for _ in range(3)))


def test_a_helper_that_computes_otherwise_is_an_error(monkeypatch):
    """numba_xxgemm is numba's helper, not its API: the first use checks its products."""
    monkeypatch.setattr(gemm_jit, "_loaded", [])
    monkeypatch.setattr(gemm_jit, "_matmul", lambda a, b, out, ta, tb: out.fill(0))
    with pytest.raises(RuntimeError, match=r"numba_xxgemm gave .* not .*EAGERFLOW_KERNELS"):
        gemm_jit.require_blas()
    assert gemm_jit._loaded == []  # checked again next time
    monkeypatch.undo()
    gemm_jit.require_blas()  # the installed numba passes

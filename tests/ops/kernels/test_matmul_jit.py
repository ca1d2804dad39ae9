"""The numba set's forward of BatchMatMulV2 (eagerflow/ops/kernels/matmul_jit.py): NumPy's
values, small products on one BLAS thread, the thread count restored, large products on
eagerflow's own threads while a split kernel uses them."""

import numpy as np
import pytest

pytest.importorskip("numba")

import threadpoolctl  # noqa: E402 - after the skip: the fast extra brings it with numba

import eagerflow as ef  # noqa: E402
from eagerflow.ops import linalg_ops  # noqa: E402, F401 - registers the kernel
from eagerflow.ops.kernels import blas_threads, jit, kernel_sets, matmul_jit  # noqa: E402


def _blas_threads():
    # NumPy's BLAS, the one `blas_threads` sets (the numba attention kernels load SciPy's
    # too, which keeps threads of its own; a wheel bundles each in its package's `.libs`)
    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas" and "scipy.libs" not in i["filepath"]]


# (a shape, b shape, transpose_a, transpose_b): below and above `SMALL` multiply-adds
CASES = [((3, 4), (4, 5), False, False), ((4, 3), (5, 4), True, True),
         ((2, 6, 4), (4, 7), False, False), ((2, 4, 6), (2, 7, 4), True, True),
         ((256, 256), (256, 64), False, False), ((256, 256), (64, 256), True, True),
         ((8, 128, 64), (8, 64, 96), False, False)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_values_are_numpys(case, dtype):
    a_shape, b_shape, transpose_a, transpose_b = case
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=a_shape).astype(dtype), rng.normal(size=b_shape).astype(dtype)
    want = kernel_sets.numpy_forward("BatchMatMulV2")(a, b, transpose_a, transpose_b)
    got = matmul_jit.matmul(a, b, transpose_a, transpose_b)
    np.testing.assert_array_equal(got, want)
    out = np.empty_like(want)
    assert matmul_jit.matmul(a, b, transpose_a, transpose_b, out=out) is out
    np.testing.assert_array_equal(out, want)


def test_small_products_run_on_one_thread_and_restore_the_count():
    before = _blas_threads()
    seen = []

    def forward(a, b, transpose_a, transpose_b, out):
        seen.append(_blas_threads())
        return a @ b

    small = np.ones((4, 4))
    assert blas_threads.one_blas_thread(forward, small, small, False, False, None).shape == (4, 4)
    assert seen == [[1] * len(before)]
    assert _blas_threads() == before
    with pytest.raises(ZeroDivisionError):  # restored when the product raises, too
        blas_threads.one_blas_thread(lambda: 1 / 0)
    assert _blas_threads() == before


def test_rank_one_operands_keep_the_ops_error():
    with pytest.raises(ef.errors.InvalidArgumentError, match="rank"):
        matmul_jit.matmul(np.ones(3), np.ones((3, 2)))


def test_the_numba_set_runs_it():
    assert kernel_sets.registered()["BatchMatMulV2"] == ("forward",)
    assert kernel_sets.kernel_forward("BatchMatMulV2") is matmul_jit.matmul


# (a shape, b shape, transpose_a, transpose_b, how the pool splits it), all above `SMALL`
# multiply-adds: by depth when the inner size is over `DEEP` times the result's rows
LARGE = [((3200, 32), (32, 256), False, False, "rows"),
         ((3200, 64), (3200, 256), True, False, "depth"),
         ((64, 3200), (256, 3200), False, True, "depth"),
         ((700, 33), (999, 700), True, True, "depth"),
         ((3, 1000), (1000, 999), False, False, "depth"),
         ((1000, 300), (300, 999), False, False, "rows")]


def _record_parts(monkeypatch):
    calls = []
    run_parts = jit.run_parts

    def recording(parallel, count, *args):
        calls.append(parallel.__name__.removeprefix("product_by_"))
        return run_parts(parallel, count, *args)

    monkeypatch.setattr(jit, "run_parts", recording)
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", LARGE)
def test_large_products_join_the_pool_while_it_is_busy(case, dtype, monkeypatch):
    a_shape, b_shape, transpose_a, transpose_b, split = case
    calls = _record_parts(monkeypatch)
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: True)
    rng = np.random.default_rng(0)
    a = rng.normal(size=a_shape).astype(dtype)
    b = rng.normal(size=b_shape).astype(dtype)
    want = kernel_sets.numpy_forward("BatchMatMulV2")(a, b, transpose_a, transpose_b)
    got = matmul_jit.matmul(a, b, transpose_a, transpose_b)
    out = np.full_like(want, np.nan)
    assert matmul_jit.matmul(a, b, transpose_a, transpose_b, out=out) is out
    # transposed views of the operands take the flag instead of a copy, other strides a copy
    flipped = matmul_jit.matmul(np.ascontiguousarray(a.T).T, b[:, ::-1][:, ::-1],
                                transpose_a, transpose_b)
    assert calls == [split] * 3
    tol = 1e-4 if dtype == np.float32 else 1e-12  # (another BLAS build; parts summed)
    for result in (got, out, flipped):
        assert result.dtype == dtype
        np.testing.assert_allclose(result, want, rtol=tol, atol=tol)


def test_products_blas_does_not_take_keep_the_numpy_forward(monkeypatch):
    calls = _record_parts(monkeypatch)
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: True)
    ints = np.ones((1000, 300), np.int64)
    np.testing.assert_array_equal(matmul_jit.matmul(ints, ints.T[:300, :999]), 300)
    mixed = matmul_jit.matmul(np.ones((1000, 300), np.float32), np.ones((300, 999)))
    assert mixed.dtype == np.float64 and mixed[0, 0] == 300
    strided_out = np.empty((999, 1000), np.float32).T
    halves = np.full((1000, 300), 0.5, np.float32)
    matmul_jit.matmul(halves, halves.T[:, :999].copy(), out=strided_out)
    np.testing.assert_array_equal(strided_out, 75.0)
    assert calls == []


def test_without_a_recent_split_large_products_keep_blas_threads(monkeypatch):
    monkeypatch.setattr(jit, "run_parts", lambda *args: pytest.fail("split"))
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: False)
    a = np.ones((3200, 32), np.float32)
    np.testing.assert_array_equal(matmul_jit.matmul(a, np.ones((32, 256), np.float32)), 32.0)
    # batched and mismatched products never split either
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: True)
    assert matmul_jit.matmul(np.ones((4, 800, 32)), np.ones((32, 256))).shape == (4, 800, 256)
    with pytest.raises(ef.errors.InvalidArgumentError, match="size-incompatible"):
        matmul_jit.matmul(np.ones((3200, 32)), np.ones((33, 256)))


def test_a_split_marks_the_threads_busy_for_a_window(monkeypatch):
    blas_threads.note_split()
    assert blas_threads.own_threads_busy()
    monkeypatch.setattr(blas_threads, "SPLIT_WINDOW", 0.0)
    assert not blas_threads.own_threads_busy()
    jit.run_split(lambda first, stop: None, 2)  # a split of two ranges notes itself
    monkeypatch.setattr(blas_threads, "SPLIT_WINDOW", 60.0)
    assert blas_threads.own_threads_busy() or jit.threads() == 1
    monkeypatch.setattr(blas_threads, "_last_split", [-1e9])
    assert not blas_threads.own_threads_busy()
    from eagerflow.ops.kernels import gemm_jit

    gemm_jit.require_blas()
    out = np.empty((2, 2))
    jit.run_parts(gemm_jit.product_by_rows, 2, np.eye(2), np.eye(2), out, False, False)
    assert blas_threads.own_threads_busy()  # so does a kernel in numba's pool
    np.testing.assert_array_equal(out, np.eye(2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("busy", [False, True])
@pytest.mark.parametrize("case", [((3200, 32), (32, 256), False, False, "rows"),
                                  ((300, 64), (256, 300), True, True, "depth"),
                                  ((3, 4), (4, 5), False, False, None),
                                  ((5, 3000), (3000, 256), False, False, "depth")])
def test_matmul_bias_equals_the_numpy_forward(case, busy, relu, dtype, monkeypatch):
    """In the pool's parts (bias and relu on each part's rows) or after a product on
    OpenBLAS's threads: the op's NumPy values bit for bit, NaN and signed zeros included,
    given the same product."""
    a_shape, b_shape, transpose_a, transpose_b, split = case
    calls = _record_parts(monkeypatch)
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: busy)
    rng = np.random.default_rng(2)
    a = rng.normal(size=a_shape).astype(dtype)
    b = rng.normal(size=b_shape).astype(dtype)
    n = b_shape[0] if transpose_b else b_shape[1]
    bias = rng.normal(size=n).astype(dtype)
    bias[:3] = -0.0, np.nan, -np.inf
    got = matmul_jit.matmul_bias(a, b, bias.reshape(1, n), transpose_a, transpose_b, relu)
    # by rows: bias and relu in the parts; by depth: after the summed parts
    assert calls == ([split] if busy and split else [])
    product = matmul_jit.matmul(a, b, transpose_a, transpose_b)  # (the same BLAS path)
    want = kernel_sets.numpy_forward("MatMulBias")(
        np.eye(product.shape[0], dtype=dtype), product, bias, False, False, relu)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.view(f"u{a.itemsize}"), want.view(f"u{a.itemsize}"))


def test_the_numba_set_runs_matmul_bias():
    assert kernel_sets.registered()["MatMulBias"] == ("forward",)
    assert kernel_sets.kernel_forward("MatMulBias") is matmul_jit.matmul_bias


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("busy", [False, True])
@pytest.mark.parametrize("shapes", [((3200, 64), (64, 50, 256), (0, 1)),
                                    ((2048, 64), (32, 64, 4, 16), (0, 1)),
                                    ((128, 256), (128, 256), (0,)),  # (by rows)
                                    ((300, 64), (300, 64), (0,))])  # (too small to split)
def test_matmul_sum_equals_the_numpy_forward(shapes, busy, dtype, monkeypatch):
    """Split by depth in the pool, each part adding its rows of the gradient in float64;
    otherwise the product and NumPy's sum."""
    a_shape, d_shape, axis = shapes
    calls = _record_parts(monkeypatch)
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: busy)
    rng = np.random.default_rng(3)
    a = rng.normal(size=a_shape).astype(dtype)
    d = rng.normal(size=d_shape).astype(dtype)
    rows = d.reshape(a_shape[0], -1)
    product, total = matmul_jit.matmul_sum(a, rows, d, axis)
    pooled = busy and a.size * rows.shape[1] >= matmul_jit.SMALL
    split = pooled and a_shape[0] > matmul_jit.DEEP * a_shape[1]  # (else by rows, NumPy's sum)
    assert calls == (["depth"] if split else ["rows"] if pooled else [])
    want_product, want_total = kernel_sets.numpy_forward("MatMulSum")(a, rows, d, axis)
    assert product.dtype == total.dtype == dtype and total.shape == want_total.shape
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(product, want_product, rtol=tol, atol=tol)
    exact = np.add.reduce(d.astype(np.float64), axis=axis)
    np.testing.assert_allclose(total, exact, rtol=tol, atol=tol)
    if not split:
        np.testing.assert_array_equal(total, want_total)


def test_the_numba_set_runs_matmul_sum():
    assert kernel_sets.registered()["MatMulSum"] == ("forward",)
    assert kernel_sets.kernel_forward("MatMulSum") is matmul_jit.matmul_sum

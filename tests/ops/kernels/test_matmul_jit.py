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


# (a shape, b shape, transpose_a, transpose_b), all above `SMALL` multiply-adds
LARGE = [((3200, 32), (32, 256), False, False), ((3200, 64), (3200, 256), True, False),
         ((64, 3200), (256, 3200), False, True), ((700, 33), (999, 700), True, True),
         ((3, 1000), (1000, 999), False, False)]


@pytest.mark.parametrize("case", LARGE)
def test_large_products_join_the_split_threads_while_they_are_busy(case, monkeypatch):
    a_shape, b_shape, transpose_a, transpose_b = case
    ranges = []

    def run_split(task, count):
        ranges.append(count)
        task(0, count // 2)  # two ranges, as on two threads
        task(count // 2, count)

    monkeypatch.setattr(jit, "run_split", run_split)
    monkeypatch.setattr(blas_threads, "own_threads_busy", lambda: True)
    rng = np.random.default_rng(0)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = rng.normal(size=b_shape).astype(np.float32)
    want = kernel_sets.numpy_forward("BatchMatMulV2")(a, b, transpose_a, transpose_b)
    got = matmul_jit.matmul(a, b, transpose_a, transpose_b)
    out = np.full_like(want, np.nan)
    assert matmul_jit.matmul(a, b, transpose_a, transpose_b, out=out) is out
    assert ranges == [want.shape[0]] * 2
    for result in (got, out):  # OpenBLAS's thread count may change the rounding
        np.testing.assert_allclose(result, want, rtol=1e-5, atol=1e-4)


def test_without_a_recent_split_large_products_keep_blas_threads(monkeypatch):
    monkeypatch.setattr(jit, "run_split", lambda task, count: pytest.fail("split"))
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

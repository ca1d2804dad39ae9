"""BLAS's matrix product called from compiled kernels on strided slices, without copies.

numba's ``np.dot`` calls BLAS from inside a kernel, but only on contiguous matrices, so a
kernel looping over the heads of a ``(batch, steps, heads, size)`` array had to copy each
head into a block first (a quarter of the attention kernels' time at 64 steps of 16).
BLAS itself reads any row-major matrix whose rows are evenly spaced: its *leading
dimension* is the distance between rows. `product` passes the leading dimensions to the
routine ``np.dot`` itself goes through (numba's C helper ``numba_xxgemm``, which calls
``sgemm``/``dgemm`` of SciPy's ``cython_blas``), so one head of such an array is
multiplied where it lies. The helper is called by its symbol name, so kernels using it are
cached on disk like any other (a ctypes function, by address, would cost ~3 us of typing
per call and forbid the cache as a global).

The values are BLAS's, as NumPy's ``matmul`` (which calls the same routine on the same
strided views): equal up to the two OpenBLAS builds' kernels (NumPy's and SciPy's).
SciPy is part of the ``fast`` extra: `require_blas` says so when it is missing (the helper
would fail inside a kernel, where it cannot raise).

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import gemm_jit
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> out = np.empty((2, 2))
    >>> gemm_jit.matmul(a, a, out, transpose_b=True)  # a @ a.T, through the kernel helper
    >>> out
    array([[ 5., 14.],
           [14., 50.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.ops.kernels import blas_threads, jit, kernel_sets

_types = jit.numba.types  # (numba is imported in jit.py only)
# int numba_xxgemm(char kind, char transa, char transb, intp m, intp n, intp k, void *alpha,
#                  void *a, intp lda, void *b, intp ldb, void *beta, void *c, intp ldc):
# Fortran's ?gemm (column-major) for kind "s"/"d"/"c"/"z" (numba/_lapack.c).
_xxgemm: Any = _types.ExternalFunction("numba_xxgemm", _types.intc(
    _types.char, _types.char, _types.char, _types.intp, _types.intp, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp, _types.voidptr, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp))
_loaded: list = []


def require_blas() -> None:
    """Loads SciPy's BLAS (`blas_threads.load_scipy_blas`) and checks that numba's helper
    computes with it what NumPy does (call before a kernel using `product`).

    ``numba_xxgemm`` is numba's own C helper, not a documented API: the first call
    multiplies small integer matrices (exact in floating point) through it, both dtypes
    and every transposition, so a numba whose helper changed meaning is an error here
    instead of wrong products later.

    Raises:
        ImportError: when SciPy is not installed (it is part of the ``fast`` extra).
        RuntimeError: when the helper's products differ from NumPy's.
    """
    if not _loaded:
        cython_blas = blas_threads.load_scipy_blas()
        _self_check()
        _loaded.append(cython_blas)


def _self_check() -> None:
    for dtype in (np.float32, np.float64):
        a = np.arange(6, dtype=dtype).reshape(2, 3) - 2
        b = np.arange(12, dtype=dtype).reshape(3, 4) * 3 - 7
        for transpose_a in (False, True):
            for transpose_b in (False, True):
                left = np.ascontiguousarray(a.T) if transpose_a else a
                right = np.ascontiguousarray(b.T) if transpose_b else b
                out = np.full((2, 4), np.nan, dtype)
                _matmul(left, right, out, transpose_a, transpose_b)
                if not np.array_equal(out, a @ b):
                    raise RuntimeError(
                        f"gemm_jit: numba {jit.numba.__version__}'s BLAS helper "
                        f"numba_xxgemm gave {out.tolist()} for {a.tolist()} @ {b.tolist()} "
                        f"({np.dtype(dtype).name}, transpose_a={transpose_a}, transpose_b="
                        f"{transpose_b}), not {(a @ b).tolist()}: this numba is not one the "
                        "attention kernels support; set EAGERFLOW_KERNELS=numpy")


@jit.kernel
def scalars(like):  # pragma: no cover - compiled
    """``[1, 0]`` in the dtype of the array `like`: BLAS's alpha and beta, by address."""
    one_zero = np.empty(2, like.dtype)
    one_zero[0] = 1
    one_zero[1] = 0
    return one_zero


@jit.kernel
def product(one_zero, a, lda, transpose_a, b, ldb, transpose_b, c, ldc, m, n,
            k):  # pragma: no cover - compiled
    """``C = op(A) op(B)`` for row-major matrices starting at the first element of the
    arrays `a`, `b`, `c` (views: ``x[i, 0, h:]`` starts at ``x[i, 0, h, 0]``).

    ``A`` is ``(m, k)``, or ``(k, m)`` when `transpose_a`, with `lda` elements from a row
    to the next; ``B`` likewise ``(k, n)`` or ``(n, k)``; ``C`` is ``(m, n)``, rows `ldc`
    apart. `one_zero` comes from `scalars`. Column-major BLAS computes the transpose,
    ``C^T = op(B)^T op(A)^T``, reading each row-major matrix as its column-major
    transpose: so B goes first.
    """
    kind = 115 if c.itemsize == 4 else 100  # "s" (float32) or "d" (float64)
    _xxgemm(kind, 84 if transpose_b else 78, 84 if transpose_a else 78, n, m, k,  # T / N
            one_zero[0:].ctypes, b.ctypes, max(ldb, 1), a.ctypes, max(lda, 1),
            one_zero[1:].ctypes, c.ctypes, max(ldc, 1))  # (BLAS refuses 0 even if empty)


@jit.kernel
def _matmul(a, b, out, transpose_a, transpose_b):  # pragma: no cover - compiled
    m, n = out.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    product(scalars(out), a, a.shape[1], transpose_a, b, b.shape[1], transpose_b, out, n, m,
            n, k)


# -- one product over numba's threads (`jit.run_parts`; `matmul_jit` calls these) ----------
# Both take C-contiguous operands (a transposed operand as the C-contiguous array and the
# flag) and one BLAS thread per part.

@jit.parallel_kernel
def product_by_rows(parts, a, b, out, transpose_a, transpose_b, bias=None,
                    relu=False):  # pragma: no cover - compiled
    """``out = op(a) @ op(b)``, each part a range of `out`'s rows; then, if `bias` is given,
    each row plus `bias` and, if `relu`, ``max(., 0)`` as NumPy's ``maximum`` gives it
    (NaN kept, -0.0 to 0.0), on the part's rows while they are in cache."""
    m, n = out.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    one_zero = scalars(out)
    for part in jit.prange(parts):
        first, stop = jit.part_bounds(m, parts, part)
        if stop > first:
            rows = a[:, first:] if transpose_a else a[first:]
            product(one_zero, rows, a.shape[1], transpose_a, b, b.shape[1], transpose_b,
                    out[first:], n, stop - first, n, k)
            if bias is not None:
                for i in range(first, stop):
                    for j in range(n):
                        value = out[i, j] + bias[j]
                        out[i, j] = 0 if relu and value <= 0 else value


@jit.sum_kernel
def _add_rows(x, first, stop, total):  # pragma: no cover - compiled
    """``total += x[first:stop].sum(axis=0)``, in `total`'s dtype (float64)."""
    acc = np.zeros(x.shape[1])
    for i in range(first, stop):
        for j in range(x.shape[1]):
            acc[j] += x[i, j]
    for j in range(x.shape[1]):
        total[j] += acc[j]


@jit.parallel_kernel
def product_by_depth(parts, a, b, partials, transpose_a, transpose_b,
                     sums=None):  # pragma: no cover - compiled
    """``partials[p] = op(a)[:, ks] @ op(b)[ks, :]`` for part ``p``'s range ``ks`` of the
    inner dimension (its sum over ``p`` is the product): for a short, wide result over a
    long inner dimension (a weight's gradient, summed over the batch), where ranges of
    rows would leave each thread a thin product (at m, n, k = 64, 256, 3200 on two threads:
    710 us against 830 by rows, one thread 1,300). With `sums` (float64, one row per part;
    `b` not transposed), ``sums[p]`` gets the column sums of ``b[ks]`` too, read while
    those rows are in cache: a dense layer's bias gradient beside its kernel's."""
    m, n = partials.shape[1], partials.shape[2]
    k = a.shape[0] if transpose_a else a.shape[1]
    one_zero = scalars(partials)
    for part in jit.prange(parts):
        first, stop = jit.part_bounds(k, parts, part)
        left = a[first:] if transpose_a else a[:, first:]
        right = b[:, first:] if transpose_b else b[first:]
        product(one_zero, left, a.shape[1], transpose_a, right, b.shape[1], transpose_b,
                partials[part], n, m, n, stop - first)
        if sums is not None:
            _add_rows(b, first, stop, sums[part])


def matmul(a, b, out, transpose_a=False, transpose_b=False) -> None:
    """``out = op(a) @ op(b)`` for C-contiguous 2-D float32 or float64 arrays of one dtype,
    through `product` (the kernels' helper, for tests and examples).

    Raises:
        ValueError: for arrays of other ranks, dtypes, layouts or mismatched shapes.
        ImportError: without SciPy.
    """
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    k2, n = (b.shape[1], b.shape[0]) if transpose_b else b.shape
    arrays = (a, b, out)
    if (any(x.ndim != 2 or not x.flags.c_contiguous or x.dtype != a.dtype for x in arrays)
            or a.dtype not in kernel_sets.COMPILED_DTYPES or k != k2 or out.shape != (m, n)
            or not out.flags.writeable):
        raise ValueError(
            f"gemm_jit.matmul: expected C-contiguous 2-D float32 or float64 arrays of one "
            f"dtype with op(a) (m, k), op(b) (k, n) and a writable out (m, n). Received: "
            f"shapes {[x.shape for x in arrays]}, dtypes {[x.dtype.name for x in arrays]}, "
            f"transpose_a={transpose_a}, transpose_b={transpose_b}")
    require_blas()
    _matmul(a, b, out, transpose_a, transpose_b)

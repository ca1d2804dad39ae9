"""BLAS's matrix product called from compiled kernels on strided slices, without copies.

numba's ``np.dot`` calls BLAS from inside a kernel, but only on contiguous matrices, so a
kernel looping over the heads of a ``(batch, steps, heads, size)`` array had to copy each
head into a block first (a quarter of the attention kernels' time at 64 steps of 16).
BLAS itself reads any row-major matrix whose rows are evenly spaced: its *leading
dimension* is the distance between rows. `product` calls ``sgemm``/``dgemm`` of SciPy's
``cython_blas`` (the routines numba's ``np.dot`` uses) with the leading dimensions given,
on addresses inside the arrays, so one head of such an array is multiplied where it lies.

The routine is found through SciPy's exported C API (a capsule holding its address) with
ctypes, and reaches kernels as an argument (`routine`), not a global: numba then caches the
compiled kernel on disk (an address baked into the code would forbid the cache). The
ctypes argument blocks (`Params`) are allocated once per kernel call, not per product.

The values are BLAS's, as NumPy's ``matmul`` (which calls the same routine on the same
strided views): equal up to the two OpenBLAS builds' kernels (NumPy's and SciPy's).

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

import ctypes

import numpy as np

from eagerflow.ops.kernels import jit

_VOID_P = ctypes.c_void_p
# ?gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc): Fortran, every
# argument by address.
_GEMM = ctypes.CFUNCTYPE(None, *[_VOID_P] * 13)
_routines: dict = {}


def _capsule_address(capsule) -> int:
    """The address a PyCapsule holds (SciPy's C API exports its BLAS routines so)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = _VOID_P
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))


def routine(dtype):
    """BLAS's ``sgemm`` (float32) or ``dgemm`` (float64) as a ctypes function, for kernels.

    Raises:
        ImportError: when SciPy is not installed (it is part of the ``fast`` extra).
        TypeError: for another dtype.
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"gemm_jit.routine: BLAS products need float32 or float64 arrays. "
                        f"Received: dtype={dtype.name}")
    if dtype not in _routines:
        try:
            from scipy.linalg import cython_blas
        except ImportError as e:
            raise ImportError('the numba attention kernels call BLAS through SciPy; install '
                              'it with pip install "eagerflow[fast]" (or pip install scipy)'
                              ) from e
        name = "sgemm" if dtype == np.float32 else "dgemm"
        _routines[dtype] = _GEMM(_capsule_address(cython_blas.__pyx_capi__[name]))
    return _routines[dtype]


@jit.kernel
def params(dtype_of):  # pragma: no cover - compiled
    """The argument blocks of `product` (`dtype_of`: an array of the products' dtype):
    two flag characters, six integers, the scalars one and zero."""
    flags = np.empty(2, np.uint8)
    sizes = np.empty(6, np.int32)
    scalars = np.empty(2, dtype_of.dtype)
    scalars[0] = 1
    scalars[1] = 0
    return flags, sizes, scalars


@jit.kernel
def product(routine, params, a, a_offset, lda, transpose_a, b, b_offset, ldb,
            transpose_b, c, c_offset, ldc, m, n, k):  # pragma: no cover - compiled
    """``C = op(A) op(B)`` for row-major matrices inside flat arrays.

    ``A`` starts at ``a[a_offset]`` with `lda` elements between its rows, and is ``(m, k)``,
    or ``(k, m)`` when `transpose_a`; ``B`` likewise ``(k, n)`` or ``(n, k)``; ``C`` is
    ``(m, n)`` at ``c[c_offset]``, rows `ldc` apart. Column-major BLAS computes the
    transpose, ``C^T = op(B)^T op(A)^T``, reading each row-major matrix as the column-major
    transpose: so B goes first.
    """
    flags, sizes, scalars = params
    flags[0] = 84 if transpose_b else 78  # "T" / "N"
    flags[1] = 84 if transpose_a else 78
    sizes[0] = n
    sizes[1] = m
    sizes[2] = k
    sizes[3] = max(ldb, 1)  # (BLAS refuses 0, even for empty matrices)
    sizes[4] = max(lda, 1)
    sizes[5] = max(ldc, 1)
    item = c.itemsize
    routine(flags[0:].ctypes, flags[1:].ctypes, sizes[0:].ctypes, sizes[1:].ctypes,
            sizes[2:].ctypes, scalars[0:].ctypes, b.ctypes.data + b_offset * item,
            sizes[3:].ctypes, a.ctypes.data + a_offset * item, sizes[4:].ctypes,
            scalars[1:].ctypes, c.ctypes.data + c_offset * item, sizes[5:].ctypes)


@jit.kernel
def _matmul(routine, a, b, out, transpose_a, transpose_b):  # pragma: no cover - compiled
    m, n = out.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    product(routine, params(a), a.reshape(-1), 0, a.shape[1], transpose_a, b.reshape(-1), 0,
            b.shape[1], transpose_b, out.reshape(-1), 0, n, m, n, k)


def matmul(a, b, out, transpose_a=False, transpose_b=False) -> None:
    """``out = op(a) @ op(b)`` for C-contiguous 2-D arrays of one float dtype, through
    `product` (the kernels' helper, for tests and examples).

    Raises:
        ValueError: for arrays of other ranks, dtypes, layouts or mismatched shapes.
    """
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    k2, n = (b.shape[1], b.shape[0]) if transpose_b else b.shape
    arrays = (a, b, out)
    if (any(x.ndim != 2 or not x.flags.c_contiguous or x.dtype != a.dtype for x in arrays)
            or k != k2 or out.shape != (m, n) or not out.flags.writeable):
        raise ValueError(
            f"gemm_jit.matmul: expected C-contiguous 2-D arrays of one dtype with op(a) "
            f"(m, k), op(b) (k, n) and a writable out (m, n). Received: shapes "
            f"{[x.shape for x in arrays]}, dtypes {[x.dtype.name for x in arrays]}, "
            f"transpose_a={transpose_a}, transpose_b={transpose_b}")
    _matmul(routine(a.dtype), a, b, out, transpose_a, transpose_b)

"""NumPy's BLAS threads, set for a block or one call (threadpoolctl).

The numba kernel set runs some work with OpenBLAS on one thread (see `jit.run_parts`,
`jit.run_split` and `matmul_jit`). This module imports no numba, so a kernel that only
needs a thread setting (`matmul_jit`) does not load numba and its ~110-140 MiB;
threadpoolctl (part of the ``fast`` extra) is imported on first use.
"""

from __future__ import annotations

import contextlib
import ctypes
import time
from collections.abc import Callable, Iterator
from typing import Any

_blas: list = []  # see `_controller`
_fast: list = []  # see `_switches`
_last_split = [-1e9]  # `time.monotonic()` when work was last split (`note_split`)

SPLIT_WINDOW = 0.5
"""Seconds after a split during which products join numba's pool (`own_threads_busy`):
longer than OpenBLAS's workers spin after a product (2^28 cycles, ~0.1 s), so a training
step's products keep joining it from one step to the next."""


def note_split() -> None:
    """Records that work is being split over eagerflow's threads (`jit.run_parts` in
    numba's pool, `jit.run_split` in Python threads)."""
    _last_split[0] = time.monotonic()


def own_threads_busy() -> bool:
    """Whether work was split (`note_split`) within the last `SPLIT_WINDOW` seconds: then a
    large product runs in numba's pool too (`matmul_jit`), instead of waking OpenBLAS's
    workers, which would keep spinning against the next split kernel."""
    return time.monotonic() - _last_split[0] < SPLIT_WINDOW


@contextlib.contextmanager
def blas_limited(limit: int = 1) -> Iterator[None]:
    """Runs the block with NumPy's BLAS on at most `limit` threads (threadpoolctl).

    Process-wide while it lasts: a product another Python thread runs meanwhile also gets
    `limit` threads.
    """
    with _controller().limit(limits=limit):
        yield


def one_blas_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with NumPy's BLAS (and SciPy's, once loaded) on one thread, for single
    calls too short to pay for `blas_limited` (~10 us): the thread counts are read and set
    through the libraries' own functions (`_switches`, ~1 us for both), then restored."""
    switches = _switches()
    before = [get() for get, _ in switches]
    if all(count == 1 for count in before):
        return fn(*args)
    for _, set_count in switches:
        set_count(1)
    try:
        return fn(*args)
    finally:
        for (_, set_count), count in zip(switches, before, strict=True):
            set_count(count)


_OPENBLAS_AFFIXES = [(prefix, suffix) for prefix in ("", "scipy_")
                     for suffix in ("", "64_", "_64")]


def _switches() -> list:
    """``(get, set)`` of each BLAS library's thread count, found once per `rescan`: for
    OpenBLAS the library's ``openblas_get_num_threads``/``openblas_set_num_threads`` as
    ctypes functions, under whichever symbol prefix and suffix the build uses (NumPy's wheel
    exports ``scipy_openblas_set_num_threads64_``); threadpoolctl's methods otherwise (an
    order of magnitude slower: ~20 us a call of `one_blas_thread` for two libraries)."""
    if not _fast:
        switches = []
        for library in _controller().lib_controllers:
            found = None
            if library.internal_api == "openblas":
                for prefix, suffix in _OPENBLAS_AFFIXES:
                    get = getattr(library.dynlib, f"{prefix}openblas_get_num_threads{suffix}",
                                  None)
                    put = getattr(library.dynlib, f"{prefix}openblas_set_num_threads{suffix}",
                                  None)
                    if get is not None and put is not None:
                        get.restype, get.argtypes = ctypes.c_int, []
                        put.restype, put.argtypes = None, [ctypes.c_int]
                        found = (get, put)
                        break
            switches.append(found or (library.get_num_threads, library.set_num_threads))
        _fast.append(switches)
    return _fast[0]


def _controller():
    """threadpoolctl's controller of NumPy's BLAS, found once (finding it scans the loaded
    libraries)."""
    if not _blas:
        import threadpoolctl  # (the fast extra's; imported when a thread setting is first made)

        _blas.append(threadpoolctl.ThreadpoolController().select(user_api="blas"))
    return _blas[0]


def load_scipy_blas() -> Any:
    """Loads SciPy's BLAS, the one kernels call from compiled code (numba's ``np.dot`` in
    `rnn_sequence_jit`, `gemm_jit`), and has the thread settings find its pool (`rescan`).
    Returns ``scipy.linalg.cython_blas``.

    Raises:
        ImportError: naming the way out, when SciPy is not installed.
    """
    try:
        from scipy.linalg import cython_blas
    except ImportError as e:
        raise ImportError('the numba kernels call BLAS through SciPy, which is not '
                          'installed: pip install "eagerflow[fast]" (or pip install '
                          'scipy), or set EAGERFLOW_KERNELS=numpy') from e
    rescan()
    return cython_blas


def rescan() -> None:
    """Finds the loaded BLAS libraries again at the next thread setting: for a library
    loaded after the first setting (scipy's OpenBLAS, which numba's compiled ``np.dot``
    calls: `rnn_sequence_jit`), which the settings would otherwise leave alone."""
    _blas.clear()
    _fast.clear()

"""BLAS thread settings (eagerflow/ops/kernels/blas_threads.py): the libraries' own
thread-count functions, found under the build's symbol names, set and restore what
threadpoolctl reports."""

import numpy as np
import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")

from eagerflow.ops.kernels import blas_threads  # noqa: E402 - after the skip


def _counts():
    return [(i["filepath"], i["num_threads"]) for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas"]


def test_the_switches_read_what_threadpoolctl_reports():
    blas_threads.rescan()
    libraries = blas_threads._controller().lib_controllers
    switches = blas_threads._switches()
    assert len(switches) == len(libraries)
    for library, (get, _) in zip(libraries, switches, strict=True):
        assert get() == library.get_num_threads()
        if library.internal_api == "openblas":  # NumPy's wheel: scipy_..._64_ symbols
            assert type(get).__name__ == "_FuncPtr"


def test_one_blas_thread_sets_every_library_and_restores_it():
    pytest.importorskip("scipy")
    from scipy.linalg import cython_blas  # noqa: F401 - a second OpenBLAS, loaded late

    blas_threads.rescan()
    before = _counts()
    seen = blas_threads.one_blas_thread(_counts)
    assert [count for _, count in seen] == [1] * len(before)
    assert _counts() == before
    with pytest.raises(ZeroDivisionError):
        blas_threads.one_blas_thread(lambda: 1 / 0)
    assert _counts() == before
    np.testing.assert_array_equal(blas_threads.one_blas_thread(np.dot, np.eye(2), [1, 2]),
                                  [1, 2])

"""Collection rules for the doctests of the package (``pytest --doctest-modules``)."""

import importlib.util

# The compiled kernels (and fusion's compiled interpreter) import numba (and SciPy's BLAS)
# at their top: without the `fast` extra, their modules are not collected (their tests
# skip).
_FAST = all(importlib.util.find_spec(name) for name in ("numba", "scipy", "threadpoolctl"))
collect_ignore_glob = [] if _FAST else [
    "eagerflow/ops/kernels/jit.py", "eagerflow/ops/kernels/*_jit.py",
    "eagerflow/graph/passes/fusion_jit.py"]

"""Collection rules for the doctests of the package (``pytest --doctest-modules``)."""

from eagerflow.ops.kernels import kernel_sets

# The compiled kernels (and fusion's compiled interpreter) import numba (and SciPy's BLAS)
# at their top: without the `fast` extra (`kernel_sets.NEEDS`), their modules are not
# collected (their tests skip).
collect_ignore_glob = [] if kernel_sets.fast_installed() else [
    "eagerflow/ops/kernels/jit.py", "eagerflow/ops/kernels/*_jit.py",
    "eagerflow/graph/passes/fusion_jit.py"]

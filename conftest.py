"""Collection rules for the doctests of the package (``pytest --doctest-modules``)."""

import importlib.util

# The compiled kernels (and fusion's compiled interpreter) import numba at their top:
# without the `fast` extra, their modules are not collected (their tests skip).
collect_ignore_glob = [] if importlib.util.find_spec("numba") else [
    "eagerflow/ops/kernels/jit.py", "eagerflow/ops/kernels/*_jit.py",
    "eagerflow/graph/passes/fusion_jit.py"]

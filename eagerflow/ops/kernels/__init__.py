"""Kernels of the ops, on ndarrays (they know nothing of tensors).

* NumPy-level helpers: im2col, sliding windows, scratch buffers, saved results and the
  process's malloc thresholds;
* the compiled kernels (``*_jit.py``, numba, in the ``fast`` extra) and `kernel_sets`, which
  installs them as the forwards of existing ops when the numba kernel set is active;
  `jit` is the only module that imports numba.
"""

"""NumPy-level helpers of the ops: im2col, sliding windows, scratch buffers, saved results
and the process's malloc thresholds. They work on ndarrays and know nothing of tensors."""

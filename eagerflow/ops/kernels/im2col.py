"""im2col: a convolution's window matrix.

`columns` copies every window of the padded NHWC input into one matrix (one row per
output pixel), so a convolution is a single BLAS matmul. Building it is the largest
non-BLAS cost of a convolution (about 1 ms for a (64, 14, 14, 32) input with a 3x3
kernel: the matrix is 9x the input), and the filter gradient needs exactly the matrix the
forward pass built, so `conv.py` saves it for the gradient with `saved.py` while a tape
is recording.

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import im2col
    >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
    >>> im2col.columns(x, (2, 2), (1, 1), (1, 1), ((0, 0), (0, 0)), (2, 2), 1)[0]
    array([0., 1., 3., 4.])
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import scratch, windows


def columns(x, kernel, strides, dilations, pads, out_sizes, groups) -> np.ndarray:
    """The im2col matrix: ``(M, kh*kw*c)``, or ``(groups, M, kh*kw*c/groups)`` if grouped.

    For a single input channel the matrix is built transposed, ``(kh*kw, M)``, by one
    contiguous slice copy per kernel offset, and returned as its ``.T`` view: the window
    view's innermost run would be a single element there, which makes the one-shot
    reshape copy several times slower.

    Args:
        x: the NHWC input ndarray (unpadded).
        kernel, strides, dilations: per spatial dimension.
        pads: ``((top, bottom), (left, right))``.
        out_sizes: the output's spatial sizes.
        groups: the number of groups of a grouped convolution.

    Returns:
        The matrix, ``M = n * oh * ow`` rows in NHWC output order, columns ordered
        ``(kh, kw, c)`` like a flattened filter, on `scratch` memory.
    """
    n, c = x.shape[0], x.shape[3]
    xp = windows.pad(x, pads, allocate=scratch.empty)
    m = n * out_sizes[0] * out_sizes[1]
    if c == 1 and groups == 1:
        cols_t = scratch.empty((kernel[0], kernel[1], n) + tuple(out_sizes), x.dtype)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                cols_t[i, j] = xp[windows.offset_slices(i, j, strides, dilations,
                                                        out_sizes)][..., 0]
        cols: np.ndarray = cols_t.reshape(kernel[0] * kernel[1], m).T
    else:
        view = windows.patches(xp, kernel, strides, dilations, out_sizes)
        if groups > 1:  # (groups, n, oh, ow, kh, kw, c / groups)
            view = view.reshape(view.shape[:5] + (groups, c // groups))
            view = view.transpose(5, 0, 1, 2, 3, 4, 6)
        cols = scratch.empty(view.shape, x.dtype)
        np.copyto(cols, view)
        cols = cols.reshape(m, -1) if groups == 1 else cols.reshape(groups, m, -1)
    return cols

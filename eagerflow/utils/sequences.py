"""`pad_sequences`: lists of different lengths to one rectangular array (Keras's helper).

Examples:
    >>> import eagerflow as ef
    >>> ef.utils.pad_sequences([[1, 2], [3]], padding="post")
    array([[1, 2],
           [3, 0]], dtype=int32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.ops.typing import DTypeLike


def pad_sequences(sequences: Any, maxlen: Any = None, dtype: DTypeLike = "int32",
                  padding: str = "pre", truncating: str = "pre", value: float = 0.0) -> np.ndarray:
    """Pads (and truncates) sequences to a common length.

    Args:
        sequences: a list of sequences (lists or arrays); each may have trailing
            dimensions, which must agree across the sequences.
        maxlen: the length of the result; default the longest sequence.
        dtype: the result's dtype (``"int32"``; use ``"object"`` or a string dtype for
            text).
        padding: ``"pre"`` (pad at the start, the default) or ``"post"``.
        truncating: ``"pre"`` (drop from the start, the default) or ``"post"``, for
            sequences longer than `maxlen`.
        value: the padding value.

    Returns:
        An array of shape ``(len(sequences), maxlen, *trailing)``.

    Raises:
        ValueError: for an unknown `padding`/`truncating`, a non-iterable sequence,
            mismatched trailing shapes, or a non-numeric `value` with a numeric dtype.

    Examples:
        >>> import eagerflow as ef
        >>> ef.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2, value=-1)
        array([[ 2,  3],
               [-1,  4]], dtype=int32)
    """
    for name, option in (("padding", padding), ("truncating", truncating)):
        if option not in ("pre", "post"):
            raise ValueError(f"pad_sequences: {name} must be 'pre' or 'post', got {option!r}.")
    lengths, items = [], []
    for i, sequence in enumerate(sequences):
        if not hasattr(sequence, "__len__"):
            raise ValueError(f"pad_sequences: sequence {i} is not a sequence (got "
                             f"{type(sequence).__name__}: {sequence!r}).")
        lengths.append(len(sequence))
        items.append(sequence)
    if maxlen is None:
        maxlen = max(lengths, default=0)
    if int(maxlen) < 0:
        raise ValueError(f"pad_sequences: maxlen must be non-negative, got {maxlen}.")
    maxlen = int(maxlen)
    trailing = None
    for i, sequence in enumerate(items):
        if len(sequence):
            shape = np.asarray(sequence).shape[1:]
            if trailing is None:
                trailing = shape
            elif shape != trailing:
                raise ValueError(f"pad_sequences: sequence {i} has items of shape {shape}, "
                                 f"but earlier ones have {trailing}; they must agree.")
    trailing = trailing or ()
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.dtype(dtype) == object
    if isinstance(value, str) and not is_text:
        raise ValueError(f"pad_sequences: value {value!r} is a string but dtype {dtype} is "
                         "not; pass dtype='object' (or a string dtype) to pad text.")
    out = np.full((len(items), maxlen, *trailing), value, dtype=dtype)
    for i, sequence in enumerate(items):
        if not len(sequence) or not maxlen:
            continue
        kept = np.asarray(sequence, dtype=dtype)
        kept = kept[-maxlen:] if truncating == "pre" else kept[:maxlen]
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, maxlen - len(kept):] = kept
    return out

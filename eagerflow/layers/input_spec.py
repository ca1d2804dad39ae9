"""InputSpec: the rank and sizes a layer accepts, checked on every call.

A layer sets ``self.input_spec`` in ``__init__`` (the rank it needs) and refines it in
``build`` (the sizes its weights were built for). Each call then checks its input with a
few integer comparisons and fails with a message naming the layer, the expected and the
received shape, instead of a matmul error deep inside.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(3, name="dense")
    >>> _ = layer(ef.ones([2, 784]))
    >>> layer(ef.ones([2, 100]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    ValueError: Input 0 of layer 'dense' is incompatible with the layer: ... 784 ... (2, 100).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.ops.typing import DTypeLike


class InputSpec:
    """The rank, sizes and dtype a layer accepts.

    Args:
        dtype: required dtype, or None.
        shape: required shape (None entries match anything), or None.
        ndim: exact rank, or None.
        max_ndim: largest rank, or None.
        min_ndim: smallest rank, or None.
        axes: ``{axis: size}`` sizes required on given axes (negative axes count from the
            end), or None.
        allow_last_axis_squeeze: unused; accepted for Keras compatibility.
        name: unused label.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.InputSpec(ndim=4)
        InputSpec(ndim=4)
    """

    def __init__(self, dtype: DTypeLike = None, shape: Sequence[int | None] | None = None,
                 ndim: Any = None, max_ndim: Any = None, min_ndim: Any = None, axes: Any = None,
                 allow_last_axis_squeeze: bool = False, name: str | None = None) -> None:
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        # Rank bounds and required sizes, checked with a few comparisons on each call.
        self._quick = None
        if dtype is None and self.shape is None:
            self._quick = (self.ndim, self.min_ndim, self.max_ndim, tuple(self.axes.items()))

    def __repr__(self) -> str:
        parts = [f"{key}={value}" for key, value in (
            ("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
            ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim),
            ("axes", self.axes or None)) if value is not None]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        """The constraints as a dict (`dtype`, `shape`, `ndim`, `max_ndim`, `min_ndim`, `axes`)."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}


def _fits(quick, shape) -> bool:
    ndim, min_ndim, max_ndim, axes = quick
    rank = len(shape)
    if (ndim is not None and rank != ndim) or (min_ndim is not None and rank < min_ndim) or (
            max_ndim is not None and rank > max_ndim):
        return False
    for axis, size in axes:
        if not -rank <= axis < rank or (size is not None and shape[axis] != size):
            return False
    return True


def assert_input_compatibility(specs, inputs, layer_name: str) -> None:
    """Raises ValueError when `inputs` (a tensor or a list) do not fit `specs`."""
    # hot path: one spec and one tensor that fits (every call of Dense, Conv2D, ...).
    if type(specs) is InputSpec and specs._quick is not None and hasattr(inputs, "shape") and (
            _fits(specs._quick, inputs.shape)):
        return
    if isinstance(specs, InputSpec):
        specs = (specs,)
        inputs = (inputs,)
    elif not isinstance(inputs, (list, tuple)) or len(inputs) != len(specs):
        count = len(inputs) if isinstance(inputs, (list, tuple)) else 1
        raise ValueError(
            f"Layer '{layer_name}' expects {len(specs)} input(s), but it received {count} "
            "input tensor(s)."
        )
    for index, (spec, x) in enumerate(zip(specs, inputs, strict=True)):
        if spec is None or x is None:
            continue
        shape = tuple(x.shape)
        rank = len(shape)
        full = f"Full shape received: {shape}"
        if spec.ndim is not None and rank != spec.ndim:
            _fail(index, layer_name, f"expected ndim={spec.ndim}, found ndim={rank}. {full}")
        if spec.min_ndim is not None and rank < spec.min_ndim:
            _fail(index, layer_name,
                  f"expected min_ndim={spec.min_ndim}, found ndim={rank}. {full}")
        if spec.max_ndim is not None and rank > spec.max_ndim:
            _fail(index, layer_name,
                  f"expected max_ndim={spec.max_ndim}, found ndim={rank}. {full}")
        for axis, size in spec.axes.items():
            if size is None:
                continue
            if not -rank <= axis < rank:
                _fail(index, layer_name, f"expected an axis {axis}, found ndim={rank}. {full}")
            if shape[axis] is not None and shape[axis] != size:
                _fail(index, layer_name,
                      f"expected axis {axis} of the input to have value {size} (the layer "
                      f"was built for {size} features), but received an input with shape "
                      f"{shape}")
        if spec.shape is not None:
            for want, got in zip(spec.shape, shape, strict=False):
                if want is not None and got is not None and want != got:
                    _fail(index, layer_name, f"expected shape={spec.shape}, found "
                          f"shape={shape}")


def _fail(index, layer_name, text) -> None:
    raise ValueError(
        f"Input {index} of layer '{layer_name}' is incompatible with the layer: {text}."
    )

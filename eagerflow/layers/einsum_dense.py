"""`EinsumDense`: a dense layer whose product with the kernel is an einsum equation.

The equation ``"<input>,<kernel>-><output>"`` names every axis with a letter; the kernel's
shape follows from it (a kernel letter takes its size from the input, or else from the
output), so one layer can project to several axes at once, as attention heads do
(``"abc,cde->abde"``: ``(batch, steps, features)`` to ``(batch, steps, heads, size)``). An
ellipsis stands for leading axes (``"...b,bc->...c"``) or trailing ones
(``"ab...,bc->ac..."``) that pass through.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8),
    ...                               bias_axes="de")
    >>> layer(ef.ones([2, 5, 16])).shape, layer.kernel.shape, layer.bias.shape
    ((2, 5, 4, 8), (16, 4, 8), (4, 8))
"""

from __future__ import annotations

import math
import re
from typing import Any

from eagerflow.layers import activations, constraints, core, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops, einsum_ops, linalg_ops
from eagerflow.ops import math as math_ops

_FORMS = (
    (re.compile(r"^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$"), None),
    (re.compile(r"^\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)$"), "left"),
    (re.compile(r"^([a-zA-Z]+)\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.$"), "right"),
)


def _parse(equation: str) -> tuple:
    """``(input_spec, kernel_spec, output_spec, elided side)`` of an equation."""
    compact = equation.replace(" ", "") if isinstance(equation, str) else None
    for pattern, side in _FORMS:
        match = pattern.match(compact or "")
        if match:
            inputs, kernel, output = match.groups()
            for letter in kernel:
                if letter not in inputs and letter not in output:
                    raise ValueError(
                        f"EinsumDense: kernel axis '{letter}' of {equation!r} appears neither "
                        f"in the input spec '{inputs}' nor in the output spec '{output}': the "
                        "kernel must be fully specified.")
            for letter in output:
                if letter not in inputs and letter not in kernel:
                    raise ValueError(
                        f"EinsumDense: output axis '{letter}' of {equation!r} appears neither "
                        f"in the input spec '{inputs}' nor in the kernel spec '{kernel}'.")
            return inputs, kernel, output, side
    raise ValueError(
        f"EinsumDense: invalid equation {equation!r}. Equations must be of the form "
        "'X,Y->Z', '...X,Y->...Z' or 'X...,Y->Z...' (letters only).")


def dense_einsum(equation: str, inputs: Any, kernel: Any, specs: tuple | None = None) -> Any:
    """``einsum(equation, inputs, kernel)``, as one matrix product when the equation allows.

    When the input ends with the kernel's leading (summed) axes and the output is the
    input's other axes followed by the kernel's others (``abc,cde->abde``,
    ``abcd,cde->abe``, ``...b,bc->...c``), folding both sides into two axes is a view and
    the einsum is ``(rows, k) @ (k, n)``: one BLAS call (the kernel gradient one more),
    where the einsum transposes, batches and copies (the attention projections ran ~2x
    faster so). Other equations, and inputs with more than one unknown leading size in a
    trace, take the einsum.

    Args:
        equation: ``"<input>,<kernel>-><output>"`` as `EinsumDense` takes it.
        inputs: the input tensor.
        kernel: the kernel (a tensor or variable).
        specs: ``_parse(equation)`` when the caller has it.

    Returns:
        ``einsum(equation, inputs, kernel)``.

    Raises:
        ValueError: for an invalid equation.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.layers.einsum_dense import dense_einsum
        >>> dense_einsum("abc,cde->abde", ef.ones([2, 3, 4]), ef.ones([4, 2, 5])).shape
        (2, 3, 2, 5)
    """
    spec_in, spec_kernel, spec_out, side = specs or _parse(equation)
    summed = len(spec_in) - len(spec_out) + len(spec_kernel)
    shape = tuple(inputs.shape)
    if summed % 2 == 0 and side != "right" and 0 < summed // 2 <= len(spec_in):
        summed //= 2
        kept = spec_kernel[summed:]
        outer = shape[:len(shape) - summed]
        if (spec_kernel[:summed] == spec_in[len(spec_in) - summed:]
                and spec_out == spec_in[:len(spec_in) - summed] + kept
                and len(set(spec_in + kept)) == len(spec_in) + len(kept)
                and None not in shape[len(shape) - summed:]
                and sum(d is None for d in outer) <= 1):
            inner = math.prod(kernel.shape[:summed])
            flat = array_ops.reshape(inputs, (-1, inner))
            product = linalg_ops.matmul(flat, array_ops.reshape(kernel, (inner, -1)))
            return array_ops.reshape(product, (*outer, *kernel.shape[summed:]))
    return einsum_ops.einsum(equation, inputs, kernel)


class EinsumDense(Layer):
    """A dense layer computing ``einsum(equation, inputs, kernel) + bias`` (Keras 3's layer).

    Args:
        equation: ``"<input>,<kernel>-><output>"``, letters naming axes, with an optional
            ellipsis before (or after) the input and output specs.
        output_shape: the output's shape without the batch axis and the elided axes; an
            int for one axis. ``None`` entries take the size of the same letter in the
            input.
        activation: applied to the result (default: none).
        bias_axes: letters of the output that get a bias (None: no bias); the bias spans
            the output from the first of them to the end, with size 1 on the others.
        kernel_initializer, bias_initializer: as in `Dense`.
        kernel_regularizer, bias_regularizer, activity_regularizer: as in `Dense`.
        kernel_constraint, bias_constraint: as in `Dense`.

    Raises:
        ValueError: for an invalid equation, bias axes not in the output, an
            `output_shape` of the wrong length or contradicting the input, or a kernel axis
            whose size is unknown.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.EinsumDense("...b,bc->...c", output_shape=3)(ef.ones([2, 4, 5])).shape
        (2, 4, 3)
    """

    # Set by `core.init_kernel_bias` and `core.add_kernel_and_bias`, as for Dense.
    kernel: Any
    bias: Any
    activation: Any
    kernel_initializer: Any
    bias_initializer: Any
    kernel_regularizer: Any
    bias_regularizer: Any
    kernel_constraint: Any
    bias_constraint: Any

    def __init__(self, equation: Any, output_shape: Any, activation: Any = None,
                 bias_axes: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._specs = _parse(equation)
        self.equation = equation
        self.partial_output_shape = ((output_shape,) if isinstance(output_shape, int)
                                     else tuple(output_shape))
        if bias_axes is not None:
            missing = [letter for letter in bias_axes if letter not in self._specs[2]]
            if missing:
                raise ValueError(
                    f"EinsumDense: bias axes {missing} are not in the output spec "
                    f"'{self._specs[2]}' of {equation!r}.")
        self.bias_axes = bias_axes
        core.init_kernel_bias(self, activation, bias_axes is not None, kernel_initializer,
                              bias_initializer, kernel_regularizer, bias_regularizer,
                              kernel_constraint, bias_constraint)

    def _sizes(self, input_shape) -> tuple:
        """``(size of every letter, elided input axes, full output shape)``."""
        inputs, kernel, output, side = self._specs
        input_shape = tuple(input_shape)
        elided = len(input_shape) - len(inputs)
        if elided < 0 or (side is None and elided) or (side and elided < 1):
            raise ValueError(
                f"EinsumDense {self.equation!r} expects inputs of rank "
                f"{len(inputs) + (1 if side else 0)}{' or more' if side else ''}. Received "
                f"input shape {input_shape}")
        in_axes = input_shape[elided:] if side == "left" else input_shape[:len(inputs)]
        sizes = dict(zip(inputs, in_axes, strict=True))
        # The output letters that `output_shape` describes: all but the batch axis,
        # which is the first letter unless an ellipsis in front holds it.
        described = output if side == "left" else output[1:]
        given = list(self.partial_output_shape)
        if len(given) not in (len(described), len(described) + (elided if side == "right"
                                                                 else 0)):
            raise ValueError(
                f"EinsumDense {self.equation!r}: output_shape must give {len(described)} "
                f"sizes (the output without the batch axis and the elided axes: "
                f"'{described}'). Received: output_shape={self.partial_output_shape}")
        for letter, size in zip(described, given, strict=False):
            known = sizes.get(letter)
            if size is not None and known is not None and size != known:
                raise ValueError(
                    f"EinsumDense {self.equation!r}: input and output shape do not match at "
                    f"the shared axis '{letter}': {known} in the input, {size} in "
                    "output_shape.")
            sizes.setdefault(letter, size)
        if side != "left":
            sizes.setdefault(output[0], input_shape[0])
        for letter in kernel:
            if sizes.get(letter) is None:
                raise ValueError(
                    f"EinsumDense {self.equation!r}: the size of kernel axis '{letter}' is "
                    f"unknown (None in output_shape={self.partial_output_shape} and not in "
                    f"the input shape {input_shape}); the kernel must be fully specified.")
        body = tuple(sizes[letter] for letter in output)
        if side == "left":
            out_shape = input_shape[:elided] + body
        elif side == "right":
            out_shape = body + input_shape[len(inputs):]
        else:
            out_shape = body
        return sizes, elided, out_shape

    def build(self, input_shape: Any) -> None:
        sizes, elided, _ = self._sizes(input_shape)
        _, kernel, output, side = self._specs
        bias_shape = None
        if self.bias_axes is not None:
            first = min(output.index(letter) for letter in self.bias_axes)
            bias_shape = tuple(sizes[letter] if letter in self.bias_axes else 1
                               for letter in output[first:])
            if side == "right":
                bias_shape += (1,) * elided
        core.add_kernel_and_bias(self, tuple(sizes[letter] for letter in kernel), bias_shape)

    def call(self, inputs: Any) -> Any:
        outputs = dense_einsum(self.equation, inputs, self.kernel, self._specs)
        if self.bias is not None:
            outputs = math_ops.add(outputs, self.bias)
        return core.activate(self, outputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self._sizes(input_shape)[2]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(output_shape=list(self.partial_output_shape), equation=self.equation,
                      activation=activations.serialize(self.activation),
                      bias_axes=self.bias_axes,
                      kernel_initializer=initializers.serialize(self.kernel_initializer),
                      bias_initializer=initializers.serialize(self.bias_initializer),
                      kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
                      bias_regularizer=regularizers.serialize(self.bias_regularizer),
                      activity_regularizer=regularizers.serialize(self.activity_regularizer),
                      kernel_constraint=constraints.serialize(self.kernel_constraint),
                      bias_constraint=constraints.serialize(self.bias_constraint))
        return config

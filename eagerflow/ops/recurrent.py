"""Fused recurrent-cell ops: one op per time step for the gates of LSTM, GRU and SimpleRNN.

A composite LSTM step costs about fifteen NumPy passes (three sigmoids, two tanh, the
products, a split) and as many tape records; these ops do the elementwise part of a step
in one op, forward and backward, and leave the matrix products to BLAS. The recurrent
layers use them when the cell has the standard activations (`layers/rnn_cells.py`):

* ``LSTMBlockCell(x, hz, c_prev) -> (h, c)``: ``z = x + hz`` holds the four gate
  pre-activations in Keras's order (input, forget, cell, output);
  ``c = sigmoid(z_f) * c_prev + sigmoid(z_i) * tanh(z_c)``, ``h = sigmoid(z_o) * tanh(c)``.
* ``GRUBlockCell(x, inner, h_prev) -> h`` (``reset_after=True``): ``x`` is the input
  projection with its bias, ``inner = h_prev @ U + recurrent bias``;
  ``z, r = sigmoid(x_z + inner_z), sigmoid(x_r + inner_r)``,
  ``candidate = tanh(x_h + r * inner_h)``, ``h = z * h_prev + (1 - z) * candidate``.
* ``SimpleRNNCellTanh(x, hz) -> tanh(x + hz)``.

Each op's kernel takes every tanh of the step in NumPy at once (its SIMD tanh is ~50x
faster than the scalar one numba calls) and does the arithmetic between in one compiled
pass with the ``fast`` extra (`ops/kernels/rnn_jit.py`), or in a few NumPy passes
without it (`ops/kernels/rnn_gates.py`). The backward passes are ops too
(``LSTMBlockCellGrad``, ``GRUBlockCellGrad``), so a step's gradient is one op as well;
their own gradients (second order) differentiate the same formulas written in eagerflow
ops.

The sigmoid is computed as ``0.5 * tanh(0.5 * x) + 0.5``: the same function, and ~6x
faster in NumPy than the overflow-safe ``1 / (1 + e^-x)`` with its masked multiply.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.ops import recurrent
    >>> h, c = recurrent.lstm_block_cell(ef.zeros([1, 8]), ef.zeros([1, 8]), ef.ones([1, 2]))
    >>> c
    ef.Tensor([[0.5 0.5]], shape=(1, 2), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import kernel_sets, rnn_gates
from eagerflow.ops.typing import Tensor, TensorLike

# -- the backward formulas on tensors, for second-order gradients ----------------------

def _lstm_gates(x, hz, units):
    z = x + hz
    gates = _unary.sigmoid(z)
    return (gates[:, :units], gates[:, units:2 * units], _unary.tanh(z[:, 2 * units:3 * units]),
            gates[:, 3 * units:])


def _lstm_backward(x, hz, c_prev, c, dh, dc):
    i, f, g, o = _lstm_gates(x, hz, c_prev.shape[-1])
    tc = _unary.tanh(c)
    d_c = dc + dh * o * (1 - tc * tc)
    dz = _array.concat([d_c * g * i * (1 - i), d_c * c_prev * f * (1 - f),
                        d_c * i * (1 - g * g), dh * tc * o * (1 - o)], axis=-1)
    return dz, d_c * f


def _gru_backward(x, inner, h_prev, dh):
    units = h_prev.shape[-1]
    zr = _unary.sigmoid(x[:, :2 * units] + inner[:, :2 * units])
    z, r = zr[:, :units], zr[:, units:]
    inner_h = inner[:, 2 * units:]
    candidate = _unary.tanh(x[:, 2 * units:] + r * inner_h)
    d_z = dh * (h_prev - candidate) * z * (1 - z)
    d_a = dh * (1 - z) * (1 - candidate * candidate)
    d_r = d_a * inner_h * r * (1 - r)
    return (_array.concat([d_z, d_r, d_a], axis=-1),
            _array.concat([d_z, d_r, d_a * r], axis=-1), dh * z)


def _second_order(formula, dy, inputs):
    """The gradient of a backward op: differentiates its formula written in eagerflow ops."""
    with tape_lib.GradientTape() as tape:
        tape.watch(list(inputs))
        outputs = formula(*inputs)
    return tape.gradient(list(outputs), list(inputs), output_gradients=list(dy))


# -- the ops ---------------------------------------------------------------------------

@primitive("LSTMBlockCell", num_outputs=2)
def _lstm_block_cell(x, hz, c_prev):
    return rnn_gates.lstm_block_cell(x, hz, c_prev)


_lstm_block_cell.jvp(forwardprop.FROM_VJP)


@_lstm_block_cell.gradient
def _lstm_block_cell_grad(dy, y, x, hz, c_prev):
    dz, dc_prev = execute(_lstm_block_cell_backward, (x, hz, c_prev, y[1], dy[0], dy[1]))
    return dz, dz, dc_prev


@primitive("LSTMBlockCellGrad", num_outputs=2)
def _lstm_block_cell_backward(x, hz, c_prev, c, dh, dc):
    return rnn_gates.lstm_block_cell_grad(x, hz, c_prev, c, dh, dc)


_lstm_block_cell_backward.jvp(forwardprop.FROM_VJP)


@_lstm_block_cell_backward.gradient
def _lstm_block_cell_backward_grad(dy, y, *inputs):
    return _second_order(_lstm_backward, dy, inputs)


@primitive("GRUBlockCell")
def _gru_block_cell(x, inner, h_prev):
    return rnn_gates.gru_block_cell(x, inner, h_prev)


_gru_block_cell.jvp(forwardprop.FROM_VJP)


@_gru_block_cell.gradient
def _gru_block_cell_grad(dy, y, x, inner, h_prev):
    return execute(_gru_block_cell_backward, (x, inner, h_prev, dy))


@primitive("GRUBlockCellGrad", num_outputs=3)
def _gru_block_cell_backward(x, inner, h_prev, dh):
    return rnn_gates.gru_block_cell_grad(x, inner, h_prev, dh)


_gru_block_cell_backward.jvp(forwardprop.FROM_VJP)


@_gru_block_cell_backward.gradient
def _gru_block_cell_backward_grad(dy, y, *inputs):
    return _second_order(_gru_backward, dy, inputs)


@primitive("SimpleRNNCellTanh")
def _simple_rnn_cell(x, hz):
    z = np.add(x, hz)
    return np.tanh(z, out=z)


_simple_rnn_cell.jvp(forwardprop.DIAGONAL)


@_simple_rnn_cell.gradient
def _simple_rnn_cell_grad(dy, y, x, hz):
    dz = dy * (1 - y * y)  # d tanh(u)/du = 1 - tanh(u)^2, for both summands
    return dz, dz


# The numba kernel set's forwards: the same steps with the gate arithmetic compiled.
for _name, _kernel in (("LSTMBlockCell", "lstm_block_cell"),
                       ("LSTMBlockCellGrad", "lstm_block_cell_grad"),
                       ("GRUBlockCell", "gru_block_cell"),
                       ("GRUBlockCellGrad", "gru_block_cell_grad")):
    kernel_sets.register(_name, forward=f"eagerflow.ops.kernels.rnn_jit:{_kernel}")


# -- public entry points (validate, then run) -----------------------------------------

def _check(op: str, x, others, widths) -> None:
    batch = x.shape[0] if x.ndim == 2 else None
    for name, value, width in zip(("x", *others), (x, *others.values()), widths, strict=True):
        if value.ndim != 2 or value.shape[0] != batch or value.shape[1] != width:
            shapes = ", ".join(f"{n}: {tuple(v.shape)}" for n, v in
                               zip(("x", *others), (x, *others.values()), strict=True))
            raise errors.InvalidArgumentError(
                f"{op} expects 2-D inputs (batch, ...) with widths {list(widths)}; "
                f"{name} does not fit. Received {shapes}", op=op)
        if value.dtype != x.dtype or x.dtype.kind != "f":
            raise errors.InvalidArgumentError(
                f"{op} expects inputs of one floating dtype; received x: {x.dtype}, "
                f"{name}: {value.dtype}", op=op)


def lstm_block_cell(x: TensorLike, hz: TensorLike, c_prev: TensorLike) -> tuple[Tensor, Tensor]:
    """One LSTM step's gates, fused: returns ``(h, c)``.

    Args:
        x: ``(batch, 4 * units)`` input projection (with the bias), gates in Keras's order
            (input, forget, cell, output).
        hz: ``(batch, 4 * units)`` recurrent projection ``h_prev @ recurrent_kernel``.
        c_prev: ``(batch, units)`` carry state.

    Returns:
        ``(h, c)``, each ``(batch, units)``.

    Raises:
        InvalidArgumentError: for shapes or dtypes that do not fit together.
    """
    x, hz, c_prev = convert_input(x), convert_input(hz), convert_input(c_prev)
    units = c_prev.shape[-1] if c_prev.ndim == 2 else -1
    _check("LSTMBlockCell", x, {"hz": hz, "c_prev": c_prev}, (4 * units, 4 * units, units))
    return execute(_lstm_block_cell, (x, hz, c_prev))


def gru_block_cell(x: TensorLike, inner: TensorLike, h_prev: TensorLike) -> Tensor:
    """One GRU step's gates (``reset_after=True``), fused: returns the new state ``h``.

    Args:
        x: ``(batch, 3 * units)`` input projection with the input bias (gates update,
            reset, candidate).
        inner: ``(batch, 3 * units)`` recurrent projection plus the recurrent bias.
        h_prev: ``(batch, units)`` previous state.

    Returns:
        ``h``, ``(batch, units)``.

    Raises:
        InvalidArgumentError: for shapes or dtypes that do not fit together.
    """
    x, inner, h_prev = convert_input(x), convert_input(inner), convert_input(h_prev)
    units = h_prev.shape[-1] if h_prev.ndim == 2 else -1
    _check("GRUBlockCell", x, {"inner": inner, "h_prev": h_prev}, (3 * units, 3 * units, units))
    return execute(_gru_block_cell, (x, inner, h_prev))


def simple_rnn_cell(x: TensorLike, hz: TensorLike) -> Tensor:
    """One SimpleRNN step with tanh, fused: ``tanh(x + hz)``.

    Args:
        x: ``(batch, units)`` input projection with the bias.
        hz: ``(batch, units)`` recurrent projection.

    Returns:
        The new state, ``(batch, units)``.

    Raises:
        InvalidArgumentError: for shapes or dtypes that do not fit together.
    """
    x, hz = convert_input(x), convert_input(hz)
    units = x.shape[-1]
    _check("SimpleRNNCellTanh", x, {"hz": hz}, (units, units))
    return execute(_simple_rnn_cell, (x, hz))

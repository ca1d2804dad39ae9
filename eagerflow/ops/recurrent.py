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
* ``LSTMSequence`` / ``GRUSequence``: every step of a layer in one op, with one-loop
  gradient ops (``LSTMSequenceGrad``, ``GRUSequenceGrad``); see "whole sequences" below.

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
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
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


# -- whole sequences -------------------------------------------------------------------
#
# ``LSTMSequence`` and ``GRUSequence`` run every step of a layer in one op, as cuDNN's
# RNN and TensorFlow's BlockLSTM do: the layer projects the whole input sequence with
# one GEMM first (bias included), the op loops over the steps (one small recurrent matmul
# and the fused gates a step), and its extra outputs keep what the backward pass needs
# (cuDNN's reserve space: the gates' tanh, the carries). The gradient op loops backwards
# once; the recurrent kernel's gradient is then one GEMM over all steps, and the input
# projection's comes from the ordinary matmul gradient of the layer's GEMM. An optional
# last input is the recurrent dropout mask: the state enters the recurrent matmul as
# ``h * mask``.

def _lstm_steps_backward(projected, h0, c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc,
                         *mask):
    """`LSTMSequenceGrad` written in eagerflow ops, step by step (for its gradient).

    It reads the states ``h_seq`` (an output of `LSTMSequence` that its gradient rule
    differentiates) but recomputes the carries and gates: ``c_seq`` and ``t_seq`` are
    reserve outputs that receive no gradient."""
    steps, units = projected.shape[1], h0.shape[-1]
    projections, carries = [], [c0]
    for step in range(steps):
        hidden = h0 if step == 0 else h_seq[:, step - 1]
        hidden = _math.multiply(hidden, mask[0]) if mask else hidden
        projections.append(_linalg.matmul(hidden, kernel))
        i, f, g, _ = _lstm_gates(projected[:, step], projections[-1], units)
        carries.append(f * carries[-1] + i * g)
    dzs: list = [None] * steps
    for step in range(steps - 1, -1, -1):
        dz, dc = _lstm_backward(projected[:, step], projections[step], carries[step],
                                carries[step + 1], dh + dh_seq[:, step], dc)
        dzs[step] = dz
        dh = _linalg.matmul(dz, kernel, transpose_b=True)
        dh = _math.multiply(dh, mask[0]) if mask else dh
    return _array.stack(dzs, axis=1), dh, dc


def _gru_steps_backward(projected, h0, kernel, bias, h_seq, inner_seq, t_seq, candidate_seq,
                        dh_seq, dh, *mask):
    """`GRUSequenceGrad` written in eagerflow ops, step by step (for its gradient)."""
    dxs: list = [None] * projected.shape[1]
    d_inners: list = [None] * projected.shape[1]
    for step in range(projected.shape[1] - 1, -1, -1):
        h_prev = h0 if step == 0 else h_seq[:, step - 1]
        hidden = _math.multiply(h_prev, mask[0]) if mask else h_prev
        inner = _linalg.matmul(hidden, kernel) + bias
        dxs[step], d_inners[step], dh_direct = _gru_backward(
            projected[:, step], inner, h_prev, dh + dh_seq[:, step])
        d_hidden = _linalg.matmul(d_inners[step], kernel, transpose_b=True)
        dh = dh_direct + (_math.multiply(d_hidden, mask[0]) if mask else d_hidden)
    return _array.stack(dxs, axis=1), _array.stack(d_inners, axis=1), dh


def _recurrent_grads(h0, h_seq, kernel, d_inner, mask, needs_kernel, needs_mask):
    """The gradients of the recurrent kernel and of the dropout mask from the gradient of
    every step's recurrent projection ``d_inner (batch, time, width)``: one GEMM each."""
    steps, units, width = h_seq.shape[1], h_seq.shape[2], d_inner.shape[2]
    previous = _array.concat([_array.expand_dims(h0, 1), h_seq[:, :-1]], axis=1)
    flat_d_inner = _array.reshape(d_inner, (-1, width))
    d_kernel = d_mask = None
    if needs_kernel:
        hidden = _math.multiply(previous, _array.expand_dims(mask[0], 1)) if mask else previous
        d_kernel = _linalg.matmul(_array.reshape(hidden, (-1, units)), flat_d_inner,
                                  transpose_a=True)
    if needs_mask:
        d_hidden = _linalg.matmul(flat_d_inner, kernel, transpose_b=True)
        d_mask = _reduce.reduce_sum(
            _math.multiply(previous, _array.reshape(d_hidden, (-1, steps, units))), axis=1)
    return d_kernel, d_mask


@primitive("LSTMSequence", num_outputs=5)
def _lstm_sequence(projected, h0, c0, kernel, *mask):
    return rnn_gates.lstm_sequence(projected, h0, c0, kernel, *mask)


_lstm_sequence.jvp(forwardprop.FROM_VJP)


@_lstm_sequence.gradient
def _lstm_sequence_grad(dy, y, projected, h0, c0, kernel, *mask, needs):
    # dy[3:] belongs to the reserve outputs, which nothing differentiates (the public
    # function drops them; the second-order formula recomputes what they hold).
    h_seq, _, _, c_seq, t_seq = y
    dz, dh0, dc0 = execute(_lstm_sequence_backward,
                           (projected, h0, c0, kernel, h_seq, c_seq, t_seq, *dy[:3], *mask))
    d_kernel, d_mask = _recurrent_grads(h0, h_seq, kernel, dz, mask, needs[3],
                                        bool(mask) and needs[4])
    return (dz, dh0, dc0, d_kernel, d_mask)[:len(needs)]


@primitive("LSTMSequenceGrad", num_outputs=3)
def _lstm_sequence_backward(projected, h0, c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc,
                            *mask):
    return rnn_gates.lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc, *mask)


_lstm_sequence_backward.jvp(forwardprop.FROM_VJP)


@_lstm_sequence_backward.gradient
def _lstm_sequence_backward_grad(dy, y, *inputs):
    return _second_order(_lstm_steps_backward, dy, inputs)


@primitive("GRUSequence", num_outputs=5)
def _gru_sequence(projected, h0, kernel, bias, *mask):
    return rnn_gates.gru_sequence(projected, h0, kernel, bias, *mask)


_gru_sequence.jvp(forwardprop.FROM_VJP)


@_gru_sequence.gradient
def _gru_sequence_grad(dy, y, projected, h0, kernel, bias, *mask, needs):
    h_seq, _, inner_seq, t_seq, candidate_seq = y
    dx, d_inner, dh0 = execute(_gru_sequence_backward,
                               (projected, h0, kernel, bias, h_seq, inner_seq, t_seq,
                                candidate_seq, *dy[:2], *mask))
    d_kernel, d_mask = _recurrent_grads(h0, h_seq, kernel, d_inner, mask, needs[2],
                                        bool(mask) and needs[4])
    d_bias = _reduce.reduce_sum(d_inner, axis=(0, 1)) if needs[3] else None
    return (dx, dh0, d_kernel, d_bias, d_mask)[:len(needs)]


@primitive("GRUSequenceGrad", num_outputs=3)
def _gru_sequence_backward(projected, h0, kernel, bias, h_seq, inner_seq, t_seq,
                           candidate_seq, dh_seq, dh, *mask):
    return rnn_gates.gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq,
                                       dh_seq, dh, *mask)


_gru_sequence_backward.jvp(forwardprop.FROM_VJP)


@_gru_sequence_backward.gradient
def _gru_sequence_backward_grad(dy, y, *inputs):
    return _second_order(_gru_steps_backward, dy, inputs)


# The numba kernel set's forwards: the same steps with the gate arithmetic compiled.
for _name, _kernel in (("LSTMBlockCell", "lstm_block_cell"),
                       ("LSTMBlockCellGrad", "lstm_block_cell_grad"),
                       ("GRUBlockCell", "gru_block_cell"),
                       ("GRUBlockCellGrad", "gru_block_cell_grad"),
                       ("LSTMSequence", "lstm_sequence"),
                       ("LSTMSequenceGrad", "lstm_sequence_grad"),
                       ("GRUSequence", "gru_sequence"),
                       ("GRUSequenceGrad", "gru_sequence_grad")):
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


def _check_sequence(op: str, projected, named: dict, gates: int) -> int:
    """Validates a sequence op's inputs; returns the number of units."""
    state = next(iter(named.values()))
    units = state.shape[-1] if state.ndim == 2 else -1
    batch = projected.shape[0] if projected.ndim == 3 else -1
    expected: dict[str, tuple] = {"projected": (batch, None, gates * units)}
    for name, value in named.items():
        expected[name] = {"recurrent_kernel": (units, gates * units),
                          "recurrent_bias": (gates * units,)}.get(name, (batch, units))
    values = {"projected": projected, **named}
    for name, value in values.items():
        want = expected[name]
        fits = value.ndim == len(want) and all(w is None or w == d
                                               for w, d in zip(want, value.shape, strict=True))
        if not fits or (name == "projected" and (value.shape[1] or 0) < 1) or units < 1:
            shapes = ", ".join(f"{n}: {tuple(v.shape)}" for n, v in values.items())
            raise errors.InvalidArgumentError(
                f"{op} expects projected (batch, time >= 1, {gates} * units), states (batch, "
                f"units), recurrent_kernel (units, {gates} * units) and a recurrent_mask "
                f"(batch, units); {name} does not fit. Received {shapes}", op=op)
        if value.dtype != projected.dtype or projected.dtype.kind != "f":
            raise errors.InvalidArgumentError(
                f"{op} expects inputs of one floating dtype; received projected: "
                f"{projected.dtype}, {name}: {value.dtype}", op=op)
    return units


def lstm_sequence(projected: TensorLike, h0: TensorLike, c0: TensorLike,
                  recurrent_kernel: TensorLike,
                  recurrent_mask: TensorLike | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """A whole LSTM sequence in one op: returns ``(h_sequence, h, c)``.

    Step ``t`` is `lstm_block_cell` of ``projected[:, t]`` and ``(h * recurrent_mask) @
    recurrent_kernel``. The gradient is one backward loop (`LSTMSequenceGrad`) and one
    GEMM for the recurrent kernel.

    Args:
        projected: ``(batch, time, 4 * units)``: the input projection of every step with
            the bias, gates in Keras's order (input, forget, cell, output).
        h0, c0: ``(batch, units)`` initial states.
        recurrent_kernel: ``(units, 4 * units)``.
        recurrent_mask: optional ``(batch, units)`` recurrent dropout mask, the same for
            every step.

    Returns:
        ``h_sequence (batch, time, units)``, and the last ``h`` and ``c``, ``(batch, units)``.

    Raises:
        InvalidArgumentError: for shapes or dtypes that do not fit together.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import recurrent
        >>> seq, h, c = recurrent.lstm_sequence(ef.zeros([2, 5, 8]), ef.zeros([2, 2]),
        ...                                     ef.ones([2, 2]), ef.zeros([2, 8]))
        >>> seq.shape, float(c[0, 0])
        ((2, 5, 2), 0.03125)
    """
    inputs = [convert_input(x) for x in (projected, h0, c0, recurrent_kernel)]
    named = dict(zip(("h0", "c0", "recurrent_kernel"), inputs[1:], strict=True))
    if recurrent_mask is not None:
        inputs.append(convert_input(recurrent_mask))
        named["recurrent_mask"] = inputs[-1]
    _check_sequence("LSTMSequence", inputs[0], named, 4)
    h_seq, h, c, _, _ = execute(_lstm_sequence, inputs)
    return h_seq, h, c


def gru_sequence(projected: TensorLike, h0: TensorLike, recurrent_kernel: TensorLike,
                 recurrent_bias: TensorLike,
                 recurrent_mask: TensorLike | None = None) -> tuple[Tensor, Tensor]:
    """A whole GRU sequence (``reset_after=True``) in one op: returns ``(h_sequence, h)``.

    Step ``t`` is `gru_block_cell` of ``projected[:, t]`` and ``(h * recurrent_mask) @
    recurrent_kernel + recurrent_bias``. The gradient is one backward loop
    (`GRUSequenceGrad`) and one GEMM for the recurrent kernel.

    Args:
        projected: ``(batch, time, 3 * units)``: the input projection of every step with
            the input bias (gates update, reset, candidate).
        h0: ``(batch, units)`` initial state.
        recurrent_kernel: ``(units, 3 * units)``.
        recurrent_bias: ``(3 * units,)`` (zeros for a layer without bias).
        recurrent_mask: optional ``(batch, units)`` recurrent dropout mask, the same for
            every step.

    Returns:
        ``h_sequence (batch, time, units)`` and the last ``h``, ``(batch, units)``.

    Raises:
        InvalidArgumentError: for shapes or dtypes that do not fit together.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import recurrent
        >>> seq, h = recurrent.gru_sequence(ef.zeros([2, 5, 6]), ef.ones([2, 2]),
        ...                                 ef.zeros([2, 6]), ef.zeros([6]))
        >>> seq.shape, float(h[0, 0])
        ((2, 5, 2), 0.03125)
    """
    inputs = [convert_input(x) for x in (projected, h0, recurrent_kernel, recurrent_bias)]
    named = dict(zip(("h0", "recurrent_kernel", "recurrent_bias"), inputs[1:], strict=True))
    if recurrent_mask is not None:
        inputs.append(convert_input(recurrent_mask))
        named["recurrent_mask"] = inputs[-1]
    _check_sequence("GRUSequence", inputs[0], named, 3)
    h_seq, h, _, _, _ = execute(_gru_sequence, inputs)
    return h_seq, h

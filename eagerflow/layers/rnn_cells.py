"""Recurrent cells: one time step of SimpleRNN, LSTM and GRU, with Keras 3's weight layout.

Each cell owns ``kernel`` ``(input_dim, gates * units)``, ``recurrent_kernel``
``(units, gates * units)`` and ``bias``, with the gates in Keras's order (LSTM: input,
forget, cell, output; GRU: update, reset, candidate), so weights taken from a Keras model
load with `set_weights` and give the same outputs.

The recurrent layers do not call a built-in cell once per step through ``__call__``: they
project the whole input sequence with one matmul (`project`) and then run `step`, which
only does the recurrent part. A cell can also be called on its own, like Keras's:
``output, new_states = cell(x_t, states)``.

Examples:
    >>> import eagerflow as ef
    >>> cell = ef.layers.LSTMCell(4)
    >>> h, c = ef.zeros([2, 4]), ef.zeros([2, 4])
    >>> output, (h, c) = cell(ef.ones([2, 3]), [h, c])
    >>> output.shape, c.shape
    ((2, 4), (2, 4))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import nest
from eagerflow.layers import activations, constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import linalg_ops as linalg
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import recurrent as recurrent_ops
from eagerflow.ops.typing import DTypeLike
from eagerflow.saving import registry


def _rate(value, name: str, layer: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ValueError(
            f"`{name}` of {layer} must be a float in [0, 1). Received: {name}={value!r}")
    return float(value)


# The dtypes the fused cell ops compute in (float16 takes the composite path).
_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class _Cell(Layer):
    """Shared arguments, weights, projection and dropout of the built-in cells."""

    step: Callable[..., Any]  # each cell's recurrence

    _gates = 1

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.units = positive_int(units, "units", name)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _rate(dropout, "dropout", name)
        self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", name)
        self.seed = seed

    @property
    def state_size(self) -> Any:
        """The size of the state the cell carries between steps: `units`."""
        return self.units

    @property
    def output_size(self) -> int:
        """The size of the cell's output at each step: `units`."""
        return self.units

    def _bias_shape(self) -> tuple:
        return (self._gates * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"The last dimension of the inputs to {type(self).__name__} should be "
                f"defined. Found None. Full input shape received: {tuple(input_shape)}")
        width = self._gates * self.units
        self.kernel = self.add_weight("kernel", (input_dim, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", (self.units, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", self._bias_shape(),
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _input_bias(self):
        return self.bias

    def project(self, inputs: Any) -> Any:
        """``inputs @ kernel + input bias`` for one step ``(batch, features)`` or a whole
        sequence ``(batch, time, features)``."""
        if inputs.ndim == 2:
            projected = linalg.matmul(inputs, self.kernel)
        else:
            flat = array_ops.reshape(inputs, (-1, inputs.shape[-1]))
            projected = array_ops.reshape(linalg.matmul(flat, self.kernel),
                                          (*inputs.shape[:-1], self.kernel.shape[-1]))
        bias = self._input_bias()
        return projected if bias is None else math_ops.add(projected, bias)

    def dropout_masks(self, batch: int, input_dim: int, dtype: DTypeLike,
                      training: bool | None) -> Any:
        """Per-sequence dropout masks (scaled), for the inputs and the recurrent state."""
        masks: list[Any] = [None, None]
        if training:
            for index, (rate, size) in enumerate(((self.dropout, input_dim),
                                                  (self.recurrent_dropout, self.units))):
                if rate > 0:
                    masks[index] = nn_ops.dropout(creation_ops.ones((batch, size), dtype), rate,
                                                  seed=self.seed)
        return masks

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> Any:
        nested = isinstance(states, (list, tuple))
        states = list(states) if nested else [states]
        input_mask, recurrent_mask = self.dropout_masks(inputs.shape[0], inputs.shape[-1],
                                                        inputs.dtype, training)
        if input_mask is not None:
            inputs = math_ops.multiply(inputs, input_mask)
        output, new_states = self.step(self.project(inputs), states, recurrent_mask)
        return output, (new_states if nested or len(new_states) > 1 else new_states[0])

    def _fused(self, projected) -> bool:
        """Whether this step can run as one fused op (`ops/recurrent.py`): the standard
        activations (tanh, and sigmoid for the gates) in float32 or float64. Any other
        activation, or float16, takes the composite path of per-gate ops."""
        return (self.activation is activations.tanh
                and (self._gates == 1 or self.recurrent_activation is activations.sigmoid)
                and projected.dtype in _FUSED_DTYPES)

    def sequence(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """A whole sequence from its projected inputs ``(batch, time, width)`` in one op
        (`ops/recurrent.py`): returns ``(outputs (batch, time, units), last output, new
        states)``, or None when this cell's step has no sequence op (then the layer runs
        `step` per time step)."""
        return None

    def _recurrent(self, h, recurrent_mask):
        if recurrent_mask is not None:
            h = math_ops.multiply(h, recurrent_mask)
        return linalg.matmul(h, self.recurrent_kernel)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            units=self.units, activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            recurrent_initializer=initializers.serialize(self.recurrent_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            recurrent_regularizer=regularizers.serialize(self.recurrent_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            recurrent_constraint=constraints.serialize(self.recurrent_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            dropout=self.dropout, recurrent_dropout=self.recurrent_dropout, seed=self.seed)
        if self._gates > 1:
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        return config


class SimpleRNNCell(_Cell):
    """One step of a fully connected RNN: ``h = activation(x W + h U + b)``.

    Args:
        units: state size.
        activation: default tanh.
        use_bias, kernel_initializer, bias_initializer: as in Dense.
        recurrent_initializer: default orthogonal.
        *_regularizer, *_constraint: as in Dense.
        dropout, recurrent_dropout: drop rates of the inputs and of the state (training).
        seed: seed of the dropout masks.

    Examples:
        >>> import eagerflow as ef
        >>> cell = ef.layers.SimpleRNNCell(3)
        >>> out, state = cell(ef.ones([2, 5]), ef.zeros([2, 3]))
        >>> out.shape
        (2, 3)
    """

    def __init__(self, units: int, activation: Any = "tanh", **kwargs: Any) -> None:
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def step(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """One step from projected inputs: returns ``(output, [new_h])``."""
        hz = self._recurrent(states[0], recurrent_mask)
        if self._fused(projected):
            h = recurrent_ops.simple_rnn_cell(projected, hz)
        else:
            h = self.activation(math_ops.add(projected, hz))
        return h, [h]


class LSTMCell(_Cell):
    """One step of an LSTM (gate order input, forget, cell, output, as Keras).

    ``i, f, o = recurrent_activation(...)``, ``g = activation(...)``,
    ``c = f * c + i * g``, ``h = o * activation(c)``.

    Args:
        units: state size.
        activation: default tanh; recurrent_activation: default sigmoid.
        unit_forget_bias: initialize the forget gate's bias to ones (Keras default).
        other arguments: as SimpleRNNCell.

    Examples:
        >>> import eagerflow as ef
        >>> cell = ef.layers.LSTMCell(2)
        >>> _ = cell(ef.ones([1, 3]), [ef.zeros([1, 2]), ef.zeros([1, 2])])
        >>> cell.bias.numpy()
        array([0., 0., 1., 1., 0., 0., 0., 0.], dtype=float32)
    """

    _gates = 4

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 unit_forget_bias: bool = True, **kwargs: Any) -> None:
        # Keras's implementation=1 or 2 picks how its kernels are split, with the same
        # results: accepted (and, as in Keras, left out of the config) without effect.
        self.implementation = int(kwargs.pop("implementation", 2))
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> Any:
        """The sizes of the two states, ``[h, c]``: ``[units, units]``."""
        return [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def forget_ones(shape, dtype=None):
            return array_ops.concat([base((units,), dtype=dtype),
                                     creation_ops.ones((units,), dtype=dtype),
                                     base((2 * units,), dtype=dtype)], 0)

        return forget_ones

    def step(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """One step from projected inputs: returns ``(h, [h, c])``."""
        h, c = states
        hz = self._recurrent(h, recurrent_mask)
        if self._fused(projected):
            h, c = recurrent_ops.lstm_block_cell(projected, hz, c)
            return h, [h, c]
        z = math_ops.add(projected, hz)
        z_i, z_f, z_c, z_o = array_ops.split(z, 4, axis=-1)
        gate = self.recurrent_activation
        c = math_ops.add(math_ops.multiply(gate(z_f), c),
                         math_ops.multiply(gate(z_i), self.activation(z_c)))
        h = math_ops.multiply(gate(z_o), self.activation(c))
        return h, [h, c]

    def sequence(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """The whole sequence as one ``LSTMSequence`` op when the step is fused."""
        if not self._fused(projected):
            return None
        outputs, h, c = recurrent_ops.lstm_sequence(projected, states[0], states[1],
                                                    self.recurrent_kernel, recurrent_mask)
        return outputs, h, [h, c]

    def get_config(self) -> dict:
        config = super().get_config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class GRUCell(_Cell):
    """One step of a GRU (gate order update, reset, candidate, as Keras).

    With ``reset_after=True`` (the default, and cuDNN's layout) the reset gate multiplies
    the recurrent projection, and the bias has shape ``(2, 3 * units)``: input bias and
    recurrent bias. With ``reset_after=False`` it multiplies the state before the
    candidate's recurrent matmul, and the bias is ``(3 * units,)``.

    ``h = z * h_prev + (1 - z) * candidate``.

    Examples:
        >>> import eagerflow as ef
        >>> cell = ef.layers.GRUCell(2)
        >>> out, state = cell(ef.ones([1, 3]), ef.zeros([1, 2]))
        >>> cell.bias.shape
        (2, 6)
    """

    _gates = 3

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 reset_after: bool = True, **kwargs: Any) -> None:
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self):
        if self.bias is not None and self.reset_after:
            return self.bias[0]
        return self.bias

    def step(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """One step from projected inputs: returns ``(h, [h])``."""
        h = states[0]
        units = self.units
        x_z, x_r, x_h = array_ops.split(projected, 3, axis=-1)
        hidden = h if recurrent_mask is None else math_ops.multiply(h, recurrent_mask)
        gate = self.recurrent_activation
        if self.reset_after:
            inner = linalg.matmul(hidden, self.recurrent_kernel)
            if self.bias is not None:
                inner = math_ops.add(inner, self.bias[1])
            if self._fused(projected):
                h = recurrent_ops.gru_block_cell(projected, inner, h)
                return h, [h]
            r_z, r_r, r_h = array_ops.split(inner, 3, axis=-1)
            z = gate(math_ops.add(x_z, r_z))
            r = gate(math_ops.add(x_r, r_r))
            candidate = self.activation(math_ops.add(x_h, math_ops.multiply(r, r_h)))
        else:
            kernel = self.recurrent_kernel
            r_z, r_r = array_ops.split(linalg.matmul(hidden, kernel[:, :2 * units]), 2, -1)
            z = gate(math_ops.add(x_z, r_z))
            r = gate(math_ops.add(x_r, r_r))
            candidate = self.activation(math_ops.add(
                x_h, linalg.matmul(math_ops.multiply(r, hidden), kernel[:, 2 * units:])))
        h = math_ops.add(math_ops.multiply(z, h),
                         math_ops.multiply(math_ops.subtract(1.0, z), candidate))
        return h, [h]

    def sequence(self, projected: Any, states: Any, recurrent_mask: Any = None) -> Any:
        """The whole sequence as one ``GRUSequence`` op when the step is fused (and
        ``reset_after=True``)."""
        if not (self.reset_after and self._fused(projected)):
            return None
        bias = (creation_ops.zeros((3 * self.units,), projected.dtype) if self.bias is None
                else self.bias[1])
        outputs, h = recurrent_ops.gru_sequence(projected, states[0], self.recurrent_kernel,
                                                bias, recurrent_mask)
        return outputs, h, [h]

    def get_config(self) -> dict:
        config = super().get_config()
        config["reset_after"] = self.reset_after
        return config


class StackedRNNCells(Layer):
    """Several cells run as one: each step feeds the output of a cell to the next (Keras 3's
    layer; ``RNN([cell, cell, ...])`` builds one).

    The state is every cell's states in order, flat (an LSTM cell contributes two), so
    ``RNN(..., return_state=True)`` returns them as one flat list after the output
    (Keras nests them per cell).

    Args:
        cells: the cells, first to last (layers with ``call(inputs, states)`` and a
            `state_size`).

    Raises:
        ValueError: for an empty list or an object that is not a cell.

    Examples:
        >>> import eagerflow as ef
        >>> cells = [ef.layers.SimpleRNNCell(3), ef.layers.LSTMCell(4)]
        >>> layer = ef.layers.RNN(cells, return_state=True)
        >>> [tuple(t.shape) for t in layer(ef.ones([2, 5, 6]))]
        [(2, 4), (2, 3), (2, 4), (2, 4)]
    """

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        cells = [registry.deserialize(c, kind="layer") if isinstance(c, dict) else c
                 for c in cells]
        if not cells:
            raise ValueError("StackedRNNCells needs at least one cell.")
        for cell in cells:
            if not hasattr(cell, "state_size") or not callable(cell):
                raise ValueError(
                    "Every cell of StackedRNNCells must be a layer with a `state_size` "
                    f"attribute and call(inputs, states). Received: {cell!r}")
        # A container: it computes in its cells' dtype (float64 cells stay float64).
        kwargs.setdefault("dtype", getattr(cells[0], "dtype", None))
        super().__init__(**kwargs)
        self.cells = cells

    @property
    def state_size(self) -> list:
        """The state sizes of all the cells, in order, flattened into one list."""
        return [size for cell in self.cells for size in flat_state_sizes(cell)]

    @property
    def output_size(self) -> int:
        """The output size of the last cell, which is the stack's output."""
        last = self.cells[-1]
        return int(getattr(last, "output_size", flat_state_sizes(last)[0]))

    def build(self, input_shape: Any) -> None:
        shape = tuple(input_shape)
        for cell in self.cells:
            if not cell.built:
                cell._build_from_shape(shape)
            size = getattr(cell, "output_size", flat_state_sizes(cell)[0])
            shape = (*shape[:-1], int(size))

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> Any:
        flat = list(states) if isinstance(states, (list, tuple)) else [states]
        new_states, start = [], 0
        for cell in self.cells:
            count = len(flat_state_sizes(cell))
            own = flat[start:start + count]
            start += count
            inputs, updated = cell(inputs, own if count > 1 else own[0], training=training)
            new_states.extend(nest.flatten(updated))
        return inputs, new_states

    def get_config(self) -> dict:
        return {**super().get_config(),
                "cells": [registry.serialize(cell, "layer") for cell in self.cells]}


def flat_state_sizes(cell) -> list:
    """The sizes of a cell's states, as a flat list of ints."""
    return [int(s) for s in nest.flatten(cell.state_size)]

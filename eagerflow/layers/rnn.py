"""Recurrent layers: RNN (any cell), SimpleRNN, LSTM and GRU.

Inputs are ``(batch, time, features)``. The layer runs its cell over the time steps in a
Python loop of eagerflow ops (so it is differentiable to any order); built-in cells
project the whole sequence with one matmul first, so each step only does the recurrent
matmul and the gates. LSTM and GRU cells with a fused step run the whole sequence as one
op instead (``LSTMSequence``/``GRUSequence``, `ops/recurrent.py`) when no mask is given.

Masking: a mask ``(batch, time)`` (from ``Embedding(mask_zero=True)``, or passed as
``mask=``) marks real steps; at a masked step the states keep their previous value and
the output repeats the previous output (zeros with ``zero_output_for_mask=True``), as
in Keras.

Examples:
    >>> import eagerflow as ef
    >>> lstm = ef.layers.LSTM(8, return_sequences=True, return_state=True)
    >>> sequence, h, c = lstm(ef.ones([2, 5, 3]))
    >>> sequence.shape, h.shape, c.shape
    ((2, 5, 8), (2, 8), (2, 8))
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import nest
from eagerflow.layers import call_context, rnn_cells
from eagerflow.layers.base import Layer
from eagerflow.layers.input_spec import InputSpec
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops.typing import DTypeLike
from eagerflow.saving import registry


class RNN(Layer):
    """Runs a cell over the time axis.

    Args:
        cell: a cell layer with ``call(inputs, states)`` returning ``(output,
            new_states)`` and a `state_size` (an int or a list of ints), or a list of
            cells (run as `StackedRNNCells`).
        return_sequences: return the output of every step ``(batch, time, units)``
            instead of the last one.
        return_state: also return the final states (a list after the output).
        go_backwards: process the sequence in reverse (outputs come in processing
            order).
        stateful: carry the final states of a batch into the next call as its initial
            states (fixed batch size); `reset_states()` clears them.
        unroll: accepted for Keras compatibility (the eager loop is always unrolled).
        zero_output_for_mask: output zeros (instead of the previous output) at masked
            steps.

    Raises:
        ValueError: for inputs that are not 3-D, a wrong number of initial states, or a
            stateful layer called with another batch size.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.RNN(ef.layers.SimpleRNNCell(4))
        >>> layer(ef.ones([2, 6, 3])).shape
        (2, 4)
    """

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(cell, dict):
            cell = registry.deserialize(cell, kind="layer")
        if isinstance(cell, (list, tuple)):
            cell = rnn_cells.StackedRNNCells(cell)
        if not hasattr(cell, "state_size") or not callable(cell):
            raise ValueError(
                "The `cell` of an RNN must be a layer with a `state_size` attribute and "
                f"call(inputs, states). Received: cell={cell!r}")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=3)
        self._stateful_states: Any = None
        self._stateful_batch: int | None = None

    def build(self, input_shape: Any) -> None:
        if not self.cell.built:
            self.cell._build_from_shape((input_shape[0], input_shape[-1]))

    def get_initial_state(self, batch_size: int, dtype: DTypeLike = None) -> list:
        """Zero states for a batch: one ``(batch_size, size)`` tensor per state."""
        return [creation_ops.zeros((batch_size, size), dtype or self.dtype)
                for size in rnn_cells.flat_state_sizes(self.cell)]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            self._refuse_nested(args[0], "input")
        return super().__call__(*args, **kwargs)

    def _refuse_nested(self, value: Any, what: str) -> None:
        # (a nested Python list of numbers is one tensor's data, not a structure)
        if isinstance(value, dict) or (isinstance(value, (list, tuple)) and any(
                isinstance(v, dict) or hasattr(v, "shape") for v in value)):
            raise ValueError(
                f"Layer '{self.name}' ({type(self).__name__}) received a nested {what} (a "
                "list, tuple or dict of sequences): eagerflow's RNN layers run on one "
                "(batch, time, features) tensor; nested inputs and multi-dimensional cell "
                "states are not supported. Concatenate the features into one tensor.")

    @property
    def states(self) -> list[Any] | None:
        """The states a stateful layer carries into its next call, as in Keras.

        A list of ``(batch, size)`` tensors, one per cell state (``[h, c]`` for an LSTM):
        the final states of the last call, or zeros of that shape after `reset_states()`.
        None for a layer that is not stateful or was never called. They are not among the
        layer's weights; pass them as ``initial_state=`` to start another layer there.

        Examples:
            >>> import eagerflow as ef
            >>> lstm = ef.layers.LSTM(3, stateful=True)
            >>> _ = lstm(ef.ones([2, 4, 5]))
            >>> [s.shape for s in lstm.states]
            [(2, 3), (2, 3)]
            >>> lstm.reset_states()
            >>> float(ef.reduce_sum(ef.abs(lstm.states[0])))
            0.0
        """
        if not self.stateful:
            return None
        if self._stateful_states is not None:
            return list(self._stateful_states)
        if self._stateful_batch is None:
            return None
        return self.get_initial_state(self._stateful_batch)

    def reset_states(self, states: Any = None) -> None:
        """Clears (or sets) the carried states of a stateful layer.

        After clearing, the next call starts from zeros (`states` reads as zeros).
        """
        self._stateful_states = None if states is None else list(nest.flatten(states))

    def _initial_states(self, batch: int, dtype, initial_state, sequences=None) -> list:
        sizes = rnn_cells.flat_state_sizes(self.cell)
        if initial_state is None:
            carried = self._stateful_states if self.stateful else None
            if carried is not None:
                if carried[0].shape[0] != batch:
                    raise ValueError(
                        f"Stateful layer '{self.name}' carries states for batch size "
                        f"{carried[0].shape[0]} but was called with batch size {batch}. Keep "
                        "the batch size fixed, or call reset_states().")
                return list(carried)
            if batch is None and sequences is not None:
                # Traced with an unknown batch size (an input_signature with None): zeros
                # shaped like the first step's batch, known when the graph runs.
                like = creation_ops.zeros_like(sequences[:, 0, :1], dtype)
                return [math_ops.add(like, creation_ops.zeros((size,), dtype)) for size in sizes]
            return self.get_initial_state(batch, dtype)
        states = nest.flatten(initial_state)
        if len(states) != len(sizes):
            raise ValueError(
                f"Layer '{self.name}' expects {len(sizes)} initial state(s) (sizes {sizes}), "
                f"but it received {len(states)}.")
        converted = []
        for state, size in zip(states, sizes, strict=True):
            state = self._convert_leaf(state)
            if tuple(state.shape) != (batch, size):
                raise ValueError(
                    f"An initial state of layer '{self.name}' has shape {tuple(state.shape)}; "
                    f"expected {(batch, size)}.")
            converted.append(state)
        return converted

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: bool | None = None) -> Any:
        batch, steps = sequences.shape[0], sequences.shape[1]
        if steps == 0:
            raise ValueError(f"Layer '{self.name}' received a sequence with no time steps.")
        states = self._initial_states(batch, sequences.dtype, initial_state, sequences)
        cell = self.cell
        fast = hasattr(cell, "step")
        recurrent_mask = None
        if fast:
            input_mask, recurrent_mask = cell.dropout_masks(batch, sequences.shape[-1],
                                                            sequences.dtype, training)
            if input_mask is not None:
                sequences = math_ops.multiply(sequences, array_ops.expand_dims(input_mask, 1))
            projected = cell.project(sequences)
            # The whole sequence in one op when the cell has one (LSTM, GRU) and no step
            # is masked; outputs come in processing order, as the loop's below.
            whole = None if mask is not None else cell.sequence(
                projected[:, ::-1] if self.go_backwards else projected, states,
                recurrent_mask)
            if whole is not None:
                sequence_outputs, output, states = whole
                return self._finish(batch, states, output, sequence_outputs)
            inputs = array_ops.unstack(projected, axis=1)
        else:
            inputs = array_ops.unstack(sequences, axis=1)
        masks = None if mask is None else array_ops.unstack(mask, axis=1)
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs, previous = [], None
        for t in order:
            if fast:
                output, new_states = cell.step(inputs[t], states, recurrent_mask)
            else:
                output, new_states = cell(inputs[t], states if len(states) > 1 else states[0],
                                          training=training)
                new_states = nest.flatten(new_states)
            if masks is not None:
                keep = array_ops.expand_dims(masks[t], -1)
                if previous is None:
                    previous = math_ops.multiply(output, 0.0)
                fallback = math_ops.multiply(previous, 0.0) if self.zero_output_for_mask else (
                    previous)
                output = math_ops.where(keep, output, fallback)
                new_states = [math_ops.where(keep, new, old)
                              for new, old in zip(new_states, states, strict=True)]
                previous = output
            states = new_states
            if self.return_sequences:
                outputs.append(output)
        return self._finish(batch, states, output,
                            array_ops.stack(outputs, axis=1) if self.return_sequences else None)

    def _finish(self, batch, states, output, sequence_outputs):
        """Keeps a stateful layer's final states; returns what the layer returns."""
        if self.stateful and not call_context.state.probing:
            self._stateful_states = [array_ops.stop_gradient(s) for s in states]
            self._stateful_batch = batch
        result = sequence_outputs if self.return_sequences else output
        if self.return_state:
            return [result, *states]
        return result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(rnn_cells.flat_state_sizes(self.cell))
        return output_mask

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful,
                      unroll=self.unroll, zero_output_for_mask=self.zero_output_for_mask)
        if type(self) is RNN:
            config["cell"] = registry.serialize(self.cell, "layer")
        return config


class _BuiltinRNN(RNN):
    """An RNN whose cell is made from the layer's own arguments (SimpleRNN/LSTM/GRU)."""

    _cell_class: Any = None
    _LAYER_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
                   "zero_output_for_mask", "name", "trainable", "dtype", "input_shape",
                   "batch_input_shape", "input_dim", "batch_size", "activity_regularizer",
                   "autocast")

    def __init__(self, units: int, **kwargs: Any) -> None:
        layer_args = {k: kwargs.pop(k) for k in self._LAYER_ARGS if k in kwargs}
        cell_dtype = layer_args.get("dtype")
        cell = self._cell_class(units, dtype=cell_dtype, **kwargs)
        super().__init__(cell, **layer_args)

    def __getattr__(self, name):
        # units, activation, dropout, ... are the cell's (Keras exposes them on the layer).
        if name.startswith("_") or "cell" not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self.__dict__["cell"], name)

    def get_config(self) -> dict:
        config = super().get_config()
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        # Layer.get_config writes a set activity_regularizer; Keras's SimpleRNN/LSTM/GRU
        # list the key even when it is None.
        config.setdefault("activity_regularizer", None)
        return config


class SimpleRNN(_BuiltinRNN):
    """Fully connected RNN: ``h_t = activation(x_t W + h_{t-1} U + b)``.

    Args:
        units: state size.
        activation: default tanh.
        use_bias, kernel_initializer, bias_initializer: the cell's (see SimpleRNNCell).
        recurrent_initializer: the cell's, default orthogonal.
        *_regularizer, *_constraint: the cell's (see SimpleRNNCell).
        dropout, recurrent_dropout, seed: the cell's (see SimpleRNNCell).
        return_sequences, return_state, go_backwards: as in RNN.
        stateful, unroll, zero_output_for_mask: as in RNN.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.SimpleRNN(4, return_sequences=True)(ef.ones([2, 5, 3])).shape
        (2, 5, 4)
    """

    _cell_class = rnn_cells.SimpleRNNCell


class LSTM(_BuiltinRNN):
    """Long short-term memory layer (Keras 3 layout: gates i, f, c, o).

    Args:
        units: state size.
        activation: default tanh; recurrent_activation: default sigmoid.
        unit_forget_bias: forget-gate bias initialized to ones (default True).
        other arguments: as SimpleRNN.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.LSTM(4)
        >>> layer(ef.ones([2, 5, 3])).shape, layer.cell.kernel.shape
        ((2, 4), (3, 16))
    """

    _cell_class = rnn_cells.LSTMCell


class GRU(_BuiltinRNN):
    """Gated recurrent unit layer (Keras 3 layout: gates z, r, h; reset_after=True).

    Args:
        units: state size.
        activation: default tanh; recurrent_activation: default sigmoid.
        reset_after: apply the reset gate after the recurrent matmul (default True).
        other arguments: as SimpleRNN.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GRU(4, return_state=True)(ef.ones([2, 5, 3]))[1].shape
        (2, 4)
    """

    _cell_class = rnn_cells.GRUCell

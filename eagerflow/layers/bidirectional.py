"""Bidirectional: runs a recurrent layer forwards and a copy of it backwards, and merges.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Bidirectional(ef.layers.LSTM(4, return_sequences=True, name="lstm"))
    >>> layer(ef.ones([2, 5, 3])).shape
    (2, 5, 8)
    >>> [v.name for v in layer.weights][::3]
    ['forward_lstm_cell/kernel', 'backward_lstm_cell/kernel']
"""

from __future__ import annotations

from typing import Any

from eagerflow.layers import rnn_cells
from eagerflow.layers.base import Layer
from eagerflow.layers.rnn import RNN
from eagerflow.ops import array_ops
from eagerflow.ops import math as math_ops
from eagerflow.saving import registry

_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


def _copy(layer, name: str, go_backwards: bool, dtype=None):
    config = registry.serialize(layer, "layer")
    config["config"].update(name=name, go_backwards=go_backwards)
    if dtype is not None:
        config["config"]["dtype"] = dtype
    copy = registry.deserialize(config, kind="layer")
    # The copy's cell is not built yet: naming it after the copy names its variables
    # forward_lstm_cell/kernel, backward_lstm_cell/kernel.
    copy.cell.__dict__["_name"] = f"{name}_cell"
    return copy


class Bidirectional(Layer):
    """Wraps an RNN: one copy reads the sequence forwards, one backwards.

    Both copies are made from the wrapped layer's config (as Keras 3 does), named
    ``forward_<name>`` and ``backward_<name>``. With ``return_sequences=True`` the backward
    outputs are put back in time order before merging, so step ``t`` of the result sees
    the whole sequence.

    Args:
        layer: an RNN layer (SimpleRNN, LSTM, GRU or RNN).
        dtype: when given, both copies compute in it (e.g. float64).
        merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"``, or None for a
            list ``[forward, backward]``.
        backward_layer: an explicit backward layer (must have ``go_backwards=True`` and
            the same return_sequences/return_state).

    Raises:
        ValueError: for a non-RNN layer, an unknown merge mode, or a mismatched
            backward layer.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.Bidirectional(ef.layers.GRU(3), merge_mode="sum")
        >>> layer(ef.ones([2, 4, 5])).shape
        (2, 3)
    """

    def __init__(self, layer: Any, merge_mode: str | None = "concat", weights: Any = None,
                 backward_layer: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(layer, dict):
            layer = registry.deserialize(layer, kind="layer")
        if isinstance(backward_layer, dict):
            backward_layer = registry.deserialize(backward_layer, kind="layer")
        if not isinstance(layer, RNN):
            raise ValueError(
                "Bidirectional needs a recurrent layer (SimpleRNN, LSTM, GRU or RNN). "
                f"Received: layer={layer!r}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: merge_mode={merge_mode!r}. Merge mode should "
                f"be one of {list(_MERGE_MODES)}")
        # An explicit dtype (e.g. float64) applies to both directions.
        dtype = kwargs.get("dtype")
        base = layer.name.removeprefix("forward_")
        self.forward_layer = _copy(layer, "forward_" + base, layer.go_backwards, dtype)
        if backward_layer is None:
            backward = _copy(layer, "backward_" + layer.name.removeprefix("backward_"),
                             not layer.go_backwards, dtype)
        else:
            if backward_layer.go_backwards == layer.go_backwards or (
                    backward_layer.return_sequences != layer.return_sequences
                    or backward_layer.return_state != layer.return_state):
                raise ValueError(
                    "backward_layer must process the sequence in the other direction "
                    "(go_backwards) and have the same return_sequences and return_state as "
                    f"the forward layer. Received: backward_layer={backward_layer!r}")
            backward = backward_layer
        self.backward_layer = backward
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        if weights is not None:
            raise ValueError("Bidirectional(weights=...) is not supported; call "
                             "set_weights() after building the layer.")

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: bool | None = None) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        forward = self.forward_layer(sequences, initial_state=forward_state, mask=mask,
                                     training=training)
        backward = self.backward_layer(sequences, initial_state=backward_state, mask=mask,
                                       training=training)
        states = []
        if self.return_state:
            forward, *forward_states = forward
            backward, *backward_states = backward
            states = forward_states + backward_states
        if self.return_sequences:
            backward = backward[:, ::-1]
        if self.merge_mode == "concat":
            output = array_ops.concat([forward, backward], -1)
        elif self.merge_mode == "sum":
            output = math_ops.add(forward, backward)
        elif self.merge_mode == "mul":
            output = math_ops.multiply(forward, backward)
        elif self.merge_mode == "ave":
            output = math_ops.multiply(math_ops.add(forward, backward), 0.5)
        else:
            output = [forward, backward]  # type: ignore[assignment]  # (both directions)
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        masks = [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        if self.return_state:
            count = len(rnn_cells.flat_state_sizes(self.forward_layer.cell))
            return masks + [None] * (2 * count)
        return masks if self.merge_mode is None else output_mask

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(layer=registry.serialize(self.forward_layer, "layer"),
                      merge_mode=self.merge_mode,
                      backward_layer=registry.serialize(self.backward_layer, "layer"))
        return config

"""A layer's weights: creating them, listing them, freezing them, and their losses.

`WeightsMixin` is the part of `Layer` that deals with variables. A layer lists its own
weights (made by `add_weight`, in creation order) first, then the variables of everything
its attributes hold (see `tracking`). Freezing (``trainable = False``) flips each
variable's own `trainable` flag, so tapes stop watching it and optimizers skip it at the
next step, with nothing to recompile.

Example:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(2, input_shape=(3,), name="d")
    >>> [v.name for v in layer.trainable_variables]
    ['d/kernel', 'd/bias']
    >>> layer.trainable = False
    >>> len(layer.trainable_variables), len(layer.non_trainable_variables)
    (0, 2)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import dtypes, trackable
from eagerflow.core import variable as variable_lib
from eagerflow.graph import function
from eagerflow.layers import call_context, constraints, initializers, regularizers, tracking

__all__ = ["WeightsMixin"]

_Variable = variable_lib.Variable
_state = call_context.state


class WeightsMixin:
    """Weight creation, collections, freezing, get/set_weights and losses of a Layer."""

    @property
    def trainable(self) -> bool:
        """Whether the weights train; setting it (un)freezes all sublayers too."""
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        value = bool(value)
        for layer in tracking.flatten_layers(self):
            layer.__dict__["_trainable"] = value
            for variable in layer._own_weights.values():
                variable.trainable = value and id(variable) in layer._trainable_ids
            if value:
                for variable in layer._frozen_vars:
                    variable.trainable = True
                layer._frozen_vars.clear()
                continue
            for _, item in layer._tracked_items():
                for leaf in tracking.leaves(item):
                    if isinstance(leaf, _Variable) and leaf.trainable:
                        leaf.trainable = False
                        layer._frozen_vars.append(leaf)

    # -- weights ---------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, **kwargs):
        """Creates a weight variable owned by this layer, named ``<layer>/<name>``.

        Args:
            name: the weight's name within the layer (``"kernel"``).
            shape: its shape (fully known ints).
            dtype: its dtype (default: the layer's).
            initializer: name, instance or callable; default ``"glorot_uniform"`` for
                floating weights and ``"zeros"`` for the others.
            regularizer: name, instance or callable; its penalty joins `losses`.
            trainable: whether optimizers update it (non-trainable weights hold state
                such as BatchNormalization's moving statistics).
            constraint: projection applied after each optimizer update.
            **kwargs: ``aggregation``, ``synchronization``, ``autocast`` (accepted for
                Keras compatibility, no effect on one device).

        Returns:
            The new `ef.Variable`.

        Raises:
            ValueError: for a shape with unknown or negative sizes.
            TypeError: for other keyword arguments.

        Example:
            >>> import eagerflow as ef
            >>> layer = ef.layers.Layer(name="holder")
            >>> layer.add_weight("w", shape=(2,), initializer="zeros")
            <ef.Variable 'holder/w' shape=(2,) dtype=float32, numpy=array([0., 0.], dtype=float32)>
        """
        unknown = set(kwargs) - {"aggregation", "synchronization", "autocast", "use_resource"}
        if unknown:
            raise TypeError(f"add_weight() got unexpected keyword arguments {sorted(unknown)}")
        if isinstance(name, (tuple, list)) and shape is None:  # Keras 3 order: shape first
            name, shape = None, name
        shape = () if shape is None else tuple(shape)
        if any(d is None or int(d) < 0 for d in shape):
            raise ValueError(
                f"Weight '{name}' of layer '{self._name}' needs a fully known, non-negative "
                f"shape, got {shape}. The input dimensions a layer builds its weights from "
                "must be known (e.g. the last axis of a Dense input).")
        shape = tuple(int(d) for d in shape)
        dtype = self._dtype if dtype is None else dtypes.as_dtype(dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtypes.is_floating(dtype) else "zeros"
        child = self._unique_weight_name(name or "variable")
        trainable = bool(trainable) and dtypes.is_floating(dtype)
        # Weights are state, not part of a computation: a layer first built inside a
        # traced function still gets concrete initial values (Keras does the same).
        with function.init_scope():
            value = initializers.get(initializer)(shape, dtype=dtype)
            variable = _Variable(value, trainable=trainable and self._trainable,
                                 name=f"{self._name}/{child}", dtype=dtype,
                                 constraint=constraints.get(constraint), shape=shape)
        self._own_weights[child] = variable
        if trainable:
            self._trainable_ids.add(id(variable))
        if regularizer is not None:
            self._weight_regularizers[child] = regularizers.get(regularizer)
        for outer in reversed(_state.stack):
            if outer is not self:
                # Checked when that call ends: the creating layer must be tracked by it.
                _state.created.append((outer, self, variable.name))
                break
        self._track_new_variable(child, variable)
        return variable

    add_variable = add_weight

    def _unique_weight_name(self, name: str) -> str:
        if name not in self._own_weights:
            return name
        index = 1
        while f"{name}_{index}" in self._own_weights:
            index += 1
        return f"{name}_{index}"

    def _tracked_items(self) -> list:
        """``(attribute, value)`` pairs holding sublayers or variables, in order."""
        return tracking.attribute_items(self)

    def _trackable_children(self) -> dict:
        """Own weights by weight name, then attributes holding anything a checkpoint saves.

        Besides layers and variables this includes other trackables held by a layer (a
        metric, a custom state object), whose variables are saved but are not weights.
        """
        children = dict(self._own_weights)
        own = {id(v) for v in children.values()}
        skip = self._UNTRACKED
        for name, value in vars(self).items():
            if name in skip or name in children or id(value) in own:
                continue
            if trackable.is_trackable_value(value):
                children[name] = value
        return children

    @property
    def variables(self) -> list:
        """All variables of this layer and its sublayers, each once, in creation order."""
        found: list = []
        tracking.collect_variables(self, found, set())
        return found

    @property
    def weights(self) -> list:
        """Same as `variables`."""
        return self.variables

    @property
    def trainable_variables(self) -> list:
        """The variables optimizers update (empty when the layer is frozen)."""
        if not self._trainable:
            return []
        return [v for v in self.variables if v.trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> list:
        """The variables not trained: frozen weights and state such as moving statistics."""
        if not self._trainable:
            return self.variables
        return [v for v in self.variables if not v.trainable]

    non_trainable_weights = non_trainable_variables

    def _unbuilt_paths(self) -> list:
        return [layer._name for layer in tracking.flatten_layers(self) if not layer.built]

    def _require_built(self, what: str) -> None:
        missing = self._unbuilt_paths()
        if missing:
            raise ValueError(
                f"You tried to call `{what}` on layer '{self._name}', but it (or its "
                f"sublayers {missing}) has not been built yet, so its weights do not exist. "
                "Call it on a batch first (`layer(x)`), build it with "
                "`layer.build(input_shape)`, or pass `input_shape=` to its constructor.")

    def count_params(self) -> int:
        """Number of scalars in all weights.

        Raises:
            ValueError: if the layer is not built yet.

        Example:
            >>> import eagerflow as ef
            >>> ef.layers.Dense(3, input_shape=(4,)).count_params()
            15
        """
        self._require_built("count_params")
        return int(sum(int(np.prod(v.shape)) for v in self.variables))

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays, in `weights` order.

        Raises:
            ValueError: if the layer is not built yet.

        Example:
            >>> import eagerflow as ef
            >>> [w.shape for w in ef.layers.Dense(2, input_shape=(3,)).get_weights()]
            [(3, 2), (2,)]
        """
        self._require_built("get_weights")
        return [v.numpy() for v in self.variables]

    def set_weights(self, weights) -> None:
        """Assigns NumPy arrays (in `weights` order) to the weights.

        Raises:
            ValueError: for the wrong number of arrays or a wrong shape, naming both.

        Example:
            >>> import eagerflow as ef, numpy as np
            >>> layer = ef.layers.Dense(1, input_shape=(1,))
            >>> layer.set_weights([np.full((1, 1), 2.0), np.zeros(1)])
            >>> layer(ef.constant([[3.0]]))
            ef.Tensor([[6.]], shape=(1, 1), dtype=float32)
        """
        self._require_built("set_weights")
        variables = self.variables
        weights = list(weights)
        if len(weights) != len(variables):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self._name}' with a weight "
                f"list of length {len(weights)}, but the layer was expecting "
                f"{len(variables)} weights ({[v.name for v in variables]}).")
        for variable, value in zip(variables, weights, strict=True):
            if tuple(np.shape(value)) != tuple(variable.shape):
                raise ValueError(
                    f"Layer '{self._name}' weight {variable.name!r} has shape "
                    f"{tuple(variable.shape)}, which is not compatible with the provided "
                    f"weight shape {tuple(np.shape(value))}.")
        for variable, value in zip(variables, weights, strict=True):
            variable.assign(np.asarray(value, variable.dtype))

    # -- losses ----------------------------------------------------------------------------
    def add_loss(self, loss) -> None:
        """Adds a loss tensor (or list) computed in `call`; `losses` shows the latest call's.

        Example:
            >>> import eagerflow as ef
            >>> class Penalized(ef.layers.Layer):
            ...     def call(self, x):
            ...         self.add_loss(ef.reduce_sum(x))
            ...         return x
            >>> layer = Penalized()
            >>> _ = layer(ef.ones([2])); _ = layer(ef.ones([3]))
            >>> layer.losses
            [ef.Tensor(3.0, shape=(), dtype=float32)]
        """
        if _state.probing:
            return
        generation = _state.generation if _state.stack else self._generation
        if self._loss_generation != generation:
            self.__dict__["_call_losses"] = []
            self.__dict__["_loss_generation"] = generation
        self._call_losses.extend(loss if isinstance(loss, (list, tuple)) else [loss])

    @property
    def losses(self) -> list:
        """Losses of the latest call (add_loss, activity) plus weight penalties, recomputed.

        A sublayer's call losses count when they were added during this layer's latest
        call or later (as if every call cleared the losses below it, as Keras does).
        """
        generation = self._generation
        found = []
        for layer in tracking.flatten_layers(self):
            if layer._loss_generation >= generation and layer._call_losses:
                found.extend(layer._call_losses)
            for child, regularizer in layer._weight_regularizers.items():
                found.append(regularizer(layer._own_weights[child]))
        return found


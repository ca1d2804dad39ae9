"""Layer: the base class of every layer and model.

A layer holds weights, creates them the first time it is called (when the input shape is
known), and computes its output in `call`. Its `__call__` wraps `call` with everything a
Keras user expects: input conversion and casting, building, input checks, the `training`
flag inherited from enclosing calls, masks, the shape log for `summary`, activity
regularization, and the functional API when called on `ef.layers.Input` tensors.

What a layer owns follows one rule (see `ownership`): the weights it made with
`add_weight`, plus every Layer and Variable reachable from its attributes. The facts
`__call__` needs about a class's `call` signature are computed once per class, when the
class is defined, so a call costs a few attribute reads on top of the ops it runs.

A layer lists its own weights (made by `add_weight`, in creation order) first, then the
variables of everything its attributes hold. Freezing (``trainable = False``) flips each
variable's own `trainable` flag, so tapes stop watching it and optimizers skip it at the
next step, with nothing to recompile.

Examples:
    >>> import eagerflow as ef
    >>> class Scale(ef.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")
    ...     def call(self, x):
    ...         return x * self.w
    >>> layer = Scale(name="scale")
    >>> layer(ef.constant([[1.0, 2.0]]))
    ef.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
    >>> [v.name for v in layer.weights]
    ['scale/w']
    >>> layer.trainable = False
    >>> len(layer.trainable_variables), len(layer.non_trainable_variables)
    (0, 1)
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import context, dtypes, nest, tensor, trackable
from eagerflow.core import variable as variable_lib
from eagerflow.core.dispatch import convert_input
from eagerflow.graph import autograph, function
from eagerflow.layers import (
    call_context,
    constraints,
    initializers,
    masking,
    ownership,
    regularizers,
    subclassing,
)
from eagerflow.layers import input_spec as input_spec_lib
from eagerflow.ops import math as math_ops
from eagerflow.ops import random as random_ops
from eagerflow.ops.typing import DTypeLike
from eagerflow.saving import load_budget, registry
from eagerflow.utils import naming

_Tensor = tensor.Tensor
_Variable = variable_lib.Variable
_ndarray = np.ndarray
_state = call_context.state
# Bumped by every `trainable` assignment, so that traced training steps (whose graphs may
# depend on layers' `trainable` flags, as BatchNormalization's does) know to look again
# (read through `layer_info.trainable_generation`).
trainable_generation = 0

_MISSING_INIT = (
    "It looks like you are subclassing `{cls}` and forgot to call `super().__init__()`. "
    "Always start your `__init__()` by calling `super().__init__()`."
)


unique_name = naming.unique_name  # (layers name themselves through the one counter)
reset_name_uids = naming.reset_name_uids


def _shapes_of(structure):
    """The shape (a tuple) of each tensor in `structure`, in the same structure."""
    if hasattr(structure, "shape"):
        return tuple(structure.shape)
    if nest.is_nested(structure):
        return nest.map_structure(
            lambda t: tuple(t.shape) if hasattr(t, "shape") else None, structure)
    return None


def _is_symbolic_structure(structure) -> bool:
    if getattr(structure, "_is_symbolic", False):
        return True
    if nest.is_nested(structure):
        return any(getattr(x, "_is_symbolic", False) for x in nest.flatten(structure))
    return False


_PLAIN_ARGS = frozenset({bool, int, float, str, type(None), tensor.Tensor})


def _has_symbolic_args(args, kwargs) -> bool:
    """Whether extra call arguments hold symbolic tensors (flags and tensors: one test)."""
    for value in (*args, *kwargs.values()):
        if type(value) not in _PLAIN_ARGS and _is_symbolic_structure(value):
            return True
    return False


def _is_raw_data(value) -> bool:
    """A nested list of Python numbers: one array of data, not a list of inputs."""
    return all(isinstance(x, (int, float, bool)) for x in nest.flatten(value))


class _LayerMeta(type):
    """Finishes construction once the subclass's ``__init__`` has fully run."""

    def __call__(cls, *args, **kwargs):
        layer = super().__call__(*args, **kwargs)
        if "_layer_initialized" not in layer.__dict__:
            raise RuntimeError(_MISSING_INIT.format(cls=cls.__name__))
        if cls._uses_auto_config:  # type: ignore[attr-defined]  # (set per Layer subclass)
            layer.__dict__["_auto_config"] = subclassing.bind_config(cls, args, kwargs)
        shape = layer.__dict__["_batch_input_shape"]
        if shape is not None and not layer.built:
            # `input_shape=` builds at once, so weights exist before the first call
            #; Sequential probes the shapes through its layers itself.
            layer._build_from_shape(shape)
        return layer


class Layer(trackable.Module, metaclass=_LayerMeta):
    """Base class of layers: weights built on first call, computation in `call`.

    Subclasses create weights in `build(input_shape)` with `add_weight` (or sublayers in
    ``__init__``) and compute outputs in ``call(inputs, training=None, mask=None)``; the
    `training` and `mask` parameters are optional and passed only when declared.

    Args:
        trainable: whether the layer's weights are trained.
        name: a name; by default the class name in snake case, unique per class
            (``dense``, ``dense_1``, ...).
        dtype: dtype of the weights and of the computation (default float32); floating
            inputs of another dtype are cast to it.
        input_shape: shape of one example (without the batch axis); builds the layer at
            once, and makes it the input of a `Sequential` model.
        batch_input_shape: the same with the batch axis.
        input_dim: shorthand for ``input_shape=(input_dim,)``.
        batch_size: fixed batch size to combine with `input_shape`.
        activity_regularizer: a regularizer applied to the outputs, added to `losses`.
        autocast: whether floating inputs are cast to `dtype`.

    Raises:
        TypeError: for unknown keyword arguments.
        ValueError: for an invalid name or dtype.

    Examples:
        >>> import eagerflow as ef
        >>> dense = ef.layers.Dense(4, input_shape=(3,))
        >>> dense.built, [tuple(w.shape) for w in dense.weights]
        (True, [(3, 4), (4,)])
    """

    _is_layer = True
    _auto_config_base = True
    # The base class's own bookkeeping: never children (own weights are listed through
    # `_own_weights`), and skipping them by name keeps the attribute walk short.
    _BOOKKEEPING = frozenset({
        "_layer_initialized", "_name", "_dtype", "_trainable", "_autocast", "built", "_called",
        "_own_weights", "_trainable_ids", "_weight_regularizers", "_frozen_vars",
        "_call_losses", "_loss_generation", "_generation", "_call_shapes", "_auto_config",
        "_build_input_shape", "_batch_input_shape", "_inbound_nodes", "_input_spec",
        "_activity_regularizer"})
    supports_masking = False
    # The state above, set in one batch by `__init__` (declared here for type checkers), and
    # what `subclassing.describe_call` finds out about each subclass's `call`.
    _name: str
    _dtype: np.dtype
    _trainable: bool
    _autocast: bool
    built: bool
    _called: bool
    _own_weights: dict[str, Any]
    _trainable_ids: set[int]
    _weight_regularizers: dict[str, Any]
    _frozen_vars: list[Any]
    _call_losses: list[Any]
    _loss_generation: int
    _generation: int
    _call_shapes: Any
    _auto_config: Any
    _build_input_shape: Any
    _batch_input_shape: tuple[int | None, ...] | None
    _inbound_nodes: list[Any]
    _input_spec: Any
    _activity_regularizer: Any
    _call_accepts_training: bool
    _call_training_default: Any
    _call_accepts_mask: bool
    _call_input_name: str | None
    _overrides_compute_mask: bool

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_functional_variant_of" not in vars(cls):  # (models/model.py's mix-ins)
            registry.register("layer", cls)  # user-defined layers too
        subclassing.describe_call(cls, Layer)
        if "build" in vars(cls):
            cls.build = subclassing.marks_built(vars(cls)["build"])  # type: ignore[method-assign]

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: DTypeLike = None, *,
                 input_shape: Any = None, batch_input_shape: Any = None, input_dim: Any = None,
                 batch_size: Any = None, activity_regularizer: Any = None, autocast: bool = True,
                 **kwargs: Any) -> None:
        unknown = set(kwargs) - {"dynamic"}  # every layer is eager ("dynamic") anyway
        if unknown:
            raise TypeError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                f"{ {k: kwargs[k] for k in sorted(unknown)} }"
            )
        if name is not None and (not isinstance(name, str) or "/" in name or not name):
            raise ValueError(
                f"Argument `name` must be a non-empty string without '/'. Received: "
                f"name={name!r}")
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            if isinstance(input_shape, int):
                input_shape = (input_shape,)
            batch_input_shape = (batch_size, *input_shape)
        try:
            dtype = dtypes.as_dtype(backend.floatx() if dtype is None else dtype)
        except TypeError:
            raise ValueError(
                f"The dtype of {type(self).__name__} must be a dtype such as 'float32' or "
                f"'float64'. Received: dtype={dtype!r} (dtype policies such as "
                "'mixed_float16' are not supported).") from None
        state = self.__dict__
        state.update(
            _layer_initialized=True,
            _name=name if name is not None else unique_name(
                naming.snake_case(type(self).__name__)),
            _dtype=dtype,
            _trainable=bool(trainable),
            _autocast=bool(autocast),
            built=False,
            _called=False,
            _own_weights={},
            _trainable_ids=set(),
            _weight_regularizers={},
            _frozen_vars=[],
            _call_losses=[],
            _loss_generation=-1,
            _generation=0,
            _call_shapes=None,
            _auto_config=None,
            _build_input_shape=None,
            _batch_input_shape=None if batch_input_shape is None else tuple(
                None if d is None else int(d) for d in batch_input_shape),
            _inbound_nodes=[],
            _input_spec=None,
            _activity_regularizer=regularizers.get(activity_regularizer),
        )

    # -- construction checks ---------------------------------------------------------------
    def __setattr__(self, name, value):
        state = self.__dict__
        if "_layer_initialized" not in state:
            if next(ownership.leaves(value), None) is not None:
                raise RuntimeError(_MISSING_INIT.format(cls=type(self).__name__))
        elif _state.stack and state["_called"] and any(x is self for x in _state.stack):
            self._check_new_state(name, value)
        trackable.Trackable.__setattr__(self, name, value)

    def _check_new_state(self, name, value) -> None:
        """Refuses layers/variables first created inside `call` after the first call."""
        new = list(ownership.leaves(value))
        if not new:
            return
        known = {id(x) for x in ownership.flatten_layers(self)}
        known.update(id(v) for v in self.variables)
        for item in new:
            if id(item) in known:
                continue
            kind = "variable" if isinstance(item, _Variable) else type(item).__name__
            raise ValueError(
                f"Layer '{self._name}' created a new {kind} and assigned it to attribute "
                f"'{name}' inside call(), after its first call. It would be created again on "
                "every call and never be trained or saved. Create it once in __init__() or "
                f"build() (e.g. `self.{name} = ...`) and only use it in call()."
            )

    # -- basic properties ------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The layer's name (unique per class unless given)."""
        return self._name

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the layer's weights and computation."""
        return self._dtype

    @property
    def compute_dtype(self) -> np.dtype:
        """The dtype floating inputs are cast to (same as `dtype`)."""
        return self._dtype

    @property
    def input_spec(self) -> Any:
        """An `InputSpec` (or a list of them) checked on every call, or None."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        self.__dict__["_input_spec"] = value

    @property
    def activity_regularizer(self) -> Any:
        """Regularizer applied to the layer's outputs on every call (added to `losses`)."""
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, value: Any) -> None:
        self.__dict__["_activity_regularizer"] = regularizers.get(value)

    # -- building and calling --------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        """Creates the weights for inputs of `input_shape`; called once, before `call`.

        Override it to create weights with `add_weight`. The default creates nothing.
        """

    def _build_from_shape(self, input_shape) -> None:
        self.__dict__["_build_input_shape"] = input_shape
        self.build(input_shape)
        self.__dict__["built"] = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation; subclasses override it.

        Raises:
            TypeError: on the base class, which has no computation.
        """
        raise TypeError(
            f"Layer '{self._name}' ({type(self).__name__}) does not implement call(): "
            "subclasses of Layer must define `call(self, inputs, ...)`.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # hot path: benchmarks/bench_layers.py measures this against raw ops.
        # 1. Separate the input (first positional argument, or `inputs=`) from the rest.
        if args:
            inputs = args[0]
            args = args[1:]
        elif "inputs" in kwargs:
            inputs = kwargs.pop("inputs")
        elif self._call_input_name in kwargs:  # by the name `call` gives it (`query=`)
            inputs = kwargs.pop(self._call_input_name)
        else:
            raise TypeError(f"Layer '{self._name}' was called without an input tensor.")
        # 2. Symbolic inputs build a functional graph; anything else becomes tensors, and
        #    floating inputs are cast to the layer's dtype.
        if type(inputs) is _Tensor:
            if (args or kwargs) and _has_symbolic_args(args, kwargs):
                return _symbolic().call_symbolic(self, inputs, args, kwargs)
            dtype = inputs.dtype
            if dtype != self._dtype and self._autocast and dtype.kind == "f":
                inputs = math_ops.cast(inputs, self._dtype)
        else:
            if _is_symbolic_structure(inputs) or _has_symbolic_args(args, kwargs):
                return _symbolic().call_symbolic(self, inputs, args, kwargs)
            inputs = self._convert_inputs(inputs)
        # 3. Check the input spec, and build the layer on its first call.
        if not self.built:
            if self._input_spec is not None:
                input_spec_lib.assert_input_compatibility(self._input_spec, inputs, self._name)
            self._build_from_shape(_shapes_of(inputs))
        if self._input_spec is not None:
            input_spec_lib.assert_input_compatibility(self._input_spec, inputs, self._name)
        # 4. Resolve `training`: the argument, else the enclosing call's, else `call`'s
        #    default; always off in a shape probe. Passed only if `call` declares it.
        state = _state
        cls = type(self)
        if "training" in kwargs:
            training = kwargs["training"]
            if not cls._call_accepts_training:
                del kwargs["training"]
        else:
            training = None
        if training is None:
            training = state.training
            if training is None:
                training = cls._call_training_default
        if state.probing:
            training = False
        if training is not None and cls._call_accepts_training:
            kwargs["training"] = training
        # 5. Find the input mask: the `mask=` argument, else the one the inputs carry.
        previous_mask = None
        if cls._call_accepts_mask and kwargs.get("mask") is not None:
            previous_mask = kwargs["mask"]
        elif masking._masks and (cls._call_accepts_mask or self.supports_masking
                                 or cls._overrides_compute_mask):
            previous_mask = masking.get_masks(inputs)
            if previous_mask is not None and cls._call_accepts_mask:
                kwargs["mask"] = previous_mask
        # 6. Bookkeeping: stamp the call's generation (for `losses`) and reserve this
        #    call's entry in the shape log (a first call starts its own log, for `summary`).
        stack = state.stack
        if not stack:
            state.generation += 1
        self.__dict__["_generation"] = state.generation
        log = state.shape_log
        own_log = None
        if log is None and not self._called and not state.probing:
            log = own_log = state.shape_log = []
        if log is not None:
            entry = len(log)
            log.append(None)
        # 7. Run `call` with this layer on the call stack and `training` in force (its
        #    control flow converted inside a trace; its randomness its own).
        outer_training = state.training
        state.training = training
        stack.append(self)
        streams = random_ops.active_streams()  # a layer's randomness is its own (see there)
        try:
            if streams is None:
                outputs = autograph.call_converted(self.call, inputs, *args, **kwargs)
            else:
                with random_ops.function_streams(None):
                    outputs = autograph.call_converted(self.call, inputs, *args, **kwargs)
        except BaseException:
            if state.created:
                state.created[:] = [c for c in state.created if c[0] is not self]
            raise
        finally:
            stack.pop()
            state.training = outer_training
            if own_log is not None:
                state.shape_log = None
        # 8. Check that layers created inside `call` are owned, and log the shapes.
        if state.created:
            self._check_created_layers()
        if log is not None:
            log[entry] = (self, _shapes_of(inputs), _shapes_of(outputs))
            if own_log is not None and len(own_log) > 1:
                self.__dict__["_call_shapes"] = own_log
        if not state.probing:
            self.__dict__["_called"] = True
        # 9. Attach the output mask and add the activity regularizer's loss.
        if cls._overrides_compute_mask or (previous_mask is not None and self.supports_masking):
            masking.set_masks(outputs, self.compute_mask(inputs, previous_mask))
        if self._activity_regularizer is not None and not state.probing:
            for output in nest.flatten(outputs):
                self.add_loss(regularizers.activity_loss(self._activity_regularizer, output))
        return outputs

    def _convert_inputs(self, inputs):
        if nest.is_nested(inputs) and not _is_raw_data(inputs):
            return nest.map_structure(self._convert_leaf, inputs)
        return self._convert_leaf(inputs)

    def _convert_leaf(self, value):
        if value is None:
            return None
        if type(value) is not _Tensor:
            if isinstance(value, _ndarray) and value.dtype.kind == "f" and self._autocast:
                return tensor.new_tensor(value.astype(self._dtype))
            value = convert_input(value)
        if value.dtype.kind == "f" and value.dtype != self._dtype and (
                self._autocast):
            return math_ops.cast(value, self._dtype)
        return value

    def _check_created_layers(self) -> None:
        mine = [c for c in _state.created if c[0] is self]
        if not mine:
            return
        _state.created[:] = [c for c in _state.created if c[0] is not self]
        owned = {id(layer) for layer in ownership.flatten_layers(self)}
        for _, creator, variable_name in mine:
            if id(creator) not in owned:
                kind = type(creator).__name__
                raise ValueError(
                    f"Layer '{creator._name}' ({kind}) was created inside the call() of "
                    f"layer '{self._name}', which does not own it: its variable "
                    f"'{variable_name}' would never be trained or saved. Create the layer "
                    f"once in __init__() (or build()) and assign it to an attribute of "
                    f"'{self._name}', e.g. `self.{creator._name} = {kind}(...)`, then call "
                    "that attribute in call().")

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The mask of the outputs: the input mask for layers that support masking.

        Examples:
            >>> import eagerflow as ef
            >>> print(ef.layers.Dense(2).compute_mask(ef.ones([1, 2]), None))
            None
        """
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for `input_shape` (None entries are unknown sizes).

        Found by running the layer on small dummy inputs (building it if needed), so it
        agrees with `call` by construction.

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.Dense(5).compute_output_shape((None, 3))
            (None, 5)
        """
        return _symbolic().probe_output_shapes(self, input_shape)

    # -- trainability ----------------------------------------------------------------------
    @property
    def trainable(self) -> bool:
        """Whether the weights train; setting it (un)freezes all sublayers too."""
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        global trainable_generation
        trainable_generation += 1
        value = bool(value)
        for layer in ownership.flatten_layers(self):
            layer.__dict__["_trainable"] = value
            for variable in layer._own_weights.values():
                variable.trainable = value and id(variable) in layer._trainable_ids
            if value:
                for variable in layer._frozen_vars:
                    variable.trainable = True
                layer._frozen_vars.clear()
                continue
            for _, item in layer._owned_items():
                for leaf in ownership.leaves(item):
                    if isinstance(leaf, _Variable) and leaf.trainable:
                        leaf.trainable = False
                        layer._frozen_vars.append(leaf)

    # -- weights ---------------------------------------------------------------------------
    def add_weight(self, name: str | None = None, shape: Sequence[int] | None = None,
                   dtype: DTypeLike = None, initializer: Any = None, regularizer: Any = None,
                   trainable: bool = True, constraint: Any = None, **kwargs: Any) -> Any:
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

        Examples:
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
        # While a file is loaded, the weight is charged to its budget before it is made.
        with context.init_scope(), load_budget.new_weight(self._name, child, shape, dtype):
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
                # Checked when that call ends: the creating layer must be owned by it.
                _state.created.append((outer, self, variable.name))
                break
        self._track_new_variable(child, variable)
        return variable

    add_variable = add_weight

    # -- the functional graph ---------------------------------------------------------------
    def _only_node(self, what: str):
        nodes = self._inbound_nodes
        if not nodes:
            raise AttributeError(
                f"Layer '{self.name}' has never been called on symbolic inputs (ef.layers."
                f"Input or another layer's output), so it has no {what}: {what}s exist in "
                "functional and Sequential models with a known input shape.")
        if len(nodes) > 1:
            raise AttributeError(
                f"Layer '{self.name}' has been called {len(nodes)} times in functional graphs, "
                f"so it has several {what}s; take the {what} of one call from that call's "
                "result instead.")
        return nodes[0]

    @property
    def input(self) -> Any:
        """The symbolic input of this layer's call in a functional graph (Keras's
        ``layer.input``).

        Raises:
            AttributeError: if the layer was never called on symbolic tensors, or more
                than once.

        Examples:
            >>> import eagerflow as ef
            >>> x = ef.layers.Input((3,), name="features")
            >>> dense = ef.layers.Dense(2)
            >>> y = dense(x)
            >>> dense.input is x, dense.output is y
            (True, True)
        """
        return self._only_node("input").args[0]

    @property
    def output(self) -> Any:
        """The symbolic output of this layer's call in a functional graph (Keras's
        ``layer.output``; see `input`)."""
        return self._only_node("output").outputs

    def _unique_weight_name(self, name: str) -> str:
        if name not in self._own_weights:
            return name
        index = 1
        while f"{name}_{index}" in self._own_weights:
            index += 1
        return f"{name}_{index}"

    def _owned_items(self) -> list:
        """``(attribute, value)`` pairs holding sublayers or variables, in order."""
        return ownership.attribute_items(self)

    def _walk_leaves(self):
        """What the one walk (`ef.Module`'s) finds in this layer itself: its own weights
        (in creation order), then the Layers and Variables its attributes hold, in
        insertion order (dicts too), as Keras tracks them."""
        yield from self._own_weights.values()
        for _, value in self._owned_items():
            yield from ownership.leaves(value)

    def _trackable_children(self) -> dict:
        """Own weights by weight name, then attributes holding anything a checkpoint saves.

        Besides layers and variables this includes other trackables held by a layer (a
        metric, a custom state object), whose variables are saved but are not weights.
        """
        children = dict(self._own_weights)
        own = {id(v) for v in children.values()}
        skip = self._BOOKKEEPING
        for name, value in vars(self).items():
            if name in skip or name in children or id(value) in own:
                continue
            if trackable.is_trackable_value(value):
                children[name] = value
        return children

    @property
    def variables(self) -> list:
        """All variables of this layer and its sublayers, each once, in Keras's order: the
        layer's own (its weights in creation order, then variables held by attributes),
        then each sublayer's, recursively, in attribute order."""
        return [v for v in self._walk() if isinstance(v, _Variable)]

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
        return [layer._name for layer in ownership.flatten_layers(self) if not layer.built]

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

        Examples:
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

        Examples:
            >>> import eagerflow as ef
            >>> [w.shape for w in ef.layers.Dense(2, input_shape=(3,)).get_weights()]
            [(3, 2), (2,)]
        """
        self._require_built("get_weights")
        return [v.numpy() for v in self.variables]

    def set_weights(self, weights: Any) -> None:
        """Assigns NumPy arrays (in `weights` order) to the weights.

        Raises:
            ValueError: for the wrong number of arrays or a wrong shape, naming both.

        Examples:
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
    def add_loss(self, loss: Any) -> None:
        """Adds a loss tensor (or list) computed in `call`; `losses` shows the latest call's.

        Examples:
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
        for layer in ownership.flatten_layers(self):
            if layer._loss_generation >= generation and layer._call_losses:
                found.extend(layer._call_losses)
            for child, regularizer in layer._weight_regularizers.items():
                found.append(regularizer(layer._own_weights[child]))
        return found

    # -- config ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments that recreate this layer (without its weights).

        Layers defined by users get their constructor arguments kept automatically,
        unless they override this method.

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.Dense(2, name="d").get_config()["units"]
            2
        """
        config = {"name": self._name, "trainable": self._trainable, "dtype": self._dtype.name}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = list(self._batch_input_shape)
        if self._activity_regularizer is not None:  # as Keras: a reloaded layer keeps it
            config["activity_regularizer"] = regularizers.serialize(self._activity_regularizer)
        if self._auto_config:
            config.update(self._auto_config)
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """Creates a layer from `get_config`'s output.

        Raises:
            TypeError: if the class's constructor does not accept its config.

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.Dense.from_config({"units": 3}).units
            3
        """
        config = dict(config)
        parameters = inspect.signature(cls.__init__).parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            # A user layer whose __init__ does not take the base keywords: pass what it
            # accepts and restore name and trainability afterwards.
            extra = {k: config.pop(k) for k in list(config) if k not in parameters}
            layer = cls(**config)
            if "name" in extra:
                layer.__dict__["_name"] = extra["name"]
            if "trainable" in extra:
                layer.trainable = extra["trainable"]
            return layer
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError(
                f"{cls.__name__} could not be created from its config {config}: {e}. Override "
                "get_config() to return the constructor arguments (and from_config() if they "
                "need converting).") from None

    def get_build_config(self) -> dict | None:
        """The input shape the layer was built with (to rebuild it before loading weights)."""
        if self._build_input_shape is None:
            return None
        return {"input_shape": self._build_input_shape}

    def build_from_config(self, config: dict[str, Any]) -> None:
        """Builds the layer from `get_build_config`'s output."""
        if config and not self.built:
            self._build_from_shape(_as_shape_structure(config["input_shape"]))

    def save_own_variables(self, store: dict[str, Any]) -> None:
        """Puts this layer's own variables (not its sublayers') in `store` as ``"0"``,
        ``"1"``...; `Model.save` calls an override of it, as Keras does."""
        for index, variable in enumerate(ownership.own_variables(self)):
            store[str(index)] = variable.numpy()

    def load_own_variables(self, store: dict[str, Any]) -> None:
        """Assigns the values `save_own_variables` stored, in the same order."""
        ownership.assign_own_variables(self, store)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name}, built={self.built}>"


def _as_shape_structure(value):
    """Lists from JSON back to shape tuples (a list of lists stays a list of tuples)."""
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, (list, tuple)) or v is None for v in value) and any(
            isinstance(v, (list, tuple)) for v in value):
        return [_as_shape_structure(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_shape_structure(v) for k, v in value.items()}
    return tuple(value) if isinstance(value, (list, tuple)) else value


subclassing.describe_call(Layer, Layer)
registry.register("layer", Layer)


def _symbolic():
    # Imported late: the functional machinery builds on Layer.
    from eagerflow.layers import symbolic

    return symbolic


def serialize(layer: Any) -> dict:
    """A layer's Keras 3 form: ``module``, ``class_name``, ``config`` and
    ``registered_name`` (see `ef.saving.serialize_keras_object`).

    Examples:
        >>> import eagerflow as ef
        >>> config = ef.layers.serialize(ef.layers.Dense(3, activation="relu", name="head"))
        >>> config["class_name"], config["config"]["units"], config["config"]["activation"]
        ('Dense', 3, 'relu')
    """
    if not callable(getattr(layer, "get_config", None)):
        return registry.serialize(layer, "layer")  # raises the error that says why
    return registry.serialize_keras_object(layer)


def deserialize(config: dict, custom_objects: dict[str, Any] | None = None) -> Any:
    """Rebuilds a layer (or model) from `serialize`'s output.

    Every `Layer` subclass, user-defined ones too, is registered by class name when it is
    defined; `custom_objects` (``{name: class}``) comes first.

    Raises:
        InvalidArgumentError: for a malformed config or an unknown class name.

    Examples:
        >>> import eagerflow as ef
        >>> config = {"class_name": "Reshape", "config": {"target_shape": [2]}}
        >>> ef.layers.deserialize(config).target_shape
        (2,)
    """
    return registry.deserialize(config, custom_objects, "layer")


"""Model: a Layer with the model-level API (layers, get_layer, build, summary, configs).

Three ways to make one:

* subclass it and write `call` (sublayers assigned as attributes are owned: trained and saved);
* ``ef.models.Model(inputs, outputs)`` on `ef.layers.Input` tensors (the functional API,
  see `functional`);
* ``ef.models.Sequential([...])`` (see `sequential`).

Training (`compile`, `fit`, ...) lives in its own module and is mixed into this class;
nothing here depends on it.

Examples:
    >>> import eagerflow as ef
    >>> class MNISTModel(ef.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.dense1 = ef.layers.Dense(units=10)
    ...         self.dense2 = ef.layers.Dense(units=10)
    ...     def call(self, inputs):
    ...         result = self.dense1(inputs)
    ...         result = self.dense2(result)
    ...         return self.dense2(result)  # reuses dense2's variables
    >>> model = MNISTModel()
    >>> model(ef.zeros([1, 1, 784])).shape
    (1, 1, 10)
    >>> len(model.variables)
    4
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from eagerflow.core import trackable
from eagerflow.layers import base, ownership, symbolic
from eagerflow.models import serving_export, trainer
from eagerflow.saving import registry


class Model(trainer.Trainer, base.Layer):
    """A layer that groups layers, with `layers`, `get_layer`, `summary` and configs.

    Args:
        inputs, outputs: for the functional API: `ef.layers.Input` tensors and the
            symbolic tensors computed from them (any nesting of lists/dicts).
        name: the model's name.
        trainable: whether its weights train.
        **kwargs: other base Layer arguments (dtype, ...).

    Raises:
        TypeError: when a subclass passes `inputs`/`outputs` to ``Model.__init__``.

    Examples:
        >>> import eagerflow as ef
        >>> inputs = ef.layers.Input(shape=(3,))
        >>> model = ef.models.Model(inputs, ef.layers.Dense(2, name="out")(inputs))
        >>> model.get_layer("out").units
        2
    """

    _auto_config_base = True
    # The fit loop's caches (`Trainer._loop_cache`) list the model's own variables and
    # metrics again: tracked, they would give each variable a second checkpoint path.
    _BOOKKEEPING = base.Layer._BOOKKEEPING | {"_functional_layers", "_flat_inputs",
                                              "_flat_outputs", "_nodes", "_cached_variables",
                                              "_cached_metrics"}

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_arguments(args, kwargs):
            from eagerflow.models import functional

            return trackable.Trackable.__new__(functional.Functional)
        # A subclass is decided by what its __init__ passes to Model.__init__ (below), as in
        # Keras: `VAE(encoder, decoder)` is subclassed even though it has two arguments.
        return trackable.Trackable.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_arguments(args, kwargs):
            from eagerflow.models import functional

            if not any("call" in vars(k) for k in type(self).__mro__
                       if issubclass(k, Model) and k not in (Model, functional.Functional)):
                # A subclass's __init__ calling super().__init__(inputs, outputs), as Keras
                # allows: the instance becomes its functional variant.
                object.__setattr__(self, "__class__", _functional_variant(type(self)))
                # (`self` becomes a Functional: its class was swapped just above)
                functional.Functional.__init__(self, *args, **kwargs)  # type: ignore[arg-type]
                return
            raise TypeError(
                f"{type(self).__name__}.__init__ received inputs/outputs, but the class "
                "defines its own call(): a model is either functional (built from inputs and "
                "outputs) or subclassed (computing in call()), not both. Remove call() to "
                "make it functional, or build `ef.models.Model(inputs, outputs)` and use it "
                "as a layer of your subclass.")
        if args:
            raise TypeError(
                f"{type(self).__name__}: Model.__init__ takes (inputs, outputs) for a "
                f"functional model, or keyword arguments (name=, trainable=, dtype=) for a "
                f"subclass; received {len(args)} positional argument(s). A subclass keeps its "
                "own arguments: `super().__init__(**kwargs)`.")
        super().__init__(**kwargs)

    # -- structure -------------------------------------------------------------------------
    @property
    def layers(self) -> list:
        """The model's direct sublayers, in attribute order."""
        return ownership.sublayers(self)

    def get_layer(self, name: str | None = None, index: Any = None) -> Any:
        """Returns a direct sublayer by name (or by position in `layers`).

        Raises:
            ValueError: for an unknown name (listing the known ones), a bad index, or
                neither/both given.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(2, name="first")])
            >>> model.get_layer("first").name, model.get_layer(index=0).name
            ('first', 'first')
        """
        if (name is None) == (index is None):
            raise ValueError(
                "Provide exactly one of `name` or `index` to get_layer(). Received: "
                f"name={name!r}, index={index!r}")
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model "
                    f"'{self.name}' only has {len(layers)} layers.")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No such layer: '{name}'. Existing layers of model '{self.name}' are: "
            f"{[layer.name for layer in layers]}.")

    def _build_from_shape(self, input_shape) -> None:
        # Called by the first __call__: the call itself builds the sublayers, so the
        # default build needs no probe run. A user-defined build still runs.
        self.__dict__["_build_input_shape"] = input_shape
        if type(self).build is not Model.build:
            self.build(input_shape)
        self.__dict__["built"] = True

    def build(self, input_shape: Any) -> None:
        """Builds every weight at once for inputs of `input_shape` (None: unknown sizes).

        Runs the model on small dummy inputs (training off, no state updated), which also
        logs each sublayer's output shapes for `summary`.

        Examples:
            >>> import eagerflow as ef
            >>> class Net(ef.Model):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.fc = ef.layers.Dense(4)
            ...     def call(self, x):
            ...         return self.fc(x)
            >>> net = Net()
            >>> net.build((None, 3))
            >>> net.count_params()
            16
        """
        if self.__dict__.get("_in_build_probe"):
            return
        self.__dict__["_in_build_probe"] = True
        try:
            inputs = _placeholders(input_shape, self.dtype)
            shape_logs: list = []
            symbolic.infer(self, (inputs,), {}, shape_logs)
        finally:
            self.__dict__["_in_build_probe"] = False
        self.__dict__["_call_shapes"] = symbolic.merge_shape_logs(shape_logs)
        self.__dict__["_build_input_shape"] = input_shape
        self.__dict__["built"] = True

    def summary(self, line_length: Any = None, positions: Any = None,
                print_fn: Callable[..., Any] | None = None, expand_nested: bool = False,
                show_trainable: bool = False, input_shape: Any = None) -> None:
        """Prints a table of the layers: name and type, output shape, parameter count.

        Args:
            line_length: total width of the table.
            positions: relative or absolute column end positions.
            print_fn: function taking one line (default `print`).
            expand_nested: also list the layers inside nested models.
            show_trainable: add a column saying whether each layer trains.
            input_shape: build the model for this input shape first (a dry run that
                logs the real shape of every layer call).

        Raises:
            ValueError: if the model is not built and no `input_shape` is given.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,), name="d")],
            ...                       name="tiny")
            >>> model.summary(line_length=50)
            Model: "tiny"
            __________________________________________________
             Layer (type)        Output Shape        Param #
            ==================================================
             d (Dense)           (None, 2)                 8
            ==================================================
            Total params: 8 (32.00 B)
            Trainable params: 8 (32.00 B)
            Non-trainable params: 0 (0.00 B)
            __________________________________________________
        """
        from eagerflow.models import summary_table as summary_lib

        if input_shape is not None:
            self.build(input_shape)
        summary_lib.print_summary(self, line_length=line_length, positions=positions,
                                  print_fn=print_fn, expand_nested=expand_nested,
                                  show_trainable=show_trainable)

    # -- configs ---------------------------------------------------------------------------
    @classmethod
    def from_config(cls, config: dict, custom_objects: dict[str, Any] | None = None) -> Any:
        """Creates the model from `get_config`'s output (a functional graph config too).

        Examples:
            >>> import eagerflow as ef
            >>> x = ef.layers.Input(shape=(2,))
            >>> model = ef.models.Model(x, ef.layers.Dense(1)(x))
            >>> ef.models.Model.from_config(model.get_config()).count_params()
            3
        """
        if cls is Model and "input_layers" in config and "layers" in config:
            from eagerflow.models import functional

            return functional.Functional.from_config(config, custom_objects)
        return super().from_config(config)

    def export(self, filepath: str | os.PathLike[str], format: str = "tf_saved_model",  # noqa: A002
               verbose: bool | None = None, input_signature: Any = None) -> str:
        """Exports the inference call as a SavedModel with a ``serve`` endpoint (Keras 3).

        Only ``format="tf_saved_model"`` exists here; see `eagerflow.models.serving_export`.

        Example:
            >>> import os, tempfile
            >>> import numpy as np
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
            >>> path = model.export(os.path.join(tempfile.mkdtemp(), "exported"))
            >>> reloaded = ef.saved_model.load(path)
            >>> x = np.ones((2, 3), "float32")
            >>> bool(np.allclose(reloaded.serve(x).numpy(), model(x).numpy()))
            True
        """
        return serving_export.export(self, filepath, format=format, verbose=verbose,
                                 input_signature=input_signature)

    def to_json(self, **kwargs: Any) -> str:
        """The model's architecture (class and config, no weights) as a JSON string.

        Raises:
            TypeError: if the config holds Python objects (a Lambda's function, a custom
                activation) that JSON cannot represent.

        Examples:
            >>> import eagerflow as ef
            >>> text = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))]).to_json()
            >>> ef.models.model_from_json(text).count_params()
            3
        """
        try:
            return json.dumps(registry.serialize(self, "layer"), **kwargs)
        except TypeError as e:
            raise TypeError(
                f"The config of model '{self.name}' cannot be written as JSON: {e}. Configs "
                "of Lambda layers and of custom activations hold Python objects; use "
                "get_config() / from_config() in memory instead.") from None


def _placeholders(input_shape, dtype):
    """Symbolic tensors for a shape, or for a list/dict of shapes."""
    if isinstance(input_shape, dict):
        return {k: symbolic.SymbolicTensor(tuple(v), dtype) for k, v in input_shape.items()}
    if isinstance(input_shape, (list, tuple)) and input_shape and all(
            isinstance(s, (list, tuple)) for s in input_shape):
        return [symbolic.SymbolicTensor(tuple(s), dtype) for s in input_shape]
    return symbolic.SymbolicTensor(tuple(input_shape), dtype)


def model_from_config(config: dict, custom_objects: dict[str, Any] | None = None,
                      safe_mode: bool = True) -> Any:
    """Rebuilds a model (or layer) from ``{"class_name": ..., "config": ...}``.

    Args:
        config: the serialized model.
        custom_objects: ``{name: class or function}`` for classes that are not registered.
        safe_mode: refuse a config that names a file to read (a lookup layer's
            ``vocabulary`` path), as Keras does; False allows it for a config you trust.

    Returns:
        The model, with fresh weights.

    Examples:
        >>> import eagerflow as ef
        >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
        >>> clone = ef.models.model_from_config(ef.layers.serialize(model))
        >>> clone.count_params()
        8
    """
    with registry.safe_mode_scope(safe_mode, "model_from_config"):
        return registry.deserialize(config, custom_objects, "layer")


_FUNCTIONAL_VARIANTS: dict = {}


def _functional_arguments(args: tuple, kwargs: dict) -> bool:
    """Whether Model's arguments build a functional model (Keras's rule): ``(inputs,
    outputs)`` positionally or by name."""
    return (len(args) == 2 or (len(args) == 1 and "outputs" in kwargs)
            or ("inputs" in kwargs and "outputs" in kwargs))


def _functional_variant(cls):
    """`cls` (a Model subclass without its own call) with `Functional` mixed in, cached."""
    from eagerflow.models import functional

    variant = _FUNCTIONAL_VARIANTS.get(cls)
    if variant is None:
        variant = type(cls.__name__, (cls, functional.Functional), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "_functional_variant_of": cls})
        _FUNCTIONAL_VARIANTS[cls] = variant
    return variant


def model_from_json(json_string: str, custom_objects: dict[str, Any] | None = None,
                    safe_mode: bool = True) -> Any:
    """Rebuilds a model from `Model.to_json` output (weights are freshly initialized).

    Args:
        json_string: the JSON text.
        custom_objects: ``{name: class or function}`` for classes that are not registered.
        safe_mode: as in `model_from_config`.

    Returns:
        The model.

    Examples:
        >>> import eagerflow as ef
        >>> text = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))]).to_json()
        >>> ef.models.model_from_json(text).layers[0].units
        2
    """
    from eagerflow.saving import fileio

    with registry.safe_mode_scope(safe_mode, "model_from_json"):
        return model_from_config(fileio.loads_json(json_string, "model_from_json"),
                                 custom_objects)

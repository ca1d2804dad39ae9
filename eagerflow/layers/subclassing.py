"""What a `Layer` subclass's definition tells, worked out once when the class is defined.

`Layer.__init_subclass__` calls `describe_call` (which parameters `call` takes, so a call
costs a few attribute reads) and wraps a `build` the subclass defines with `marks_built`;
the layer metaclass calls `bind_config` to keep a user layer's constructor arguments for
its automatic `get_config`.

Examples:
    >>> import eagerflow as ef
    >>> class Gate(ef.layers.Layer):
    ...     def __init__(self, units, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.units = units
    ...     def call(self, x, mask=None):
    ...         return x
    >>> Gate._call_accepts_mask, Gate._call_accepts_training
    (True, False)
    >>> Gate(3, name="gate").get_config()["units"]
    3
"""

from __future__ import annotations

import functools
import inspect


def bind_config(cls, args, kwargs):
    """The constructor arguments of a user layer, for its automatic `get_config`."""
    signature = inspect.signature(cls.__init__)
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        return None
    config = {}
    for index, (name, value) in enumerate(bound.arguments.items()):
        if index == 0:
            continue
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            config.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                return None
        else:
            config[name] = value
    return config


def marks_built(build):
    """Wraps a subclass's `build` so that calling it directly (``layer.build((None, 8))``,
    as Keras code does before `set_weights`) leaves the layer built, with the shape it was
    built for kept for `get_build_config`, as Keras 3 does."""
    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        build(self, *args, **kwargs)
        if self.__dict__.get("_build_input_shape") is None:
            shape = args[0] if args else kwargs.get("input_shape")
            if shape is not None:
                self.__dict__["_build_input_shape"] = shape
        self.__dict__["built"] = True

    return wrapper


def describe_call(cls, layer_class) -> None:
    """Computes once per class what `Layer.__call__` needs to know about `call` (the
    class attributes `Layer` declares), and whether `get_config` is the automatic one;
    `layer_class` is `Layer` itself."""
    parameters = inspect.signature(cls.call).parameters
    cls._call_accepts_training = "training" in parameters
    cls._call_accepts_mask = "mask" in parameters
    names = [name for name, p in parameters.items() if name != "self"
             and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    # Keras binds the input by the name of call's first argument too (`mha(query=q, ...)`)
    cls._call_input_name = names[0] if names else None
    default = parameters["training"].default if "training" in parameters else None
    cls._call_training_default = None if default is inspect.Parameter.empty else default
    cls._overrides_compute_mask = cls.compute_mask is not layer_class.compute_mask
    owner = next(k for k in cls.__mro__ if "get_config" in k.__dict__)
    cls._uses_auto_config = "_auto_config_base" in owner.__dict__ and cls is not owner

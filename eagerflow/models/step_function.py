"""The per-batch functions `fit`, `evaluate` and `predict` call: traced steps.

With ``run_eagerly=False`` (the default) each step method (`train_step`, `test_step`,
`predict_step`, the model's own or an override) runs through `ef.function`, exactly as a
user's ``@ef.function`` train step would: the forward pass, the gradients, the optimizer
update and the metric updates are one graph. The first batch of each input signature
traces the step (and is the traced run: it builds the model and the optimizer's slots);
later batches of that signature run the graph. A last, smaller batch traces once more.

There is no fallback: a step that cannot be traced raises, naming what could not be
traced, and says to pass ``run_eagerly=True`` to `compile` if the step must run eagerly.

The set of trainable variables is part of the graph, and so are the layers' `trainable`
flags (a frozen BatchNormalization runs in inference mode): when either changes (a layer
frozen or unfrozen between batches) the step is traced again, with no need to recompile.
Each structure of data (arrays, a list, a dict by input name...) has an `ef.function` of
its own, so that feeding one model in several forms does not count as the retracing that
`ef.function` warns about.

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=4, verbose=0)
    >>> model._make_train_function().tracing_count
    1
"""

from __future__ import annotations

from eagerflow.graph import function as function_module
from eagerflow.graph import graph
from eagerflow.layers import layer_info, ownership


class TracedStep:
    """`step` (a bound step method of `model`) run through `ef.function`.

    Args:
        model: the compiled model.
        step: ``model.train_step``, ``model.test_step`` or ``model.predict_step``.
        kind: ``"train"``, ``"test"`` or ``"predict"`` (names the graph and errors).
    """

    def __init__(self, model, step, kind: str):
        self.model = model
        self._step = step
        self._kind = kind
        self._functions: dict = {}
        self._flags: tuple = ()
        self._flags_seen = -1  # the `trainable` assignment count `_flags` was read at

    @property
    def tracing_count(self) -> int:
        """How many graphs the step was traced into so far (signatures x trainable states)."""
        return sum(f.experimental_get_tracing_count() for f in set(self._functions.values()))

    def graphs(self) -> list:
        """The graphs the step was traced into so far, oldest first (TensorBoard shows the
        first with ``write_graph=True``)."""
        functions = dict.fromkeys(self._functions.values())  # (one function, several keys)
        return [cf.graph for f in functions for cf in f.list_concrete_functions()]

    def _key(self) -> tuple:
        if self._kind == "predict":
            return ()
        return tuple(id(v) for v in self.model._step_variables()), self._trainable_flags()

    def _trainable_flags(self) -> tuple:
        # Layers may read `trainable` in `call` without owning a trainable variable (a
        # BatchNormalization with center=False, scale=False), so the flags join the key.
        # They are walked again only after some `trainable` was assigned.
        if self._flags_seen != layer_info.trainable_generation():
            self._flags_seen = layer_info.trainable_generation()
            self._flags = tuple(layer.trainable for layer in ownership.flatten_layers(self.model))
        return self._flags

    def __call__(self, data):
        structure = _structure(data)
        key = (structure, self._key())
        traced = self._functions.get(key)
        if traced is None:
            traced = self._functions[key] = function_module.function(
                self._step, name=f"{self._kind}_step", jit_compile=self.model._jit_compile)
            traced._recheck_variables = False  # the model and metrics build once, then run
        try:
            logs = traced(data)
        except graph.OperatorNotAllowedInGraphError as e:
            raise graph.OperatorNotAllowedInGraphError(
                f"{self._kind}_step of model {self.model.name!r} could not be traced into a "
                f"graph (fit, evaluate and predict trace it with ef.function unless the model "
                f"is compiled with run_eagerly=True): {e}"
            ) from e
        after = (structure, self._key())
        if after != key:  # the first call built the model: its graph has every variable
            self._functions.setdefault(after, traced)
        return logs


def _structure(data):
    """A hashable outline of `data`'s nesting (containers and dict keys; not shapes)."""
    if isinstance(data, dict):
        return ("dict", tuple((k, _structure(v)) for k, v in data.items()))
    if isinstance(data, (list, tuple)):
        return (type(data).__name__, tuple(_structure(v) for v in data))
    return None if data is None else "leaf"


def step_function(model, kind: str):
    """The per-batch callable of `kind` for `model` (see the module docstring)."""
    step = {"train": model.train_step, "test": model.test_step,
            "predict": model.predict_step}[kind]
    if model.run_eagerly:
        return step
    return TracedStep(model, step, kind)

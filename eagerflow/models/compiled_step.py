"""The train function `fit` runs for each batch.

With ``run_eagerly=True``, or a model that overrides `train_step`, it is `train_step`
itself. With ``run_eagerly=False`` (the default) and the default `train_step`, the
differentiable part of the step (forward pass, loss, gradients) runs through
`ef.function` when that is available; the optimizer update and the metric updates, which
compute in NumPy in place, stay eager. The results are the same either way:

* the first batch runs eagerly (it builds the model and the optimizer's slots);
* the first call after every new trace also runs the eager step on the same batch and
  compares the loss and gradients (a traced graph that baked a batch's values in as
  constants would differ here);
* if tracing fails (a construct `ef.function` does not support), the step falls back to
  eager for good, quietly: the results are the same, and `fallback_reason` says why;
* if the comparison differs, which means a bug in the graph compiler, it falls back too and
  warns once.

Example:
    >>> import eagerflow as ef
    >>> from eagerflow.models import compiled_step
    >>> model = ef.Sequential([ef.layers.Dense(1)])
    >>> model.compile(loss="mse", run_eagerly=True)
    >>> compiled_step.train_function(model) == model.train_step
    True
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.core import tape as tape_module
from eagerflow.models import data_adapter
from eagerflow.ops import random


def _function_factory():
    """`ef.function`, or None when this build of eagerflow has no graph compiler."""
    try:
        from eagerflow.graph import function as function_module
    except ImportError:
        return None
    return getattr(function_module, "function", None)


def train_function(model, function_factory=None):
    """The per-batch training callable for `model` (see the module docstring).

    Args:
        model: a compiled model.
        function_factory: the tracing decorator (default: `ef.function` when available).
    """
    from eagerflow.models import trainer

    if model.run_eagerly or type(model).train_step is not trainer.Trainer.train_step:
        return model.train_step
    factory = function_factory or _function_factory()
    if factory is None:
        return model.train_step
    return TracedTrainStep(model, factory)


def _as_arrays(values) -> list:
    return [None if v is None else np.asarray(v) for v in values]


class TracedTrainStep:
    """The default train step with its forward/backward part traced (see module docstring).

    Args:
        model: the compiled model.
        function_factory: ``factory(python_function) -> traced callable``.
    """

    def __init__(self, model, function_factory):
        self.model = model
        self._factory = function_factory
        self._traced = None
        self._variables = None
        self._eager = False
        self._verify_next = False
        self.fallback_reason = None

    def _forward_backward(self, x, y, sample_weight):
        model = self.model
        with tape_module.GradientTape() as tape:
            y_pred = model(x, training=True)
            total, parts = model._total_loss(y, y_pred, sample_weight)
        grads = tape.gradient(total, self._variables)
        return total, parts, y_pred, grads

    def _fall_back(self, reason: str, warn: bool) -> None:
        self._eager = True
        self.fallback_reason = reason
        if not warn:
            return
        errors.warn_once(
            f"traced-train-step-{id(self.model)}",
            f"fit: run_eagerly=False could not compile the train step of model "
            f"'{self.model.name}' ({reason}); it runs eagerly instead, with the same results. "
            "Pass run_eagerly=True to compile() to skip the attempt.",
        )

    def _tracing_count(self) -> int:
        counter = getattr(self._traced, "experimental_get_tracing_count", None)
        return counter() if counter is not None else 0

    def __call__(self, data):
        model = self.model
        if self._eager or not model.built or self._variables is None:
            logs = model.train_step(data)
            variables = model._step_variables()
            if not self._eager and self._variables is None and variables:
                self._variables = variables
            return logs
        variables = model._step_variables()
        if [id(v) for v in variables] != [id(v) for v in self._variables]:
            self._traced = None  # trainable set changed (a layer frozen): trace again
            self._variables = variables
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        verify = self._verify_next or self._traced is None
        if self._traced is None:
            self._traced = self._factory(self._forward_backward)
        before = self._tracing_count()
        # The eager re-run of a check replays the random numbers the traced step drew
        # (dropout masks match), and leaves the streams where one step leaves them.
        streams = random.get_state() if verify else None
        try:
            total, parts, y_pred, grads = self._traced(x, y, sample_weight)
        except Exception as e:  # tracing limits surface as many error types
            self._fall_back(f"{type(e).__name__}: {e}", warn=False)
            if streams is not None:
                random.set_state(streams)
            return model.train_step(data)
        traced_now = self._tracing_count() != before
        if model.compiled_loss is not None:
            model.compiled_loss.check_targets(y, y_pred)
        if verify and not traced_now:
            after = random.get_state()
            random.set_state(streams)
            eager_total, _, _, eager_grads = self._forward_backward(x, y, sample_weight)
            random.set_state(after)
            if not self._same(total, grads, eager_total, eager_grads):
                self._fall_back("the traced step gave other values than the eager step",
                                warn=True)
                total, grads = eager_total, eager_grads
                _, parts, y_pred, _ = self._forward_backward(x, y, sample_weight)
        self._verify_next = traced_now
        model.optimizer.apply_gradients(zip(grads, self._variables, strict=True))
        model._track_loss(total, parts, _batch_size(x))
        return model.compute_metrics(x, y, y_pred, sample_weight)

    @staticmethod
    def _same(total, grads, eager_total, eager_grads) -> bool:
        pairs = [(total, eager_total)] + list(zip(grads, eager_grads, strict=True))
        for traced, eager in pairs:
            if (traced is None) != (eager is None):
                return False
            if traced is not None and not np.allclose(*_as_arrays([traced, eager]),
                                                      rtol=1e-5, atol=1e-6, equal_nan=True):
                return False
        return True


def _batch_size(x) -> int:
    from eagerflow.models import trainer

    return trainer._batch_size_of(x, None)

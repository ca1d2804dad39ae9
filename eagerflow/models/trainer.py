"""`Trainer`, the training half of `Model`: compile, fit, evaluate, predict, the step
functions, the one-batch methods and saving.

`ef.models.Model` is a `Trainer` and a `Layer`. The trainer's contract for custom training,
frozen as in Keras 3: override ``train_step(data)`` (one batch in, a dict of logs out) and use

* ``self.compute_loss(x, y, y_pred, sample_weight)``: the compiled loss plus the model's
  regularization losses (a custom step updates the ``loss`` tracker itself, as in Keras:
  the metric named ``"loss"`` in ``self.metrics``);
* ``self.compute_metrics(x, y, y_pred, sample_weight)``: updates the compiled metrics and
  returns ``{name: result}`` of every metric in ``self.metrics``.

Metrics assigned as model attributes (``self.d_loss = ef.metrics.Mean(name="d_loss")``)
are part of ``self.metrics`` too, so `fit` resets them at every epoch.

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> ef.random.set_seed(0)
    >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer=ef.optim.SGD(0.1), loss="mse")
    >>> x = np.linspace(-1, 1, 64).reshape(-1, 1).astype("float32")
    >>> history = model.fit(x, 3 * x + 1, epochs=20, verbose=0)
    >>> bool(history.history["loss"][-1] < 0.01)
    True
"""

from __future__ import annotations

import contextlib
import os
import warnings
from typing import TYPE_CHECKING, Any

from eagerflow import metrics as metrics_lib
from eagerflow import optim
from eagerflow.core import errors, nest
from eagerflow.core import tape as tape_module
from eagerflow.graph.passes import fusion
from eagerflow.models import compile_utils, data_adapter, fit_loops, step_function
from eagerflow.models import strategy as strategy_lib
from eagerflow.ops import array_ops
from eagerflow.ops import math as math_ops
from eagerflow.saving import compile_config

_NOT_COMPILED = ("{function}: you must compile the model before training or evaluating "
                 "it: call model.compile(optimizer=..., loss=...) first")


def _batch_size_of(x, y_pred):
    """The batch's size: an int, or a scalar tensor inside a graph traced for any batch
    size (fit traces with reduce_retracing, so a last, smaller batch has shape None)."""
    for leaf in nest.flatten(x) + nest.flatten(y_pred):
        shape = getattr(leaf, "shape", None)
        if shape:
            if shape[0] is None:
                return math_ops.cast(array_ops.shape(leaf)[0], "float32")
            return int(shape[0])
    return 1


def _check_overwrite(filepath, overwrite, function):
    if not overwrite and os.path.exists(os.fspath(filepath)):
        raise FileExistsError(
            f"{function}: {os.fspath(filepath)!r} exists and overwrite=False")


def _attribute_metrics(model) -> list:
    found = []
    for value in vars(model).values():
        for leaf in nest.flatten(value) if isinstance(value, (list, tuple, dict)) else [value]:
            if isinstance(leaf, metrics_lib.Metric):
                found.append(leaf)
    return found


class Trainer:
    """Keras-style training methods for `Model` (see the module docstring)."""

    optimizer: Any = None
    compiled_loss: Any = None
    compiled_metrics: Any = None
    stop_training = False
    history: Any = None
    _compile_arguments: Any = None
    _loss_tracker: Any = None
    _output_loss_trackers: Any = ()
    _initial_epoch = None
    _steps_per_execution = 1
    _jit_compile = None  # `ef.function`'s argument for the traced steps
    _run_eagerly = False
    _train_function = _test_function = _predict_function = None
    # Set by the fit/evaluate loops (see `_loop_cache`): walking the model's attributes for
    # its metrics and variables costs ~0.1 ms each, several times per step.
    _cached_metrics = None
    _cached_variables = None
    _caching = False
    if TYPE_CHECKING:  # from Layer, which Model combines with this class
        name: str
        """The model's name (see `Layer.name`)."""
        variables: list[Any]
        """All variables of the model (see `Layer.variables`)."""
        trainable_variables: list[Any]
        """The variables optimizers update (see `Layer.trainable_variables`)."""
        losses: list[Any]
        """Losses of the latest call plus weight penalties (see `Layer.losses`)."""
        built: bool
        """Whether the model's weights exist (see `Layer.built`)."""

        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    # -- compile ---------------------------------------------------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None,
                loss_weights: Any = None, weighted_metrics: Any = None, run_eagerly: bool = False,
                steps_per_execution: int = 1, jit_compile: str | bool = "auto") -> None:
        """Configures the model for training.

        Args:
            optimizer: an optimizer or its name (``"adam"``, ``"sgd"``, ...).
            loss: a loss name, `ef.losses.Loss` or function ``fn(y_true, y_pred)``; for
                several outputs, one loss for all, a list, or a dict by output name. None
                is allowed when a custom `train_step` computes its own loss.
            metrics: a list of metric names, `ef.metrics.Metric` objects or functions (or a
                list of lists / dict by output name). ``"accuracy"`` picks the accuracy that
                fits the loss. They ignore sample weights.
            loss_weights: weights of each output's loss in the total.
            weighted_metrics: metrics that use sample weights and class weights.
            run_eagerly: run every step eagerly. With False (default) the default train
                step runs through `ef.function` when available, with identical results.
            steps_per_execution: batches between calls of the batch-level callbacks.
            jit_compile: elementwise fusion in the traced steps, as `ef.function`'s
                argument: ``"auto"`` (default) fuses when the numba kernel set is active
                and `ef.config.optimizer` allows it, False never, True always (an error
                here without the numba kernel set).

        Raises:
            ValueError: for unknown names, or arguments that do not fit the outputs.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(10)])
            >>> model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
            ...               metrics=["accuracy"])
        """
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) \
                or steps_per_execution <= 0:
            raise ValueError(f"compile: steps_per_execution must be a positive int. Received: "
                             f"{steps_per_execution!r}")
        if jit_compile not in ("auto", True, False):
            raise ValueError(f"compile: jit_compile must be 'auto', True or False. Received: "
                             f"jit_compile={jit_compile!r}")
        if jit_compile is True:
            fusion.require()
        resolved = optim.get(optimizer)
        output_names = self._static_output_names()
        self.compiled_loss = None if loss is None else compile_utils.CompiledLoss(
            loss, loss_weights, output_names)
        if loss is None and loss_weights is not None:
            raise ValueError("compile: loss_weights were given without a loss")
        self.compiled_metrics = compile_utils.CompiledMetrics(
            metrics, weighted_metrics, loss,
            output_names_of=lambda y_pred: compile_utils.output_names_of(self, y_pred))
        for spec in (metrics, weighted_metrics):  # resolve names now: typos fail here
            for leaf in compile_utils._leaves(spec):
                if not (isinstance(leaf, str) and leaf in ("accuracy", "acc", "crossentropy",
                                                           "ce")):
                    metrics_lib.get(leaf)
        self.optimizer = resolved
        self._loss_tracker = metrics_lib.Mean(name="loss")
        self._output_loss_trackers = None  # one per output, made with the loss mapping
        self._run_eagerly = bool(run_eagerly)
        self._steps_per_execution = steps_per_execution
        self._jit_compile = None if jit_compile == "auto" else jit_compile
        self._compile_arguments = {
            "optimizer": resolved, "loss": loss, "metrics": metrics,
            "weighted_metrics": weighted_metrics, "loss_weights": loss_weights,
            "run_eagerly": bool(run_eagerly), "steps_per_execution": steps_per_execution,
            "jit_compile": jit_compile,
        }
        self._train_function = self._test_function = self._predict_function = None

    @property
    def compiled(self) -> bool:
        """Whether `compile` was called.

        Examples:
            >>> import eagerflow as ef
            >>> ef.Sequential([ef.layers.Dense(1)]).compiled
            False
        """
        return self._compile_arguments is not None

    @property
    def train_function(self) -> Any:
        """The per-batch training callable `fit` and `train_on_batch` use, or None before
        the first of them (Keras's attribute). Unless the model runs eagerly it runs
        `train_step` through `ef.function`, and its ``graphs()`` are the traced steps.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> _ = model.train_on_batch(np.ones((4, 2)), np.ones((4, 1)))
            >>> [op.type for op in model.train_function.graphs()[0].operations][:2]
            ['Placeholder', 'Placeholder']
        """
        return self._train_function

    @property
    def run_eagerly(self) -> bool:
        """Whether steps run eagerly (settable).

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(loss="mse", run_eagerly=True)
            >>> model.run_eagerly
            True
        """
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value) -> None:
        self._run_eagerly = bool(value)
        self._train_function = self._test_function = self._predict_function = None

    @property
    def distribute_strategy(self) -> Any:
        """The `ef.distribute.Strategy` the model was made under, else the current one
        (`ef.distribute.get_strategy()`: the default strategy, this process alone, outside
        every scope), as in Keras. `fit`, `evaluate` and `predict` train through it, and
        callbacks use it to act per replica.

        Examples:
            >>> import eagerflow as ef
            >>> strategy = ef.distribute.MPIStrategy()
            >>> with strategy.scope():
            ...     model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.distribute_strategy is strategy
            True
            >>> ef.Sequential().distribute_strategy.num_replicas_in_sync
            1
        """
        return strategy_lib.of(self) or strategy_lib.get_strategy()

    def _static_output_names(self):
        outputs = getattr(self, "_output_structure", None)
        if outputs is None or not isinstance(outputs, (list, tuple, dict)):
            return None
        return compile_utils.output_names_of(self, outputs)

    def get_compile_config(self) -> Any:
        """The `compile` arguments as JSON-ready data (None if not compiled).

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(optimizer="adam", loss="mse", metrics=["mae"])
            >>> model.get_compile_config()["metrics"]
            ['mae']
        """
        if self._compile_arguments is None:
            return None
        return compile_config.to_config(self._compile_arguments)

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """Compiles the model from `get_compile_config` output (used by `load_model`).

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(optimizer="adam", loss="mse")
            >>> clone = ef.Sequential([ef.layers.Dense(1)])
            >>> clone.compile_from_config(model.get_compile_config())
            >>> clone.optimizer.name
            'adam'
        """
        self.compile(**compile_config.from_config(config))

    def _assert_compiled(self, function: str) -> None:
        if self._compile_arguments is None:
            raise RuntimeError(_NOT_COMPILED.format(function=function))

    # -- metrics ---------------------------------------------------------------------------
    @property
    def metrics(self) -> list:
        """The loss tracker, the compiled metrics, and metrics held in attributes.

        As in Keras 3, the metrics given to `compile` appear as one container named
        ``"compile_metrics"`` (from `compile` on, before they are built):
        ``update_state(y, y_pred, sample_weight)`` builds and updates them all, and its
        ``result()`` is a dict, so a custom `train_step` that updates every entry of
        `metrics` updates them too. `metrics_names` lists the metrics inside it.
        `fit` and `evaluate` reset all of them at the start of every epoch / evaluation.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> [m.name for m in model.metrics]
            ['loss', 'compile_metrics']
            >>> _ = model.evaluate(np.ones((2, 2)), np.ones((2, 1)), verbose=0)
            >>> model.metrics_names
            ['loss', 'mae']
        """
        if self._cached_metrics is not None:
            return list(self._cached_metrics)
        found = []
        if self._loss_tracker is not None:
            found.append(self._loss_tracker)
        found.extend(self._output_loss_trackers or ())
        if self.compiled_metrics is not None and self.compiled_metrics.has_metrics:
            # Keras 3's container: a custom train_step that updates every entry of
            # `self.metrics` with (y, y_pred) updates the compiled metrics through it.
            found.append(self.compiled_metrics)
        seen = {id(m) for m in found} | {id(m) for m in getattr(
            self.compiled_metrics, "metrics", ())}
        found.extend(m for m in _attribute_metrics(self) if id(m) not in seen)
        if self._caching and self._metrics_complete():
            self._cached_metrics = found
        return list(found)

    def _metrics_complete(self) -> bool:
        # Compiled metrics and per-output loss trackers appear with the first batch.
        return (self.compiled_metrics is None or self.compiled_metrics.built) and (
            self.compiled_loss is None or self._output_loss_trackers is not None)

    @property
    def metrics_names(self) -> list:
        """Names of `metrics`, in the order `evaluate` returns their values.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(loss="mse")
            >>> model.metrics_names
            ['loss']
        """
        names: list[str] = []
        for metric in self.metrics:
            if isinstance(metric, compile_utils.CompiledMetrics):
                names.extend(m.name for m in metric.metrics)  # its metrics, once built
            else:
                names.append(metric.name)
        return names

    def reset_metrics(self) -> None:
        """Resets the state of every metric in `metrics`.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(loss="mse")
            >>> model.reset_metrics()
        """
        for metric in self.metrics:
            metric.reset_state()

    def get_metrics_result(self) -> dict:
        """``{name: result}`` of every metric in `metrics`.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(loss="mse")
            >>> {k: float(v) for k, v in model.get_metrics_result().items()}
            {'loss': 0.0}
        """
        results = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):  # the compiled metrics' container
                results.update(result)
            else:
                results[metric.name] = result
        return results

    @contextlib.contextmanager
    def _loop_cache(self):
        """Inside fit/evaluate: `metrics` and the variable list are collected once per
        epoch instead of at every step. Trainable flags are still read at every step."""
        self._cached_metrics = None
        self._caching = True
        self._cached_variables = list(self.variables)
        try:
            yield
        finally:
            self._caching = False
            self._cached_metrics = self._cached_variables = None

    def _step_variables(self) -> list:
        """The trainable variables for this step (from the loop's cache when there is one)."""
        cached = self._cached_variables
        if not cached:
            if cached is not None:  # the first step built the model: fill the cache now
                self._cached_variables = list(self.variables)
            return self.trainable_variables
        return [variable for variable in cached if variable.trainable]

    def _build_before_training(self, data) -> None:
        """Builds a model that is not built yet, and trains with the default `train_step`,
        from the first batch's inputs (as Keras builds it before `on_train_begin`), so its
        weight initializers draw their random numbers before any callback runs: a
        `BackupAndRestore` that rewinds the random streams then resumes bitwise, and a
        deferred restore fills the weights at once."""
        if self.built or not hasattr(data, "peek_x") or \
                type(self).train_step is not Trainer.train_step:
            return  # a custom train_step may not feed x to the model (a GAN feeds noise)
        x = data.peek_x()
        if x is not None:  # (None: a generator, which cannot be read ahead)
            self(x, training=False)

    def _epoch_logs(self, logs) -> dict:
        # Fresh metric results when the step returned metric results, else the step's logs.
        results = self.get_metrics_result()
        if logs and any(isinstance(v, dict) for v in logs.values()):  # nested results
            flat = {}
            for key, value in logs.items():
                flat.update(value if isinstance(value, dict) else {key: value})
            logs = flat
        if logs and set(logs) <= set(results):
            return {key: results[key] for key in logs}
        return logs

    # -- steps -----------------------------------------------------------------------------
    def _ensure_loss_built(self, y_pred) -> None:
        loss = self.compiled_loss
        if not loss.built:
            loss.build(compile_utils.output_names_of(self, y_pred))
        if self._output_loss_trackers is None:
            self._output_loss_trackers = ()
            if loss.output_names is not None:
                self._output_loss_trackers = tuple(
                    metrics_lib.Mean(name=f"{name}_loss")
                    for name, item in zip(loss.output_names, loss.losses, strict=True)
                    if item is not None)

    def _total_loss(self, y, y_pred, sample_weight):
        """(total, per-output losses) of one batch, without touching any tracker."""
        if self.compiled_loss is None:
            extra = self.losses
            if not extra:
                raise ValueError(
                    "compute_loss: the model has no loss: it was compiled without loss= and "
                    "its layers added none with add_loss(). Pass loss= to compile(), call "
                    "self.add_loss(...) in call(), or compute the loss in train_step.")
            # Keras trains a model whose only losses come from add_loss on their sum.
            total = extra[0]
            for term in extra[1:]:
                total = total + term
            return total, []
        self._ensure_loss_built(y_pred)
        return self.compiled_loss(y, y_pred, sample_weight, self.losses)

    def _track_output_losses(self, parts, batch_size: int) -> None:
        parts = [p for p in parts if p is not None]
        for tracker, part in zip(self._output_loss_trackers or (), parts, strict=False):
            tracker.update_state(part, sample_weight=batch_size)

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None, training: bool | None = True) -> Any:
        """The compiled loss of a batch plus the model's regularization losses.

        As in Keras 3, it updates the per-output loss trackers of a multi-output model
        (``<output>_loss``) but not the ``loss`` tracker: the built-in `train_step` and
        `test_step` add the total to it (an epoch mean weighted by batch size), and a
        custom step that wants ``loss`` in its logs updates that tracker itself (the metric
        named ``"loss"`` in ``self.metrics``).

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
            >>> model.compile(loss="mse")
            >>> x = ef.ones([4, 2])
            >>> loss = model.compute_loss(x, ef.zeros([4, 1]), model(x))
            >>> loss.shape
            ()
        """
        del training
        total, parts = self._total_loss(y, y_pred, sample_weight)
        self._track_output_losses(parts, _batch_size_of(x, y_pred))
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict:
        """Updates the compiled metrics with a batch; returns every metric's result.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> logs = model.compute_metrics(None, ef.ones([2, 1]), ef.zeros([2, 1]))
            >>> float(logs["mae"])
            1.0
        """
        del x
        if self.compiled_metrics is not None:
            self.compiled_metrics.update_state(
                y, y_pred, sample_weight, compile_utils.output_names_of(self, y_pred))
        return self.get_metrics_result()

    def train_step(self, data: Any) -> dict:
        """One training step on one batch ``(x, y[, sample_weight])``; returns the logs.

        Override it for custom training (a GAN, a custom loss); `fit`, callbacks and
        progress bars keep working.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> sorted(model.train_step((ef.ones([4, 2]), ef.zeros([4, 1]))))
            ['loss']
        """
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        variables = self._step_variables()
        with tape_module.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x, y_pred))
        if not variables:
            variables = self._step_variables()  # built by this first call
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables, strict=True))
        else:  # as Keras: a frozen model trains nothing, and says so
            warnings.warn(f"Model {self.name!r} does not have any trainable weights: training "
                          "computes the loss and metrics but updates no weight.",
                          errors.EagerflowWarning, stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict:
        """One evaluation step on one batch; returns the logs.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,),
            ...                                        kernel_initializer="ones")])
            >>> model.compile(loss="mse")
            >>> float(model.test_step((ef.ones([1, 2]), ef.zeros([1, 1])))["loss"])
            4.0
        """
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x, y_pred))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's output for one batch (its ``x``).

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,))])
            >>> model.predict_step(ef.ones([4, 2])).shape
            (4, 3)
        """
        x, _, _ = data_adapter.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _make_train_function(self):
        if self._train_function is None:
            self._train_function = step_function.step_function(self, "train")
        return self._train_function

    def _make_test_function(self):
        if self._test_function is None:
            self._test_function = step_function.step_function(self, "test")
        return self._test_function

    def _make_predict_function(self):
        if self._predict_function is None:
            self._predict_function = step_function.step_function(self, "predict")
        return self._predict_function

    # -- fit / evaluate / predict ----------------------------------------------------------
    def fit(self, x: Any = None, y: Any = None, batch_size: Any = None, epochs: int = 1,
            verbose: int | str = "auto", callbacks: Any = None, validation_split: float = 0.0,
            validation_data: Any = None, shuffle: bool = True,
            class_weight: dict[int, float] | None = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: Any = None, validation_steps: Any = None,
            validation_batch_size: Any = None, validation_freq: int = 1) -> Any:
        """Trains the model for `epochs` epochs (see the README's "Training with fit").

        Args:
            x: inputs: a NumPy array, tensor or list/dict of them, an `ef.data.Dataset` of
                batches ``(x, y[, sample_weight])``, or a generator of such batches.
            y: targets, for array inputs only.
            batch_size: samples per batch for arrays (default 32).
            epochs: index of the last epoch (training runs epochs initial_epoch..epochs-1).
            verbose: "auto"/1 progress bar, 2 one line per epoch, 0 silent.
            callbacks: a list of `ef.callbacks.Callback`.
            validation_split: fraction of the arrays (taken from the end, before
                shuffling) held out for validation; not for datasets or generators.
            validation_data: ``(x_val, y_val[, sample_weight_val])``, a Dataset or a
                generator, evaluated at the end of epochs.
            shuffle: reshuffle arrays every epoch (Datasets shuffle themselves).
            class_weight: ``{class: weight}`` (per output name for several outputs).
            sample_weight: per-sample weights for arrays (per output: a list or dict).
            initial_epoch: epoch to start from (to resume a run).
            steps_per_epoch: batches per epoch (default: one pass over the data).
            validation_steps: batches per validation (default: one pass).
            validation_batch_size: batch size of array validation data (default:
                `batch_size`).
            validation_freq: validate every N epochs, or at the listed epochs (from 1).

        Returns:
            The `History` (``history.history`` maps each log key to per-epoch values).

        Raises:
            RuntimeError: if the model is not compiled.
            ValueError: for arguments that do not apply to the kind of data, or are
                inconsistent (see the README for the full list).
            InvalidArgumentError: if x, y and sample_weight have different lengths.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
            ...               metrics=["accuracy"])
            >>> history = model.fit(np.ones((8, 3)), np.zeros(8), epochs=2, verbose=0)
            >>> history.epoch, sorted(history.history)
            ([0, 1], ['accuracy', 'loss'])
        """
        self._assert_compiled("fit")
        verbose = fit_loops.check_verbose(verbose, "fit")
        if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 0:
            raise ValueError(f"fit: epochs must be a non-negative int. Received: {epochs!r}")
        output_names = self._static_output_names()
        if validation_split:
            if data_adapter._is_dataset(x) or data_adapter._is_generator(x) or \
                    data_adapter._is_py_dataset(x):
                raise ValueError(
                    "fit: validation_split is only supported for NumPy arrays and tensors, "
                    "not for a Dataset, PyDataset or generator: pass validation_data instead "
                    "(e.g. dataset.take(n) / dataset.skip(n))")
            if validation_data is not None:
                raise ValueError(
                    "fit: pass either validation_split or validation_data, not both")
            (x, y, sample_weight), validation_data = data_adapter.split_arrays(
                x, y, sample_weight, validation_split)
        data = data_adapter.adapt(x, y, sample_weight, batch_size, shuffle, steps_per_epoch,
                                  class_weight, output_names, "fit")
        if validation_batch_size is None and not (
                data_adapter._is_dataset(validation_data)
                or data_adapter._is_generator(validation_data)
                or data_adapter._is_py_dataset(validation_data)):
            validation_batch_size = batch_size  # Keras's default for array validation data
        validation = fit_loops.adapt_validation(validation_data, validation_batch_size,
                                            validation_steps, output_names)
        with self._failures_reported():
            return fit_loops.fit_loop(self, data, validation, epochs, verbose, callbacks,
                                      initial_epoch, validation_freq)

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Any = None,
                 verbose: int | str = "auto", sample_weight: Any = None, steps: Any = None,
                 callbacks: Any = None, return_dict: bool = False) -> Any:
        """Returns the loss and metrics of the model on the data.

        Args:
            x, y, sample_weight, batch_size, steps: the data, as for `fit`.
            verbose: "auto"/1 progress bar, 2 one line, 0 silent.
            callbacks: callbacks receiving the ``on_test_*`` hooks.
            return_dict: return ``{name: value}``.

        Returns:
            The loss (a float) when there is no metric, else a list in `metrics_names`
            order, or a dict with ``return_dict=True``.

        Raises:
            RuntimeError: if the model is not compiled.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,),
            ...                                        kernel_initializer="zeros")])
            >>> model.compile(loss="mse", metrics=["mae"])
            >>> model.evaluate(np.ones((4, 2)), np.full((4, 1), 2.0), verbose=0)
            [4.0, 2.0]
        """
        self._assert_compiled("evaluate")
        verbose = fit_loops.check_verbose(verbose, "evaluate")
        data = data_adapter.adapt(x, y, sample_weight, batch_size, False, steps, None,
                                  self._static_output_names(), "evaluate")
        with self._failures_reported():
            logs = fit_loops.evaluate_loop(self, data, verbose, callbacks)
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        values += [value for key, value in logs.items() if key not in self.metrics_names]
        return values[0] if len(values) == 1 else values

    def predict(self, x: Any, batch_size: Any = None, verbose: int | str = "auto",
                steps: Any = None, callbacks: Any = None) -> Any:
        """The model's outputs for `x`, batch by batch, as NumPy arrays (the final partial
        batch included); a list/dict of arrays for several outputs.

        Args:
            x: arrays/tensors (or lists/dicts), a Dataset, or a generator; for a Dataset
                of ``(x, y)`` elements only ``x`` is used.
            batch_size: samples per batch for arrays (default 32).
            verbose: "auto"/1 progress bar, 2 one line, 0 silent.
            steps: batches to predict (default: all).
            callbacks: callbacks receiving the ``on_predict_*`` hooks.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,))])
            >>> model.predict(np.ones((70, 2)), batch_size=32, verbose=0).shape
            (70, 3)
        """
        verbose = fit_loops.check_verbose(verbose, "predict")
        if data_adapter._is_dataset(x) or data_adapter._is_generator(x) or \
                data_adapter._is_py_dataset(x):
            data = data_adapter.adapt(x, batch_size=batch_size, steps=steps,
                                      function="predict")
        else:
            data = data_adapter.adapt(x, None, None, batch_size, False, steps, None, None,
                                      "predict")
        with self._failures_reported():
            return fit_loops.predict_loop(self, data, verbose, callbacks)

    @contextlib.contextmanager
    def _failures_reported(self):
        """Runs the block (`fit`, `evaluate` or `predict`); an exception leaving it is
        reported to the other replicas first (`Strategy.report_failure`), so that those
        waiting for this one in a collective raise at once instead of at the deadline."""
        try:
            yield
        except BaseException as error:
            self.distribute_strategy.report_failure(error)
            raise

    # -- one batch -------------------------------------------------------------------------
    def _one_batch(self, x, y, sample_weight, class_weight, function):
        data = data_adapter.adapt(x, y, sample_weight, None, False, None, class_weight,
                                  self._static_output_names(), function)
        data.batch_size = max(1, data.num_samples)
        return next(iter(data._one_pass()))

    def _single_batch_result(self, logs, return_dict):
        logs = fit_loops.pythonify_logs(self._epoch_logs(logs))
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: dict[int, float] | None = None, reset_metrics: bool = True,
                       return_dict: bool = False) -> Any:
        """One training step on exactly this batch.

        Args:
            x, y, sample_weight: one batch (arrays, tensors, or lists/dicts of them).
            class_weight: ``{class: weight}``, multiplied into the sample weights.
            reset_metrics: True reports this batch's values (TF 2 Keras); False keeps
                accumulating across calls until `reset_metrics()` (Keras 3).
            return_dict: return ``{name: value}`` instead of a list.

        Returns:
            The loss (a float) without metrics, else ``[loss, *metrics]`` or a dict.

        Raises:
            RuntimeError: if the model is not compiled.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
            >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
            >>> sorted(model.train_on_batch(np.ones((4, 2)), np.zeros((4, 1)),
            ...                             return_dict=True))
            ['loss', 'mae']
        """
        self._assert_compiled("train_on_batch")
        if reset_metrics:
            self.reset_metrics()
        batch = self._one_batch(x, y, sample_weight, class_weight, "train_on_batch")
        return self._single_batch_result(self._make_train_function()(batch), return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      reset_metrics: bool = True, return_dict: bool = False) -> Any:
        """The loss (and metrics) of the model on exactly this batch, without training.

        Args:
            x, y, sample_weight: one batch.
            reset_metrics: as for `train_on_batch`.
            return_dict: return ``{name: value}`` instead of a list.

        Raises:
            RuntimeError: if the model is not compiled.

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,),
            ...                                        kernel_initializer="zeros")])
            >>> model.compile(loss="mse")
            >>> model.test_on_batch(np.ones((2, 2)), np.full((2, 1), 3.0))
            9.0
        """
        self._assert_compiled("test_on_batch")
        if reset_metrics:
            self.reset_metrics()
        batch = self._one_batch(x, y, sample_weight, None, "test_on_batch")
        return self._single_batch_result(self._make_test_function()(batch), return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's output for exactly this batch, as NumPy (no batching, no callbacks).

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,))])
            >>> model.predict_on_batch(np.ones((5, 2))).shape
            (5, 3)
        """
        batch = self._one_batch(x, None, None, None, "predict_on_batch")
        return nest.map_structure(lambda t: t.numpy(), self._make_predict_function()(batch))

    def save_weights(self, filepath: str | os.PathLike[str], overwrite: bool = True) -> Any:
        """Saves the model's variables (not the optimizer's) to an HDF5 file, atomically.

        Args:
            filepath: the file to write.
            overwrite: False makes an existing file an error.

        Returns:
            The path written.

        Raises:
            FileExistsError: if the file exists and `overwrite` is False.
            InvalidArgumentError: if the model has no variables yet.

        Examples:
            >>> import eagerflow as ef, os, tempfile
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "w.h5"))
            >>> clone = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> len(clone.load_weights(path).matched)
            2
        """
        from eagerflow import saving

        if not self.distribute_strategy.is_chief:  # the chief writes the file
            return os.fspath(filepath)
        _check_overwrite(filepath, overwrite, "save_weights")
        return saving.save_weights(self, filepath)

    def load_weights(self, filepath: str | os.PathLike[str], skip_mismatch: bool = False,
                     max_bytes: int | None = None) -> Any:
        """Loads variables saved by `save_weights`, `save` or an `ef.Checkpoint`.

        Under `ef.distribute.MPIStrategy`, call it on every rank: rank 0 reads the file
        first and each other rank after it, so all see a file rank 0 has just written (an
        error on rank 0 is raised on every rank; rank 0 waits for none of them, so it must
        not overwrite the file before a collective, a training step, say). Called on rank
        0 alone, it cannot hang: the other ranks then get its values when `fit` starts.

        Args:
            filepath: the file.
            skip_mismatch: skip (with a warning) values that do not fit instead of raising.
        max_bytes: the most this load may allocate, in bytes (weights, values read, build
            probes, buffers, decompression; see `eagerflow.saving.load_budget`); default
            ``ef.config.get_load_budget()``, or else twice the file's size plus 1 GiB.

        Returns:
            The restore report (`matched`, `missing`, ...).

        Raises:
            NotFoundError: if the file does not exist.
            InvalidArgumentError: if values do not fit the model's variables.
            ResourceExhaustedError: if the load would allocate more than `max_bytes`.

        Examples:
            >>> import eagerflow as ef
            >>> callable(ef.Sequential().load_weights)
            True
        """
        from eagerflow import saving

        def load():
            return saving.load_weights(self, filepath, skip_mismatch=skip_mismatch,
                                       max_bytes=max_bytes)

        # The other replicas read the file once the chief has read it: a file the chief
        # has just written (save_weights, ModelCheckpoint) is complete then.
        return self.distribute_strategy.after_chief(load, "load_weights")

    def save(self, filepath: str | os.PathLike[str], overwrite: bool = True,
             include_optimizer: bool = True) -> Any:
        """Saves architecture, weights, compile configuration and optimizer state to one
        HDF5 file; `ef.models.load_model` reads it back.

        Args:
            filepath: the file to write.
            overwrite: False makes an existing file an error.
            include_optimizer: also save the optimizer's state (to continue training).

        Returns:
            The path written.

        Raises:
            FileExistsError: if the file exists and `overwrite` is False.
            InvalidArgumentError: if the model's config cannot be stored as JSON.

        Examples:
            >>> import eagerflow as ef, os, tempfile
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> path = model.save(os.path.join(tempfile.mkdtemp(), "model.h5"))
            >>> ef.models.load_model(path).optimizer.name
            'sgd'
        """
        from eagerflow import saving

        if not self.distribute_strategy.is_chief:  # the chief writes the file
            return os.fspath(filepath)
        _check_overwrite(filepath, overwrite, "save")
        return saving.save_model(self, filepath, include_optimizer=include_optimizer)

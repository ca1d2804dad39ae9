"""What `compile` turns its `loss`, `loss_weights` and `metrics` arguments into.

`CompiledLoss` maps one loss per model output (a single loss is used for every output,
like Keras; a list follows the outputs' order; a dict is keyed by output name), weights
them, adds the model's regularization losses, and checks targets against the loss's range.
`CompiledMetrics` does the same for metrics and resolves the string ``"accuracy"`` (and
``"acc"``) to the accuracy that fits the loss: sparse categorical for integer labels,
categorical for one-hot targets, binary for one output unit (thresholded at 0 for logits).
Metric names in the logs are the strings given, like Keras 3 (``mae`` for ``"mae"``,
``acc`` for ``"acc"``, ``accuracy`` for ``"accuracy"``, whichever class the accuracy
resolved to); multi-output models prefix the output name (``digit_accuracy``).

Both are built on the first batch, when the structure of the model's outputs is known.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.models import compile_utils
    >>> metrics = compile_utils.CompiledMetrics(["accuracy"], None,
    ...                                         "sparse_categorical_crossentropy")
    >>> metrics.update_state(ef.constant([1, 0]), ef.constant([[0.2, 0.8], [0.4, 0.6]]))
    >>> {m.name: type(m).__name__ for m in metrics.metrics}
    {'accuracy': 'SparseCategoricalAccuracy'}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import losses as losses_lib
from eagerflow import metrics as metrics_lib
from eagerflow.core import errors, nest
from eagerflow.ops import cross_entropy as xent
from eagerflow.ops import math as math_ops


def output_names_of(model, y_pred) -> list | None:
    """Names of the model's outputs for `y_pred`'s structure, or None for one output."""
    if isinstance(y_pred, dict):
        return sorted(y_pred)  # nest.flatten's order for dicts
    if not isinstance(y_pred, (list, tuple)):
        return None
    names = list(getattr(model, "output_names", None) or [])
    if len(names) == len(y_pred) and len(set(names)) == len(names):
        return names
    return [f"output_{i + 1}" for i in range(len(y_pred))]


def _flat_targets(y_true, y_pred, names, what: str) -> list:
    """`y_true` flattened in the order of the outputs, or an error naming the mismatch."""
    if names is None:
        if isinstance(y_true, (list, tuple)) and len(y_true) == 1:
            return [y_true[0]]
        return [y_true]
    if isinstance(y_true, dict):
        missing = [n for n in names if n not in y_true]
        extra = sorted(set(y_true) - set(names))
        if extra:
            raise ValueError(
                f"{what}: y has keys {extra} that are not model outputs. Expected keys "
                f"{sorted(names)}, got {sorted(y_true)}"
            )
        del missing  # an output without a target is an error only if it has a loss
        return [y_true.get(n) for n in names]
    if isinstance(y_true, (list, tuple)) and len(y_true) == len(names):
        return list(y_true)
    count = len(y_true) if isinstance(y_true, (list, tuple)) else 1
    raise ValueError(
        f"{what}: the model has {len(names)} outputs {names} but y holds {count} target(s). "
        "Pass one target per output, as a list in output order or a dict keyed by name."
    )


def _per_output(spec, names, what: str, allow_missing: bool) -> list:
    """One entry of `spec` per output: a shared value, a list, or a dict by output name."""
    if names is None:
        if isinstance(spec, dict):
            raise ValueError(f"compile: {what} is a dict but the model has a single output")
        if isinstance(spec, (list, tuple)) and what != "metrics":
            if len(spec) != 1:
                raise ValueError(
                    f"compile: {what} has {len(spec)} entries but the model has one output")
            return [spec[0]]
        return [spec]
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ValueError(
                f"compile: {what} has keys {unknown} that are not model outputs. "
                f"Output names: {names}"
            )
        if not allow_missing and set(spec) != set(names):
            raise ValueError(
                f"compile: {what} must give a value for every output. Missing: "
                f"{sorted(set(names) - set(spec))}"
            )
        return [spec.get(name) for name in names]
    if isinstance(spec, (list, tuple)) and (what != "metrics" or (
            spec and all(isinstance(s, (list, tuple)) or s is None for s in spec))):
        if len(spec) != len(names):
            raise ValueError(
                f"compile: {what} has {len(spec)} entries but the model has {len(names)} "
                f"outputs {names}"
            )
        return list(spec)
    return [spec] * len(names)


def _to_loss(identifier):
    """A `Loss` object (functions are wrapped so they get reductions and sample weights)."""
    loss = losses_lib.get(identifier)
    if loss is None or isinstance(loss, losses_lib.Loss):
        return loss
    return losses_lib.LossFunctionWrapper(loss)


def _loss_kind(loss) -> str | None:
    """"sparse", "categorical", "binary" or None for the loss (object or wrapped function)."""
    if isinstance(loss, losses_lib.SparseCategoricalCrossentropy):
        return "sparse"
    if isinstance(loss, losses_lib.CategoricalCrossentropy):
        return "categorical"
    if isinstance(loss, losses_lib.BinaryCrossentropy):
        return "binary"
    fn = getattr(loss, "fn", None)
    kinds: dict[Any, str] = {losses_lib.sparse_categorical_crossentropy: "sparse",
            losses_lib.categorical_crossentropy: "categorical",
            losses_lib.binary_crossentropy: "binary"}
    return kinds.get(fn)


def _checked_targets(loss, y_true, output: str):
    """`y_true`, checked when the step runs (eagerly or in its traced graph): probability
    targets of cross-entropies must be in [0, 1] (sparse labels are checked by the loss)."""
    if _loss_kind(loss) in ("binary", "categorical"):
        xent.check_probability_targets(y_true, f"{loss.name}{output}")
    return y_true


class CompiledLoss:
    """The total training loss of a model from `compile(loss=..., loss_weights=...)`.

    Args:
        loss: a loss (name, `Loss`, function) for every output, a list in output order, or
            a dict keyed by output name (outputs without a loss are not trained on).
        loss_weights: None, a float (single output), a list or a dict of floats.
        output_names: names of the outputs (from `output_names_of`) or None.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.models import compile_utils
        >>> loss = compile_utils.CompiledLoss("mse", None, None)
        >>> total, parts = loss([[1.0]], ef.constant([[3.0]]))
        >>> float(total)
        4.0
    """

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._spec = (loss, loss_weights)
        # Resolve every name now, so a typo fails at compile rather than at the first batch.
        for leaf in _leaves(loss):
            _to_loss(leaf)
        self.output_names = None
        self.losses: Any = None
        self.weights: Any = None
        if output_names is not None:
            self.build(output_names)

    @property
    def built(self) -> bool:
        return self.losses is not None

    def build(self, output_names) -> None:
        """Maps the losses and weights onto the outputs (`output_names_of`, or None)."""
        loss, loss_weights = self._spec
        names = output_names
        losses = [_to_loss(spec) for spec in _per_output(loss, names, "loss", True)]
        if all(item is None for item in losses):
            raise ValueError("compile: every output's loss is None; there is nothing to train")
        if loss_weights is None:
            weights = [1.0] * len(losses)
        elif names is None and not isinstance(loss_weights, (list, tuple, dict)):
            weights = [loss_weights]
        else:
            weights = _per_output(loss_weights, names, "loss_weights", False)
        for weight in weights:
            if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
                raise ValueError(
                    f"compile: loss_weights must be numbers. Received: {loss_weights!r}")
        self.output_names = names
        self.losses = losses
        self.weights = [float(w) for w in weights]

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=()):
        """Returns ``(total, per_output)``: the weighted sum plus regularization, and the
        loss of each output (a list; one entry for a single output)."""
        if self.losses is None:
            self.build(output_names_of(None, y_pred))
        flat_pred = nest.flatten(y_pred) if self.output_names is not None else [y_pred]
        flat_true = _flat_targets(y_true, y_pred, self.output_names, "fit")
        weights = _flat_weights(sample_weight, self.output_names)
        total: Any = None
        parts: list[Any] = []
        for index, (loss, target, prediction) in enumerate(
                zip(self.losses, flat_true, flat_pred, strict=True)):
            if loss is None:
                parts.append(None)
                continue
            name = "" if self.output_names is None else f" (output {self.output_names[index]!r})"
            if target is None:
                raise ValueError(f"fit: no target (y) given for the output{name} of loss "
                                 f"{loss.name!r}")
            target = _checked_targets(loss, target, name)  # eagerly and in graphs
            value = loss(target, prediction, sample_weight=weights[index])
            parts.append(value)
            scaled = value if self.weights[index] == 1.0 else \
                math_ops.multiply(value, self.weights[index])
            total = scaled if total is None else math_ops.add(total, scaled)
        for extra in regularization_losses:
            total = math_ops.add(total, extra)
        return total, parts


def _leaves(spec) -> list:
    if isinstance(spec, dict):
        return [leaf for value in spec.values() for leaf in _leaves(value)]
    if isinstance(spec, (list, tuple)):
        return [leaf for value in spec for leaf in _leaves(value)]
    return [] if spec is None else [spec]


def _flat_weights(sample_weight, names) -> list:
    """Per-output sample weights: one array for all outputs, or a list/dict per output."""
    count = 1 if names is None else len(names)
    if sample_weight is None:
        return [None] * count
    if isinstance(sample_weight, dict):
        return [sample_weight.get(name) for name in names or []] or [None]
    if isinstance(sample_weight, (list, tuple)):
        if len(sample_weight) != count:
            raise ValueError(
                f"fit: sample_weight has {len(sample_weight)} entries but the model has "
                f"{count} output(s)"
            )
        return list(sample_weight)
    return [sample_weight] * count


def _accuracy_for(loss, y_true, y_pred, name="accuracy"):
    """The accuracy metric class that `"accuracy"` means for this loss and these shapes."""
    kind = _loss_kind(loss)
    if kind == "sparse":
        return metrics_lib.SparseCategoricalAccuracy(name=name)
    if kind == "categorical":
        return metrics_lib.CategoricalAccuracy(name=name)
    if kind == "binary":
        threshold = 0.0 if getattr(loss, "from_logits", False) else 0.5
        return metrics_lib.BinaryAccuracy(name=name, threshold=threshold)
    true_shape, pred_shape = np.shape(y_true), tuple(y_pred.shape)
    if pred_shape and pred_shape[-1] == 1:
        return metrics_lib.BinaryAccuracy(name=name)
    if len(true_shape) == len(pred_shape) and true_shape[-1:] == pred_shape[-1:]:
        return metrics_lib.CategoricalAccuracy(name=name)
    return metrics_lib.SparseCategoricalAccuracy(name=name)


def _to_metric(identifier, loss, y_true, y_pred):
    """A metric object for one `compile(metrics=...)` entry.

    A string keeps its spelling as the log key, like Keras 3 (``"mae"`` logs ``mae``,
    ``"acc"`` logs ``acc``).
    """
    if isinstance(identifier, str) and identifier in ("accuracy", "acc"):
        return _accuracy_for(loss, y_true, y_pred, name=identifier)
    if isinstance(identifier, str) and identifier in ("crossentropy", "ce"):
        kind = _loss_kind(loss) or "categorical"
        fn: Any = {"sparse": losses_lib.sparse_categorical_crossentropy,
              "categorical": losses_lib.categorical_crossentropy,
              "binary": losses_lib.binary_crossentropy}[kind]
        return metrics_lib.MeanMetricWrapper(
            fn, name=identifier, from_logits=bool(getattr(loss, "from_logits", False)))
    metric = metrics_lib.get(identifier)
    if not isinstance(metric, metrics_lib.Metric):
        metric = metrics_lib.MeanMetricWrapper(metric)
    if isinstance(identifier, str):
        metric.name = identifier
    return metric


class CompiledMetrics:
    """The metrics of `compile(metrics=..., weighted_metrics=...)`, built on the first batch.

    `metrics` ignore sample weights and `weighted_metrics` use them, as in Keras.

    Args:
        metrics: a list of metrics for every output, a list of lists in output order, or
            a dict keyed by output name.
        weighted_metrics: the same, for metrics that use sample weights.
        loss: the compiled loss (a name, `Loss`, list or dict), to resolve "accuracy".

    Raises:
        ValueError: (when built) if two metrics end up with the same name.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.models import compile_utils
        >>> m = compile_utils.CompiledMetrics(["mae"], None, "mse")
        >>> m.update_state(ef.constant([[1.0]]), ef.constant([[3.0]]))
        >>> {k: float(v) for k, v in m.result().items()}
        {'mae': 2.0}
    """

    name = "compile_metrics"  # its place in `model.metrics` (Keras 3's container)

    def __init__(self, metrics, weighted_metrics=None, loss=None, output_names_of=None):
        self._specs = (metrics, weighted_metrics)
        self._loss = loss
        self._output_names_of = output_names_of
        self.metrics = []
        self._table: Any = None  # per output: [(metric, weighted)]
        self._names = None

    @property
    def has_metrics(self) -> bool:
        """Whether `compile` was given any metric (built or not yet)."""
        return any(_leaves(spec) for spec in self._specs)

    @property
    def variables(self) -> list:
        """The state variables of every built metric."""
        return [v for metric in self.metrics for v in metric.variables]

    @property
    def built(self) -> bool:
        return self._table is not None

    def build(self, y_true, y_pred, output_names) -> None:
        self._names = output_names
        flat_pred = nest.flatten(y_pred) if output_names is not None else [y_pred]
        flat_true = _flat_targets(y_true, y_pred, output_names, "fit")
        losses = [_to_loss(s) for s in _per_output(self._loss, output_names, "loss", True)] \
            if self._loss is not None else [None] * len(flat_pred)
        table: list[list[Any]] = [[] for _ in flat_pred]
        for weighted, spec in zip((False, True), self._specs, strict=True):
            if spec is None:
                continue
            if not isinstance(spec, (list, tuple, dict)):
                raise ValueError(
                    f"compile: metrics must be a list or a dict. Received: metrics={spec!r}")
            for index, entries in enumerate(_per_output(spec, output_names, "metrics", True)):
                for identifier in entries if isinstance(entries, (list, tuple)) else \
                        ([] if entries is None else [entries]):
                    metric = _to_metric(identifier, losses[index], flat_true[index],
                                        flat_pred[index])
                    if output_names is not None:
                        metric.name = f"{output_names[index]}_{metric.name}"
                    table[index].append((metric, weighted))
        self.metrics = [metric for row in table for metric, _ in row]
        taken = [metric.name for row in table for metric, weighted in row if not weighted]
        # Keras's rule: a weighted twin of a metric is "weighted_<name>", after the output's
        # prefix for several outputs ("digit_weighted_accuracy").
        for index, row in enumerate(table):
            prefix = "" if output_names is None else f"{output_names[index]}_"
            for metric, weighted in row:
                if weighted and metric.name in taken:
                    metric.name = f"{prefix}weighted_{metric.name[len(prefix):]}"
        names = [metric.name for metric in self.metrics]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(
                f"compile: two metrics are named {duplicates[0]!r}; give them distinct "
                "names (e.g. ef.metrics.AUC(name='auc_pr'))"
            )
        self._table = table

    def update_state(self, y_true, y_pred, sample_weight=None, output_names=None) -> None:
        """Updates every metric with one batch (builds them on the first call)."""
        if output_names is None and self._output_names_of is not None:
            output_names = self._output_names_of(y_pred)
        if self._table is None:
            self.build(y_true, y_pred, output_names)
        flat_pred = nest.flatten(y_pred) if self._names is not None else [y_pred]
        flat_true = _flat_targets(y_true, y_pred, self._names, "fit")
        weights = _flat_weights(sample_weight, self._names)
        for row, target, prediction, weight in zip(self._table, flat_true, flat_pred, weights,
                                                   strict=True):
            for metric, weighted in row:
                metric.update_state(target, prediction,
                                    sample_weight=weight if weighted else None)

    def result(self) -> dict:
        """``{name: result}`` of every metric."""
        return {metric.name: metric.result() for metric in self.metrics}

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

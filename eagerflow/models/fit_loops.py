"""The loops behind `fit`, `evaluate` and `predict`: epochs, batches, callbacks, logs.

Per epoch, `fit` resets the metrics, runs `train_step` on every batch (calling the batch
hooks, checking `model.stop_training` after each batch), then validates (every
`validation_freq` epochs) and hands the epoch's logs (training values plus ``val_`` ones)
to ``on_epoch_end``. The logs callbacks see are Python floats.

The loops train through the model's distribution strategy (`model.distribute_strategy`,
see `models/strategy.py`), the default one when the model was made under no scope: every
step runs through ``strategy.run``, and the strategy is asked at fixed points for this
replica's batches, the global logs, whether any replica stops, and the joined
predictions; with one replica each of those returns its input. So the loops have no
single-process branch.

Examples:
    >>> from eagerflow.models import fit_loops
    >>> import eagerflow as ef
    >>> fit_loops.pythonify_logs({"loss": ef.constant(0.5)})
    {'loss': 0.5}
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from eagerflow import callbacks as callbacks_lib
from eagerflow.callbacks import base as callback_base
from eagerflow.core import errors, nest, tensor
from eagerflow.core.variable import Variable
from eagerflow.models import data_adapter
from eagerflow.saving import status as restore_status


def pythonify_logs(logs) -> dict:
    """Logs with scalar tensors/arrays as Python floats (other arrays as ndarrays); a dict
    value (the results of ``"compile_metrics"``) is merged in, as in Keras 3.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.models import fit_loops
        >>> fit_loops.pythonify_logs({"a": np.float32(0.5), "b": np.array([1, 2]),
        ...                           "compile_metrics": {"mae": np.float32(2.0)}})
        {'a': 0.5, 'b': array([1, 2]), 'mae': 2.0}
    """
    result = {}
    for key, value in (logs or {}).items():
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        if isinstance(value, (tensor.Tensor, Variable)):
            value = value.numpy()
        if isinstance(value, np.ndarray) and value.size == 1:
            value = float(value.reshape(()))
        elif isinstance(value, (np.floating, np.integer)):
            value = float(value)
        result[key] = value
    return result


def check_verbose(verbose, function: str) -> int:
    """`verbose` as 0, 1 or 2 ("auto" is 1).

    Raises:
        ValueError: for any other value.

    Examples:
        >>> from eagerflow.models import fit_loops
        >>> fit_loops.check_verbose("auto", "fit")
        1
    """
    if verbose == "auto":
        return 1
    if verbose not in (0, 1, 2) or isinstance(verbose, bool):
        raise ValueError(
            f"{function}: verbose must be 0, 1, 2 or 'auto'. Received: verbose={verbose!r}")
    return int(verbose)


def _callback_list(callbacks, model, verbose, epochs, steps, strategy, **extra):
    if isinstance(callbacks, callbacks_lib.CallbackList):
        return callbacks
    # A replica other than the chief skips the progress bar and the file writers.
    callbacks = callback_base.replica_callbacks(callbacks, strategy.is_chief)
    progbar = verbose != 0 and strategy.is_chief
    return callbacks_lib.CallbackList(callbacks, add_history=True, add_progbar=progbar,
                                      model=model, verbose=verbose, epochs=epochs,
                                      steps=steps, **extra)


def _should_validate(epoch: int, validation_freq) -> bool:
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return epoch + 1 in validation_freq


def _check_validation_freq(validation_freq):
    if isinstance(validation_freq, bool):
        raise ValueError(f"fit: validation_freq must be a positive int or a list of epochs. "
                         f"Received: {validation_freq!r}")
    if isinstance(validation_freq, (int, np.integer)):
        if validation_freq <= 0:
            raise ValueError(f"fit: validation_freq must be a positive int. Received: "
                             f"{validation_freq!r}")
        return int(validation_freq)
    if isinstance(validation_freq, (list, tuple, set)) and all(
            isinstance(e, (int, np.integer)) and e > 0 for e in validation_freq):
        return {int(e) for e in validation_freq}
    raise ValueError(f"fit: validation_freq must be a positive int or a list of epochs "
                     f"(counted from 1). Received: {validation_freq!r}")


def _warn_nan(logs, epoch, step, callbacks) -> None:
    loss = logs.get("loss")
    if loss is None or math.isfinite(loss):
        return
    if any(isinstance(c, callbacks_lib.TerminateOnNaN) for c in callbacks):
        return
    errors.warn_once(
        "fit-nan-loss",
        f"fit: the loss became {loss} at epoch {epoch + 1}, batch {step}. Training goes on, "
        "but the weights are probably ruined: lower the learning rate, check the data for "
        "NaN/inf, or add ef.callbacks.TerminateOnNaN() to stop at the first bad batch.",
    )


def fit_loop(model, data, validation, epochs, verbose, callbacks, initial_epoch,
             validation_freq):
    """Runs `fit` (see `Trainer.fit` for the arguments' meaning); returns the History.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> from eagerflow.models import data_adapter, fit_loops
        >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> data = data_adapter.adapt(np.ones((4, 2)), np.zeros((4, 1)))
        >>> fit_loops.fit_loop(model, data, None, 2, 0, None, 0, 1).epoch
        [0, 1]
    """
    validation_freq = _check_validation_freq(validation_freq)
    strategy = model.distribute_strategy
    data = strategy.distribute_batches(data, "fit", training=True)
    strategy.prepare_training(model)
    callbacks = _callback_list(callbacks, model, verbose, epochs, data.steps, strategy,
                               do_validation=validation is not None)
    train_function = model._make_train_function()
    execution = model._steps_per_execution
    wants_batch_logs = strategy.any_replica(callbacks.wants_batch_logs("train"), "batch logs")
    model.stop_training = False
    model._initial_epoch = None
    with _hinting(data):
        model._build_before_training(data)
    callbacks.on_train_begin()
    # BackupAndRestore (Keras's protocol) may move the start forward in on_train_begin.
    start = model._initial_epoch if model._initial_epoch is not None else initial_epoch
    model._initial_epoch = None
    start = strategy.sync_start(model, start)
    if start and hasattr(data, "source") and data.is_dataset and data._stream is None:
        _set_dataset_epoch(data.source, start)
    epoch_logs = {}
    for epoch in range(start, epochs):
        if getattr(data, "ran_out", None) is not None and data.ran_out():
            break  # a generator read with steps_per_epoch is exhausted (warned already)
        model.reset_metrics()
        callbacks.on_epoch_begin(epoch)
        logs = None
        seen = 0
        with model._loop_cache():
            for step, batch in enumerate(data.epoch()):
                if step % execution == 0:
                    callbacks.on_train_batch_begin(step)
                if seen == 0 and epoch == start:
                    with _hinting(data):
                        logs = strategy.run(train_function, args=(batch,))
                    # The first step built the optimizer's slots: a restored value still
                    # waiting for its variable now will never find one (TF's "Unresolved
                    # object in checkpoint" warning).
                    restore_status.warn_pending_restores([model, model.optimizer])
                else:
                    logs = strategy.run(train_function, args=(batch,))
                seen = step + 1
                if wants_batch_logs and (seen % execution == 0 or seen == data.steps):
                    batch_logs = strategy.reduce_logs(model, pythonify_logs(logs))
                    _warn_nan(batch_logs, epoch, step, callbacks)
                    callbacks.on_train_batch_end(step, batch_logs)
                if wants_batch_logs:  # (the same on every replica)
                    # A callback may stop one replica only (a time limit): all stop here.
                    model.stop_training = strategy.any_replica(model.stop_training)
                if model.stop_training:
                    break
        if logs is None:
            raise ValueError(
                f"fit: epoch {epoch + 1} had no batches: the data is empty")
        if data.steps is None and getattr(data, "is_dataset", False):
            # Known after the first pass: later epochs' progress bars get a total. (The
            # callbacks share this params dict.)
            data.steps = seen
            callbacks.params["steps"] = seen
        # Moving statistics: the replicas' mean, before validation and checkpoints.
        strategy.average_local_state(model)
        epoch_logs = strategy.reduce_logs(model, pythonify_logs(model._epoch_logs(logs)))
        if not wants_batch_logs:
            _warn_nan(epoch_logs, epoch, seen - 1, callbacks)
        if validation is not None and _should_validate(epoch, validation_freq):
            val_logs = evaluate_loop(model, validation, verbose=0, callbacks=callbacks)
            epoch_logs.update({f"val_{key}": value for key, value in val_logs.items()})
        callbacks.on_epoch_end(epoch, epoch_logs)
        model.stop_training = strategy.any_replica(model.stop_training)
        if model.stop_training:
            break
    if model.optimizer is not None:  # Keras 3: with `use_ema`, end with the averaged weights
        model.optimizer.finalize_variable_values(model.trainable_variables)
    callbacks.on_train_end(epoch_logs)
    return callbacks.history


@contextlib.contextmanager
def _hinting(data):
    """Adds the data's hint (e.g. an unbatched Dataset) as a note to a shape error."""
    try:
        yield
    except (ValueError, errors.InvalidArgumentError) as e:
        hint = data.unbatched_hint() if hasattr(data, "unbatched_hint") else None
        if hint and hasattr(e, "add_note"):  # Python 3.11+
            e.add_note(hint)
        raise


def _set_dataset_epoch(dataset, epoch: int) -> None:
    """Starts the per-epoch shuffle streams of `dataset` at `epoch` (resumed training sees
    the order it would have seen)."""
    from eagerflow.data import shuffling

    pending = [dataset]
    while pending:
        node = pending.pop()
        if isinstance(node, shuffling.ShuffleDataset):
            node.next_iteration = epoch
        pending.extend(getattr(node, "_inputs", ()))


def evaluate_loop(model, data, verbose, callbacks):
    """Runs `test_step` over `data`; returns the final logs (Python floats).

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> from eagerflow.models import data_adapter, fit_loops
        >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,),
        ...                                        kernel_initializer="zeros")])
        >>> model.compile(loss="mse")
        >>> data = data_adapter.adapt(np.ones((4, 2)), np.ones((4, 1)))
        >>> fit_loops.evaluate_loop(model, data, 0, None)
        {'loss': 1.0}
    """
    strategy = model.distribute_strategy
    data = strategy.distribute_batches(data, "evaluate", training=False)
    callbacks = _callback_list(callbacks, model, verbose, 1, data.steps, strategy)
    test_function = model._make_test_function()
    wants_batch_logs = strategy.any_replica(callbacks.wants_batch_logs("test"), "batch logs")
    model.reset_metrics()
    callbacks.on_test_begin()
    logs = None
    seen = 0
    with model._loop_cache():
        for step, batch in enumerate(data.epoch()):
            callbacks.on_test_batch_begin(step)
            if batch is not None:  # None: this replica's empty share of a last batch
                logs = strategy.run(test_function, args=(batch,))
            if wants_batch_logs:
                callbacks.on_test_batch_end(step, strategy.reduce_logs(model,
                                                                       pythonify_logs(logs)))
            seen = step + 1
        if logs is None and seen:  # no row on this replica: its (empty) metrics still count
            logs = model.get_metrics_result()
    if logs is None:
        raise ValueError("evaluate: no batches to evaluate: the data is empty")
    logs = strategy.reduce_logs(model, pythonify_logs(model._epoch_logs(logs)))
    callbacks.on_test_end(logs)
    return logs


def _concatenate(outputs: list):
    """Joins per-batch outputs (same structure each) along the batch axis, as NumPy."""
    first = outputs[0]
    flat = [nest.flatten(out) for out in outputs]
    joined = []
    for index in range(len(flat[0])):
        parts = [np.asarray(batch[index]) for batch in flat]
        joined.append(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0))
    return nest.pack_sequence_as(first, joined)


def predict_loop(model, data, verbose, callbacks):
    """Runs `predict_step` over `data`; returns the concatenated outputs as NumPy.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> from eagerflow.models import data_adapter, fit_loops
        >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
        >>> data = data_adapter.adapt(np.ones((5, 2)), batch_size=2, function="predict")
        >>> fit_loops.predict_loop(model, data, 0, None).shape
        (5, 1)
    """
    strategy = model.distribute_strategy
    data = strategy.distribute_batches(data, "predict", training=False)
    callbacks = _callback_list(callbacks, model, verbose, 1, data.steps, strategy)
    predict_function = model._make_predict_function()
    callbacks.on_predict_begin()
    outputs: list[Any] = []
    for step, batch in enumerate(data.epoch()):
        callbacks.on_predict_batch_begin(step)
        if batch is None:  # this replica's empty share of a small last batch
            outputs.append(None)
            continue
        output = strategy.run(predict_function, args=(batch,))
        outputs.append(nest.map_structure(np.asarray, output))
        callbacks.on_predict_batch_end(step, {"outputs": outputs[-1]})
    if not outputs:
        raise ValueError("predict: no batches to predict: the data is empty")
    callbacks.on_predict_end()
    return strategy.gather_predictions(outputs, _concatenate)  # every replica: every row


def adapt_validation(validation_data, validation_batch_size, validation_steps,
                     output_names):
    """The batch source for `fit`'s validation_data (a tuple, Dataset or generator).

    Raises:
        ValueError: for anything else.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.models import fit_loops
        >>> fit_loops.adapt_validation((np.ones((6, 2)), np.ones(6)), 4, None, None).steps
        2
    """
    if validation_data is None:
        return None
    if isinstance(validation_data, (tuple, list)) and len(validation_data) in (2, 3) \
            and not data_adapter._is_dataset(validation_data[0]):
        x, y, weights = data_adapter.unpack_x_y_sample_weight(tuple(validation_data))
        return data_adapter.adapt(x, y, weights, batch_size=validation_batch_size,
                                  steps=validation_steps, output_names=output_names,
                                  function="fit (validation_data)")
    if data_adapter._is_dataset(validation_data) or data_adapter._is_generator(
            validation_data) or data_adapter._is_py_dataset(validation_data):
        return data_adapter.adapt(validation_data, batch_size=validation_batch_size,
                                  steps=validation_steps, output_names=output_names,
                                  function="fit (validation_data)")
    raise ValueError(
        "fit: validation_data must be a tuple (x_val, y_val) or (x_val, y_val, "
        "sample_weight_val), an ef.data.Dataset, an ef.utils.PyDataset or a generator. "
        "Received: "
        f"{type(validation_data).__name__}"
    )

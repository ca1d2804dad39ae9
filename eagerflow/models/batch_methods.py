"""One-batch training/evaluation/prediction and saving, mixed into `Model` via `Trainer`.

Example:
    >>> import eagerflow as ef, numpy as np
    >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> loss = model.train_on_batch(np.ones((4, 2)), np.zeros((4, 1)))
    >>> isinstance(loss, float)
    True
"""

from __future__ import annotations

import os

from eagerflow.core import nest
from eagerflow.models import data_adapter, fit_loops

__all__ = ["BatchAndSavingMixin"]


def _check_overwrite(filepath, overwrite, function):
    if not overwrite and os.path.exists(os.fspath(filepath)):
        raise FileExistsError(
            f"{function}: {os.fspath(filepath)!r} exists and overwrite=False")


class BatchAndSavingMixin:
    """`train_on_batch`, `test_on_batch`, `predict_on_batch` and the saving methods."""

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

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True, return_dict=False):
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

        Example:
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

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                      return_dict=False):
        """The loss (and metrics) of the model on exactly this batch, without training.

        Args:
            x, y, sample_weight: one batch.
            reset_metrics: as for `train_on_batch`.
            return_dict: return ``{name: value}`` instead of a list.

        Raises:
            RuntimeError: if the model is not compiled.

        Example:
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
        return self._single_batch_result(self.test_step(batch), return_dict)

    def predict_on_batch(self, x):
        """The model's output for exactly this batch, as NumPy (no batching, no callbacks).

        Example:
            >>> import eagerflow as ef, numpy as np
            >>> model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,))])
            >>> model.predict_on_batch(np.ones((5, 2))).shape
            (5, 3)
        """
        batch = self._one_batch(x, None, None, None, "predict_on_batch")
        return nest.map_structure(lambda t: t.numpy(), self.predict_step(batch))

    def save_weights(self, filepath, overwrite=True):
        """Saves the model's variables (not the optimizer's) to an HDF5 file, atomically.

        Args:
            filepath: the file to write.
            overwrite: False makes an existing file an error.

        Returns:
            The path written.

        Raises:
            FileExistsError: if the file exists and `overwrite` is False.
            InvalidArgumentError: if the model has no variables yet.

        Example:
            >>> import eagerflow as ef, os, tempfile
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "w.h5"))
            >>> clone = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> len(clone.load_weights(path).matched)
            2
        """
        from eagerflow import saving

        _check_overwrite(filepath, overwrite, "save_weights")
        return saving.save_weights(self, filepath)

    def load_weights(self, filepath, skip_mismatch=False):
        """Loads variables saved by `save_weights`, `save` or an `ef.Checkpoint`.

        Args:
            filepath: the file.
            skip_mismatch: skip (with a warning) values that do not fit instead of raising.

        Returns:
            The restore report (`matched`, `missing`, ...).

        Raises:
            NotFoundError: if the file does not exist.
            InvalidArgumentError: if values do not fit the model's variables.

        Example:
            >>> import eagerflow as ef
            >>> callable(ef.Sequential().load_weights)
            True
        """
        from eagerflow import saving

        return saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def save(self, filepath, overwrite=True, include_optimizer=True):
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

        Example:
            >>> import eagerflow as ef, os, tempfile
            >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
            >>> model.compile(optimizer="sgd", loss="mse")
            >>> path = model.save(os.path.join(tempfile.mkdtemp(), "model.h5"))
            >>> ef.models.load_model(path).optimizer.name
            'sgd'
        """
        from eagerflow import saving

        _check_overwrite(filepath, overwrite, "save")
        return saving.save_model(self, filepath, include_optimizer=include_optimizer)

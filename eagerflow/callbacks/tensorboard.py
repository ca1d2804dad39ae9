"""`TensorBoard`: log training to TensorBoard event files through `ef.summary`.

The layout follows Keras, so TensorBoard shows train and validation curves on one chart:
``log_dir/train`` gets ``epoch_loss``, ``epoch_accuracy``, ``epoch_learning_rate`` ...
(and ``batch_*`` with a batch-level `update_freq`), ``log_dir/validation`` gets the
``val_`` values under the same ``epoch_*`` names plus ``evaluation_*_vs_iterations``
(x axis: training steps).

With ``write_graph=True`` (Keras's default; eagerflow's is False) ``log_dir/train`` also
gets the graph `fit` traced its training step into, for TensorBoard's Graphs tab.

The event files are written by `ef.summary` itself: no tensorboardX or protobuf needed.

Examples:
    >>> import eagerflow as ef, tempfile
    >>> callback = ef.callbacks.TensorBoard(log_dir=tempfile.mkdtemp(), histogram_freq=1)
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from eagerflow.callbacks import base
from eagerflow.core import errors
from eagerflow.summary import ops as summary_ops
from eagerflow.summary import writer as summary_writer


def _weight_image(value: np.ndarray):
    """A (1, h, w, 1) image of a weight in [0, 1], or None when it has no image form."""
    if value.ndim == 1:
        value = value[None, :]
    elif value.ndim == 4 and value.shape[2] == 1:
        # A conv kernel on one input channel: one image per filter, side by side.
        value = np.concatenate(list(np.moveaxis(value[:, :, 0, :], -1, 0)), axis=1)
    elif value.ndim != 2:
        return None
    low, high = float(value.min()), float(value.max())
    scaled = (value - low) / (high - low) if high > low else np.zeros_like(value)
    return scaled[None, :, :, None]


class TensorBoard(base.Callback):
    """Writes the losses, metrics, learning rate and (optionally) weight histograms.

    Args:
        log_dir: directory for the event files (``train/`` and ``validation/`` inside);
            point ``tensorboard --logdir`` at it.
        histogram_freq: write a histogram of every weight every this many epochs (0: never).
        write_graph: write the graph of the traced training step (after the first batch)
            for TensorBoard's Graphs tab. A model compiled with ``run_eagerly=True`` has
            none: it warns once.
        write_images: write weights that have an image form (vectors, matrices, conv
            kernels on one input channel) as images, with the histograms.
        write_steps_per_second: also log ``epoch_steps_per_second``.
        update_freq: "epoch" (default), "batch", or an int N: also log ``batch_*`` values
            (running epoch means) every N training batches.
        profile_batch: must be 0 (no profiler plugin; Keras's argument, accepted off).
        embeddings_freq: must be 0 (no embedding projector; accepted off).
        embeddings_metadata: must be None.

    Raises:
        ValueError: for a bad `histogram_freq` or `update_freq`, or the profiler or the
            projector turned on.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.TensorBoard("logs", update_freq=100)
    """

    _chief_only = True  # under ef.distribute, only rank 0 runs it (it prints or writes)

    def __init__(self, log_dir: str | os.PathLike[str] = "logs", histogram_freq: int = 0,
                 write_graph: bool = False, write_images: bool = False,
                 write_steps_per_second: bool = False, update_freq: int | str = "epoch",
                 profile_batch: int = 0, embeddings_freq: int = 0,
                 embeddings_metadata: Any = None) -> None:
        super().__init__()
        # Keras's arguments for TensorBoard's profiler and embedding projector: accepted at
        # their "off" values (as the Keras guides pass them), refused when turned on.
        if profile_batch not in (0, None, (0, 0)):
            raise ValueError(
                "TensorBoard: profile_batch is not supported (eagerflow has no TensorBoard "
                "profiler plugin); pass 0, and profile with cProfile or pyinstrument. "
                f"Received: profile_batch={profile_batch!r}")
        if embeddings_freq or embeddings_metadata:
            raise ValueError(
                "TensorBoard: embeddings_freq/embeddings_metadata are not supported (eagerflow "
                "does not write projector data); pass 0 / None. Received: "
                f"embeddings_freq={embeddings_freq!r}, "
                f"embeddings_metadata={embeddings_metadata!r}")
        if isinstance(histogram_freq, bool) or not isinstance(histogram_freq, (int, np.integer)) \
                or histogram_freq < 0:
            raise ValueError(
                "TensorBoard: histogram_freq must be a non-negative int. "
                f"Received: histogram_freq={histogram_freq!r}"
            )
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (isinstance(update_freq, bool)
                                       or not isinstance(update_freq, (int, np.integer))
                                       or update_freq <= 0):
            raise ValueError(
                "TensorBoard: update_freq must be 'epoch', 'batch' or a positive int. "
                f"Received: update_freq={update_freq!r}"
            )
        self.write_graph = bool(write_graph)
        self._graph_written = not self.write_graph
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self._writers: dict[Any, Any] = {}
        self._train_step = 0
        self._epoch_start = 0.0
        self._epoch_batches = 0

    def _writer(self, kind: str):
        writer = self._writers.get(kind)
        if writer is None:
            writer = summary_writer.create_file_writer(os.path.join(self.log_dir, kind))
            self._writers[kind] = writer
        return writer

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._train_step = 0
        self._graph_written = not self.write_graph
        self._writer("train")

    def _write_graph(self) -> None:
        """Writes the traced training step's graph, once: it exists after the first batch."""
        self._graph_written = True
        graphs = getattr(getattr(self.model, "train_function", None), "graphs", None)
        traced = graphs() if graphs is not None else []
        if not traced:
            errors.warn_once(
                "tensorboard-write-graph",
                f"TensorBoard(write_graph=True): model {getattr(self.model, 'name', '')!r} "
                "runs its training step eagerly (compiled with run_eagerly=True), so there "
                "is no traced graph to write; scalars, histograms and images are logged.",
            )
            return
        with self._writer("train").as_default():
            summary_ops.graph(traced[0])

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch_start = time.perf_counter()
        self._epoch_batches = 0

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._train_step += 1
        self._epoch_batches += 1
        if not self._graph_written:
            self._write_graph()
        # (update_freq is an int past the "epoch" test; mypy cannot narrow it by ==)
        if self.update_freq == "epoch" or self._train_step % self.update_freq:  # type: ignore[operator]
            return
        with self._writer("train").as_default(step=self._train_step):
            for key, value in (logs or {}).items():
                summary_ops.scalar(f"batch_{key}", value)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if "learning_rate" not in train:
            rate = self._learning_rate()
            if rate is not None:
                train["learning_rate"] = rate
        if self.write_steps_per_second:
            elapsed = time.perf_counter() - self._epoch_start
            train["steps_per_second"] = self._epoch_batches / elapsed if elapsed > 0 else 0.0
        with self._writer("train").as_default(step=epoch):
            for key, value in train.items():
                summary_ops.scalar(f"epoch_{key}", value)
            if self.histogram_freq and epoch % self.histogram_freq == 0:
                self._log_weights(epoch)
        if validation:
            with self._writer("validation").as_default(step=epoch):
                for key, value in validation.items():
                    summary_ops.scalar(f"epoch_{key}", value)
                    summary_ops.scalar(f"evaluation_{key}_vs_iterations", value,
                                       step=self._train_step)

    def _learning_rate(self):
        optimizer: Any = getattr(self.model, "optimizer", None)  # None: AttributeError below
        try:
            return float(np.asarray(optimizer.learning_rate))
        except (AttributeError, TypeError, ValueError):
            return None

    def _log_weights(self, epoch) -> None:
        seen = set()
        for variable in getattr(self.model, "weights", []):
            name = variable.name.replace(":", "_")
            while name in seen:  # two variables with one name still get two series
                name += "_"
            seen.add(name)
            value = np.asarray(variable.numpy())
            summary_ops.histogram(name, value)
            if self.write_images:
                image = _weight_image(value.astype(np.float64))
                if image is not None:
                    summary_ops.image(f"{name}/image", image)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

"""TensorBoard summaries (`ef.summary`): scalars, histograms, images and text in event files.

Event files are written by eagerflow itself: no TensorBoard, tensorboardX or protobuf package
is needed to write them (only to view them: ``pip install tensorboard``).

Examples:
    >>> import eagerflow as ef, tempfile
    >>> logdir = tempfile.mkdtemp()
    >>> writer = ef.summary.create_file_writer(logdir)
    >>> step = ef.Variable(0, dtype=ef.int64)
    >>> with writer.as_default(step=step):
    ...     for _ in range(3):
    ...         _ = ef.summary.scalar("loss", 0.5)
    ...         _ = step.assign_add(1)
"""

from types import SimpleNamespace

from eagerflow import absent as _absent
from eagerflow.summary.ops import graph, histogram, image, scalar, text
from eagerflow.summary.writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    get_step,
    record_every_n_steps,
    record_if,
    set_step,
    should_record_summaries,
)

# TensorFlow keeps the default-step functions under tf.summary.experimental.
experimental = SimpleNamespace(set_step=set_step, get_step=get_step)
"""``tf.summary.experimental``'s names: `set_step` and `get_step`, the default step of
the summary ops."""

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "get_step",
    "graph",
    "histogram",
    "image",
    "record_every_n_steps",
    "record_if",
    "scalar",
    "set_step",
    "should_record_summaries",
    "text",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.summary")

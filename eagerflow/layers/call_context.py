"""Per-thread state shared by nested layer calls.

A model call runs its sublayers' calls inside its own, so some facts have to travel down
the Python call stack without being passed by hand:

* `training`: the flag resolved by the outermost call that set it. A layer called without
  an explicit ``training=`` inherits it, so ``model(x, training=True)`` reaches every
  Dropout and BatchNormalization inside, however deeply nested. An
  explicit argument overrides it for that layer and everything it calls.
* `stack`: the layers whose ``__call__`` is running, outermost first. It tells
  `add_weight` which enclosing layer must end up owning a new variable.
* `generation`: counts outermost calls. Losses added with `add_loss` are stamped with it,
  so `layer.losses` reports the latest call's losses without clearing every sublayer at
  the start of each call.
* `probing`: true while a layer runs on dummy data to infer output shapes (functional
  models, `compute_output_shape`, `build(shape)`): stateful layers must not update their
  statistics then, and the training flag is forced off.
* `shape_log`: while a model runs its first call (or a `build(shape)` dry run), every layer
  call appends its input and output shapes here, so `summary()` can show real shapes.

Examples:
    >>> from eagerflow.layers import call_context
    >>> call_context.state.training is None
    True
"""

from __future__ import annotations

import contextlib
import threading


class _CallState(threading.local):
    def __init__(self):
        self.stack: list = []
        self.training = None
        self.generation = 0
        self.probing = False
        self.shape_log: list | None = None
        # (parent layer, created layer, variable name) for variables created inside a
        # running call; checked when the parent's call ends (see Layer.add_weight).
        self.created: list = []


state = _CallState()


@contextlib.contextmanager
def probing():
    """Runs the body as a shape probe: training off, no state updates."""
    previous = state.probing
    state.probing = True
    try:
        yield
    finally:
        state.probing = previous


@contextlib.contextmanager
def logging_shapes():
    """Collects ``(layer, input_shapes, output_shapes)`` of every layer call, in call order
    (a shape log)."""
    previous = state.shape_log
    log: list = []
    state.shape_log = log
    try:
        yield log
    finally:
        state.shape_log = previous

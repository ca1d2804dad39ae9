"""The graph compiler's optimizer options: `ef.config.optimizer` (TF's ``tf.config.optimizer``).

One option so far, ``"elementwise_fusion"`` (True by default): plans of `ef.function`
compiled from then on fuse chains of elementwise ops on small tensors into compiled
programs when the numba kernel set is active (``pip install 'eagerflow[fast]'``; see
`eagerflow.graph.passes.fusion`). Plans compiled earlier keep what they were compiled
with. ``ef.function(..., jit_compile=False)`` turns fusion off for one function,
``jit_compile=True`` insists on it.

Examples:
    >>> import eagerflow as ef
    >>> ef.config.optimizer.set_experimental_options({"elementwise_fusion": False})
    >>> ef.config.optimizer.get_experimental_options()
    {'elementwise_fusion': False}
    >>> ef.config.optimizer.set_experimental_options({"elementwise_fusion": True})
"""

from __future__ import annotations

# Read by `graph/passes/fusion.py` when a plan is compiled. A top-level module beside
# `eagerflow/config.py` (whose `run_functions_eagerly` switch is also the compiler's), not in
# graph/: `import eagerflow` shows `ef.config.optimizer` and loads neither the graph compiler
# nor numba.
_settings = {"elementwise_fusion": True}


def set_experimental_options(options: dict) -> None:
    """Sets graph optimizer options for plans compiled from now on.

    Args:
        options: ``{"elementwise_fusion": bool}``.

    Raises:
        ValueError: for an unknown option or a value that is not a bool.

    Examples:
        >>> import eagerflow as ef
        >>> ef.config.optimizer.set_experimental_options({"elementwise_fusion": True})
    """
    if not isinstance(options, dict):
        raise ValueError(f"set_experimental_options: `options` must be a dict. "
                         f"Received: options={options!r}")
    for key, value in options.items():
        if key not in _settings:
            raise ValueError(f"set_experimental_options: unknown option {key!r}; known "
                             f"options: {', '.join(_settings)}")
        if not isinstance(value, bool):
            raise ValueError(f"set_experimental_options: {key!r} must be a bool. "
                             f"Received: {key}={value!r}")
    _settings.update(options)


def get_experimental_options() -> dict:
    """The current graph optimizer options (a new dict).

    Examples:
        >>> import eagerflow as ef
        >>> sorted(ef.config.optimizer.get_experimental_options())
        ['elementwise_fusion']
    """
    return dict(_settings)

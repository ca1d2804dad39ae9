"""Runtime configuration (`ef.config`): devices, glibc malloc thresholds (opt-in), graph
optimizer options (`ef.config.optimizer`, e.g. elementwise fusion), and whether
`ef.function`s run eagerly (a debugging switch, defined here so that it loads no compiler).

Examples:
    >>> import eagerflow as ef
    >>> [d.device_type for d in ef.config.list_physical_devices()]
    ['CPU']
"""

from eagerflow import absent as _absent
from eagerflow.core import graph_options as optimizer
from eagerflow.core.device import PhysicalDevice, list_logical_devices, list_physical_devices
from eagerflow.ops.kernels.memory import malloc_settings, pin_malloc_thresholds

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported or defined here.
__all__ = [
    "PhysicalDevice", "functions_run_eagerly", "list_logical_devices", "list_physical_devices",
    "malloc_settings", "optimizer", "pin_malloc_thresholds", "run_functions_eagerly",
]


class _Mode:
    __slots__ = ("eager",)

    def __init__(self) -> None:
        self.eager = False


_eager_mode = _Mode()  # read by `Function.__call__` (graph/function.py) on every call


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every `ef.function` run its Python function eagerly (True) or traced (False).

    A debugging switch, as `tf.config.run_functions_eagerly`: while it is on, calling an
    `ef.function` calls the original Python function (no tracing, no AutoGraph), so print
    statements run on every call and values can be inspected. Set it back to False after.

    Args:
        run_eagerly: whether functions run eagerly (any value; its truth is used).

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function
        ... def f(x):
        ...     return ef.executing_eagerly()
        >>> ef.config.run_functions_eagerly(True)
        >>> f(ef.constant(1.0)), f.experimental_get_tracing_count()
        (True, 0)
        >>> ef.config.run_functions_eagerly(False)
        >>> f(ef.constant(1.0)), f.experimental_get_tracing_count()
        (ef.Tensor(False, shape=(), dtype=bool), 1)
    """
    _eager_mode.eager = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `ef.function`s currently run eagerly (see `run_functions_eagerly`).

    Returns:
        The value last set with `ef.config.run_functions_eagerly` (False by default).

    Examples:
        >>> import eagerflow as ef
        >>> ef.config.functions_run_eagerly()
        False
    """
    return _eager_mode.eager


__getattr__ = _absent.namespace_getattr(__name__, "tf.config")

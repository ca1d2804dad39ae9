"""Runtime configuration (`ef.config`): devices, the kernel set (NumPy or numba), glibc
malloc thresholds (opt-in), graph
optimizer options (`ef.config.optimizer`, e.g. elementwise fusion), and whether
`ef.function`s run eagerly (a debugging switch, defined here so that it loads no compiler),
and the memory budget of loading a file (`set_load_budget`).

Examples:
    >>> import eagerflow as ef
    >>> [d.device_type for d in ef.config.list_physical_devices()]
    ['CPU']
"""

from eagerflow import absent as _absent
from eagerflow import compiler_options as optimizer
from eagerflow.core.device import PhysicalDevice, list_logical_devices, list_physical_devices
from eagerflow.ops.kernels import kernel_sets as _kernel_sets
from eagerflow.ops.kernels.memory import malloc_settings, pin_malloc_thresholds

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported or defined here.
__all__ = [
    "PhysicalDevice", "functions_run_eagerly", "get_kernel_set", "get_load_budget",
    "list_logical_devices", "list_physical_devices", "malloc_settings", "optimizer",
    "pin_malloc_thresholds", "run_functions_eagerly", "set_kernel_set", "set_load_budget",
]


class _Mode:
    __slots__ = ("eager",)

    def __init__(self) -> None:
        self.eager = False


_eager_mode = _Mode()  # read by `Function.__call__` (graph/function.py) on every call
_load_budget: dict = {"max_bytes": None}  # read by eagerflow/saving/load_budget.py


def set_load_budget(max_bytes: int | None) -> None:
    """Sets how much memory every later load may allocate, unless given ``max_bytes=``.

    Loading a file (`ef.models.load_model`, ``Model.load_weights``, ``Checkpoint.restore``
    and ``read``, `ef.saved_model.load`) charges everything it allocates, before allocating
    it, to one budget: the weights its architecture builds, the values it reads, its build
    probes and buffers, and the layer state it decompresses; beyond the budget the load
    raises `ResourceExhaustedError` naming the layer and the size. The default budget is
    twice the file's size plus 1 GiB (see the checkpoints guide). Raise it here for trusted
    files whose layers allocate more than they store; it applies process-wide, also to
    loads made for you (`CheckpointManager`, `BackupAndRestore`).

    Args:
        max_bytes: the most one load may allocate, in bytes, or None for the default.

    Raises:
        ValueError: if `max_bytes` is not None or a non-negative int.

    Examples:
        >>> import eagerflow as ef
        >>> ef.config.set_load_budget(8 << 30)  # trusted files only: 8 GiB per load
        >>> ef.config.get_load_budget()
        8589934592
        >>> ef.config.set_load_budget(None)  # back to the default
    """
    if max_bytes is not None and (isinstance(max_bytes, bool) or not hasattr(
            type(max_bytes), "__index__") or max_bytes < 0):  # (NumPy ints are ints too)
        raise ValueError("set_load_budget: `max_bytes` must be None or a non-negative number "
                         f"of bytes. Received: max_bytes={max_bytes!r}")
    _load_budget["max_bytes"] = None if max_bytes is None else int(max_bytes)


def get_load_budget() -> int | None:
    """The budget set with `set_load_budget` (bytes), or None when loads use the default
    (twice the file's size plus 1 GiB).

    Examples:
        >>> import eagerflow as ef
        >>> ef.config.get_load_budget() is None
        True
    """
    return _load_budget["max_bytes"]


def get_kernel_set() -> str:
    """The active kernel set: ``"numba"`` (compiled kernels) or ``"numpy"``.

    The set is chosen once, when eagerflow is imported, from the environment variable
    ``EAGERFLOW_KERNELS``: ``numpy``, ``numba``, or unset / ``auto`` for numba when it is
    installed (``pip install "eagerflow[fast]"``) and NumPy otherwise. Under ``"numba"``
    the ops that have a compiled kernel (convolutions, pooling, ...) run it; every other op
    runs its NumPy forward. Both sets compute the same values up to floating-point
    rounding. See the performance guide for what each costs.

    Returns:
        ``"numba"`` or ``"numpy"``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.config.get_kernel_set() in ("numba", "numpy")
        True
    """
    return _kernel_sets.active()


def set_kernel_set(kernel_set: str) -> None:
    """Chooses the kernel set every later op call runs: ``"numba"`` or ``"numpy"``.

    Meant for the start of a program (or a test comparing the two): `ef.function`s traced
    and run before the call keep the kernels they were compiled with. Setting the
    environment variable ``EAGERFLOW_KERNELS`` before importing eagerflow does the same for
    the whole process.

    Args:
        kernel_set: ``"numba"`` or ``"numpy"``.

    Raises:
        ValueError: for any other name.
        ImportError: for ``"numba"`` when numba is not installed (there is no silent
            fallback to the NumPy kernels).

    Examples:
        >>> import eagerflow as ef
        >>> before = ef.config.get_kernel_set()
        >>> ef.config.set_kernel_set("numpy")
        >>> ef.config.get_kernel_set()
        'numpy'
        >>> ef.config.set_kernel_set(before)
    """
    _kernel_sets.set_active(kernel_set)


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

"""Kernel sets: which implementation runs an op's forward (and gradient), chosen once.

An op is data (`core/dispatch.py`): a name, a NumPy forward and a gradient rule. A *kernel*
is a faster forward, or a different gradient rule, for an op that already exists; it
computes the same function. Two kernel sets exist:

* ``"numpy"``: every op's own NumPy forward (the core install: numpy, h5py, tqdm);
* ``"numba"``: compiled kernels written as plain Python loops and compiled with numba
  (``pip install "eagerflow[fast]"``), for the ops that have one; every other op keeps its
  NumPy forward.

**Choosing.** The set is chosen once, when `eagerflow.ops` is imported, from the
environment variable ``EAGERFLOW_KERNELS``: ``numpy``, ``numba``, or unset / ``auto``
(numba when the ``fast`` extra is installed: numba, SciPy and threadpoolctl, `NEEDS`;
NumPy otherwise). Asking for ``numba`` when one of them is not installed raises
`ImportError` right there, naming it: there is no silent fallback.
``ef.config.set_kernel_set`` changes the set explicitly (meant for the start of a program
and for tests; `ef.function` plans compiled before the call keep the forwards they bound),
``ef.config.get_kernel_set`` reports the active one.

**Registering.** An op module declares its kernels below its ops with `register`, by op
name, naming the kernel as ``"module:function"``; the module is imported (and numba with
it) on the first call of the op, so ``import eagerflow`` never loads numba::

    register("Conv2D", forward="eagerflow.ops.kernels.conv_jit:conv2d")

A kernel forward takes exactly the op forward's arguments (``forward(*arrays, **attrs)``)
and keeps every fact the op declares (``fresh``: a new array). A ``grad=`` rule replaces
the op's gradient rule while the set is active (same signature as a gradient rule,
written in eagerflow ops). `numpy_forward` and `kernel_forward` return either
implementation whatever the active set, so tests compare the two.

Examples:
    >>> from eagerflow.ops.kernels import kernel_sets
    >>> kernel_sets.active() in kernel_sets.KERNEL_SETS
    True
    >>> kernel_sets.numpy_forward("AddV2").__name__
    'add'
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import dispatch

KERNEL_SETS = ("numpy", "numba")
"""The kernel sets' names."""
ENV_VAR = "EAGERFLOW_KERNELS"
"""The environment variable that chooses the kernel set when eagerflow is imported."""
_INSTALL_HINT = 'pip install "eagerflow[fast]" (or pip install numba scipy threadpoolctl)'
COMPILED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
"""The dtypes the numba set's kernels compute in: numba has no float16 arithmetic, so
arrays of other dtypes take the op's NumPy forward under either set."""
NEEDS = ("numba", "scipy", "threadpoolctl")
"""What the numba set runs on (the ``fast`` extra): numba compiles the kernels, the
kernels call SciPy's BLAS from compiled code, threadpoolctl sets BLAS's threads."""

_state: dict[str, Any] = {"active": None}
# op name -> {"forward": spec or None, "grad": spec or None}; a spec is a callable or a
# "module:function" string resolved on first use.
_kernels: dict[str, dict[str, Any]] = {}
# op name -> the op's own (forward, grad, grad_needs), captured at its first registration.
_numpy: dict[str, tuple[Any, Any, bool]] = {}


def missing() -> list[str]:
    """The packages of `NEEDS` that cannot be found (found without importing them: numba
    takes ~0.6 s)."""
    return [name for name in NEEDS if importlib.util.find_spec(name) is None]


def fast_installed() -> bool:
    """Whether the numba set can run: every package of `NEEDS` installed."""
    return not missing()


def _check(kernel_set: Any, where: str) -> str:
    if kernel_set not in KERNEL_SETS:
        raise ValueError(f"{where}: the kernel set must be one of {list(KERNEL_SETS)}. "
                         f"Received: {kernel_set!r}")
    absent = missing() if kernel_set == "numba" else []
    if absent:
        raise ImportError(f"{where}: the numba kernel set was asked for but "
                          f"{', '.join(absent)} {'is' if len(absent) == 1 else 'are'} not "
                          f"installed; install {_INSTALL_HINT}, or use {ENV_VAR}=numpy")
    return kernel_set


def requested() -> str:
    """The kernel set ``EAGERFLOW_KERNELS`` asks for (``auto``: numba when the ``fast``
    extra is installed)."""
    value = os.environ.get(ENV_VAR, "auto").strip().lower()
    if value in ("", "auto"):
        return "numba" if fast_installed() else "numpy"
    return _check(value, f"environment variable {ENV_VAR}")


def active() -> str:
    """The active kernel set, chosen from the environment on first use."""
    if _state["active"] is None:
        _state["active"] = requested()
    return _state["active"]


def set_active(kernel_set: str) -> None:
    """Makes `kernel_set` the active set and installs its kernels in every registered op."""
    _state["active"] = _check(kernel_set, "set_kernel_set")
    for name in _kernels:
        _install(name)


def _resolve(spec: Any) -> Callable:
    if callable(spec):
        return spec
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:  # numba installed but broken: say so, never fall back
        raise ImportError(f"the {active()} kernel {spec} could not be loaded ({e}); set "
                          f"{ENV_VAR}=numpy to run the NumPy kernels") from e
    return getattr(module, attr)


def _lazy(op: dispatch.Op, spec: Any, like: Callable) -> Callable:
    """A forward that loads `spec` on its first call and then puts it in the op.

    It carries the signature of `like` (the NumPy forward, which a kernel takes by
    contract) before the kernel loads: a graph compiled before the op first ran reads
    it (whether the forward writes into an ``out`` buffer of the memory plan).
    """
    resolved: list[Callable] = []

    def forward(*args, **kwargs):
        if not resolved:
            resolved.append(_resolve(spec))
            if op.forward is forward:
                op.forward = resolved[0]
        return resolved[0](*args, **kwargs)

    forward.__name__ = forward.__qualname__ = f"{op.name}_kernel"
    try:
        forward.__signature__ = inspect.signature(like)  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # (a builtin without a signature)
        pass
    return forward


def _install(name: str) -> None:
    op = dispatch.OPS[name]
    forward, op.grad, op.grad_needs = _numpy[name]
    entry = _kernels[name]
    if active() == "numba":
        if entry["grad"] is not None:
            op.gradient(_resolve(entry["grad"]))
        if entry["forward"] is not None:
            forward = _lazy(op, entry["forward"], forward)
    op.forward = forward


def register(op_name: str, forward: Any = None, grad: Any = None) -> None:
    """Registers the numba kernel of the op named `op_name`.

    Args:
        op_name: the CamelCase name of an op already declared with `primitive`.
        forward: the kernel forward, as a callable or ``"module:function"`` (imported on
            the op's first call, so that numba loads only when a kernel runs). It takes
            the op forward's arguments and returns what the NumPy forward returns.
        grad: a gradient rule replacing the op's own while the numba set is active (a
            callable or ``"module:function"``, imported at registration: such a module
            must not import numba at its top).

    Raises:
        KeyError: when no op is named `op_name`.
        ValueError: when neither `forward` nor `grad` is given, or when a differentiable
            op has no gradient rule yet (its rule must exist to be restored when the set
            changes: register after the op's ``@gradient``).

    Examples:
        >>> import numpy as np
        >>> from eagerflow.core import dispatch
        >>> from eagerflow.ops.kernels import kernel_sets
        >>> @dispatch.primitive("KernelDemoTwice", differentiable=False)
        ... def _twice(x):
        ...     return x + x
        >>> kernel_sets.register("KernelDemoTwice", forward=lambda x: 2 * x)
        >>> kernel_sets.kernel_forward("KernelDemoTwice")(np.ones(2))
        array([2., 2.])

    """
    if op_name not in dispatch.OPS:
        raise KeyError(f"register: no op is named {op_name!r}; declare it with "
                       "dispatch.primitive first")
    if forward is None and grad is None:
        raise ValueError(f"register: give a forward and/or a grad for {op_name!r}")
    op = dispatch.OPS[op_name]
    if op.differentiable and op.grad is None and op_name not in _numpy:
        # The op's own rule is captured here and put back when the set changes: one
        # declared later would be lost at the next `set_kernel_set`.
        raise ValueError(f"register: op {op_name!r} has no gradient rule yet; register its "
                         "kernels after the op's @gradient")
    _numpy.setdefault(op_name, (op.forward, op.grad, op.grad_needs))
    _kernels[op_name] = {"forward": forward, "grad": grad}
    _install(op_name)


def unregister(op_name: str) -> None:
    """Removes the kernels of the op named `op_name` and puts its own forward and gradient
    rule back (a no-op for an op without kernels).

    Examples:
        >>> from eagerflow.ops.kernels import kernel_sets
        >>> kernel_sets.unregister("AddV2")  # it has none: nothing changes
    """
    if _kernels.pop(op_name, None) is not None:
        op = dispatch.OPS[op_name]
        op.forward, op.grad, op.grad_needs = _numpy.pop(op_name)


def registered() -> dict[str, tuple[str, ...]]:
    """``{op name: ("forward", "grad") parts}`` of every registered kernel."""
    return {name: tuple(part for part in ("forward", "grad") if entry[part] is not None)
            for name, entry in sorted(_kernels.items())}


def numpy_forward(op_name: str) -> Callable:
    """The op's own NumPy forward, whatever the active kernel set."""
    entry = _numpy.get(op_name)
    return entry[0] if entry else dispatch.OPS[op_name].forward


def kernel_forward(op_name: str) -> Callable:
    """The registered kernel forward of the op (loading it), whatever the active set.

    Raises:
        KeyError: when the op has no kernel forward.
    """
    spec = _kernels.get(op_name, {}).get("forward")
    if spec is None:
        raise KeyError(f"kernel_forward: the op {op_name!r} has no registered kernel forward; "
                       f"registered: {sorted(registered())}")
    return _resolve(spec)

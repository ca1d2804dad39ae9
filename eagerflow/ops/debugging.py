"""Numeric checks (`ef.debugging`): find the op that first produced a NaN or an infinity.

`check_numerics` is an op (`CheckNumerics`, its gradient checks the gradient too); the
switches turn on the engine's per-op check (`core/dispatch.py`, and the compiled graphs'
in `graph/executor.py`) through `context.flags.check_numerics`.

Examples:
    >>> import eagerflow as ef
    >>> ef.debugging.enable_check_numerics()
    >>> try:
    ...     ef.log(ef.constant([-1.0]))
    ... except ef.errors.InvalidArgumentError as e:
    ...     print(e)
    check_numerics: output 0 of Log (shape (1,)) has NaN values, first at index (0,) [Op:Log]
    >>> ef.debugging.disable_check_numerics()
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import context, errors, forwardprop, tensor
from eagerflow.core.dispatch import execute, primitive

__all__ = ["check_numerics", "disable_check_numerics", "enable_check_numerics"]


@primitive("CheckNumerics", pure=False)
def _check_numerics(x, message):
    if x.dtype.kind in "fc" and not np.isfinite(x).all():
        kind = "NaN" if np.isnan(x).any() else "Inf"
        raise errors.InvalidArgumentError(f"{message} : Tensor had {kind} values")
    return x


_check_numerics.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_check_numerics.gradient
def _check_numerics_grad(dy, out, x, message):
    return check_numerics(dy, f"Not a number (NaN) or infinity (Inf) values detected in "
                              f"gradient. {message}")


def check_numerics(tensor: np.typing.ArrayLike, message: str,
                   name: str | None = None) -> tensor.Tensor:
    """Returns `tensor` unchanged, or raises if it holds a NaN or an infinity.

    Raises:
        InvalidArgumentError: naming `message` and whether NaN or Inf was found.

    Examples:
        >>> import eagerflow as ef
        >>> ef.debugging.check_numerics(ef.constant([1.0]), "weights")
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """
    return execute(_check_numerics, (tensor,), {"message": str(message)})


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Checks the output of every op from now on; the first NaN/Inf raises, naming the op."""
    context.flags.check_numerics = True
    context.update_flags()


def disable_check_numerics() -> None:
    """Turns off the per-op checks of `enable_check_numerics`."""
    context.flags.check_numerics = False
    context.update_flags()

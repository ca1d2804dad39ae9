"""Forward-mode autodiff (`ef.autodiff`), as TensorFlow's `tf.autodiff`.

`ForwardAccumulator` computes Jacobian-vector products while ops run; `jvp` and
`hessian_vector_product` are functional conveniences built on it (the engine is in
`eagerflow/core/forwardprop.py`).

Examples:
    >>> import eagerflow as ef
    >>> ef.jvp(ef.sin, [ef.constant(0.0)], [ef.constant(2.0)])
    (ef.Tensor(0.0, shape=(), dtype=float32), ef.Tensor(2.0, shape=(), dtype=float32))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from eagerflow.core import tape as tape_lib
from eagerflow.core.forwardprop import ForwardAccumulator


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        unconnected_gradients: str = "none") -> tuple[Any, Any]:
    """Calls ``f(*primals)`` and returns ``(outputs, jvps)``: the outputs and their
    directional derivatives along `tangents` (one per primal), as JAX's ``jax.jvp``.

    Args:
        f: a function of tensors returning a tensor or a structure of tensors.
        primals: the arguments of `f` (tensors or variables).
        tangents: one tangent per primal, of the same shape.
        unconnected_gradients: ``"none"`` or ``"zero"``, for outputs that do not depend
            on the primals (see `ForwardAccumulator.jvp`).

    Returns:
        ``(outputs, jvps)``, `jvps` in the structure of `outputs`.

    Examples:
        >>> import eagerflow as ef
        >>> out, tangent = ef.jvp(lambda x, y: x * y, [ef.constant(3.0), ef.constant(4.0)],
        ...                       [ef.constant(1.0), ef.constant(0.0)])
        >>> float(out), float(tangent)
        (12.0, 4.0)
    """
    primals, tangents = list(primals), list(tangents)
    with ForwardAccumulator(primals, tangents) as accumulator:
        outputs = f(*primals)
    return outputs, accumulator.jvp(outputs, unconnected_gradients=unconnected_gradients)


def hessian_vector_product(f: Callable[..., Any], primals: Sequence[Any],
                           vector: Sequence[Any]) -> list[Any]:
    """The product of the Hessian of the scalar ``f(*primals)`` with `vector`.

    Computed forward-over-reverse (a `ForwardAccumulator` around a `GradientTape`), so it
    costs about one gradient evaluation, never the full Hessian.

    Args:
        f: a function of tensors returning a scalar (a non-scalar result is summed).
        primals: the arguments of `f`.
        vector: one tensor per primal, of the same shape.

    Returns:
        A list with one tensor per primal: ``sum_j H[i, j] @ vector[j]`` (None for a
        primal `f` does not depend on).

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant([1.0, 2.0])
        >>> ef.hessian_vector_product(lambda x: ef.reduce_sum(x ** 3), [x],
        ...                           [ef.constant([1.0, 1.0])])
        [ef.Tensor([ 6. 12.], shape=(2,), dtype=float32)]
    """
    primals, vector = list(primals), list(vector)
    with ForwardAccumulator(primals, vector) as accumulator:
        with tape_lib.GradientTape() as tape:
            tape.watch(primals)
            value = f(*primals)
        grads = tape.gradient(value, primals)
    # A gradient that does not depend on the primals (f linear in them) has zero tangent.
    return [None if g is None else accumulator.jvp(g, unconnected_gradients="zero")
            for g in grads]


__all__ = ["ForwardAccumulator", "hessian_vector_product", "jvp"]

"""`DistributedOptimizer`: gradients averaged over the ranks before every update.

Examples:
    >>> import eagerflow as ef
    >>> opt = ef.distribute.DistributedOptimizer(ef.optim.SGD(0.1))
    >>> w = ef.Variable([1.0])
    >>> _ = opt.apply_gradients([(ef.constant([1.0]), w)])   # one rank: the mean is itself
    >>> w.numpy()
    array([0.9], dtype=float32)
"""

from __future__ import annotations

from typing import Any

from eagerflow.models import strategy as strategy_lib
from eagerflow.optim import optimizer as optimizer_lib


def DistributedOptimizer(optimizer: Any,
                         strategy: Any = None) -> Any:  # noqa: N802 - Horovod's name
    """Makes `optimizer` average its gradients over the ranks in every update.

    ``apply_gradients`` (and so ``minimize``) first replaces each gradient by its mean
    over the ranks, with one fused allreduce per step (all gradients packed into one
    contiguous buffer per dtype), eagerly or inside `ef.function` (where the allreduce is
    a graph op run on every call). The update (clipping, weight decay, the rule) then runs
    on identical gradients on every rank, so replicas that start equal stay bitwise
    identical. An optimizer made under ``strategy.scope()`` already does this, and `fit`
    makes the model's own optimizer do it: this is for one made outside the scope.

    The optimizer is changed in place and returned (its slots, checkpoints and config are
    those of the optimizer). Every rank must call it at the same steps with the same
    variables. Its slots, created later, start from rank 0's values.

    Args:
        optimizer: an `ef.optim.Optimizer`.
        strategy: an `ef.distribute.Strategy` (default: the one the optimizer was made
            under, the current one, or a new `MPIStrategy()`).

    Returns:
        `optimizer`.

    Raises:
        TypeError: if `optimizer` is not an `ef.optim.Optimizer`, or `strategy` not a
            `Strategy`.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable(2.0)
        >>> opt = ef.distribute.DistributedOptimizer(ef.optim.SGD(0.5))
        >>> _ = opt.minimize(lambda: w * w, [w])
        >>> float(w)
        0.0
    """
    if not isinstance(optimizer, optimizer_lib.Optimizer):
        raise TypeError("DistributedOptimizer: expected an ef.optim.Optimizer. Received: "
                        f"{type(optimizer).__name__} {optimizer!r}")
    if strategy is None:
        strategy = strategy_lib.of(optimizer) or strategy_lib.current()
    if strategy is None:
        from eagerflow.distribute import mpi_strategy

        strategy = mpi_strategy.MPIStrategy()
    if not isinstance(strategy, strategy_lib.Strategy):
        raise TypeError("DistributedOptimizer: strategy must be an ef.distribute.Strategy. "
                        f"Received: {type(strategy).__name__} {strategy!r}")
    with strategy.scope():  # its slots, made later, start equal everywhere
        strategy_lib.object_created(optimizer)
    optimizer.gradient_reducer = strategy.reduce_gradients  # the declared hook
    return optimizer

"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter), as in Keras 3.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> opt = ef.optim.AdamW(learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt.apply_gradients([(ef.constant(0.0), w)])
    >>> round(float(w), 4)
    0.95
"""

from __future__ import annotations

from typing import Any

from eagerflow.optim import adam
from eagerflow.saving import registry


class AdamW(adam.Adam):
    """Adam whose weight decay is applied to the weights, not added to the gradient.

    Each step first shrinks the weights, ``w -= w * weight_decay * learning_rate``, then
    applies the `Adam` update with the (undecayed) gradient. Exclude biases and
    normalization scales with `exclude_from_weight_decay`.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        weight_decay: the decay rate (a float, required; default 0.004).
        beta_1, beta_2, epsilon, amsgrad: as in `Adam`.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `name`.

    Raises:
        ValueError: if `weight_decay` is None or negative.

    Examples:
        >>> import eagerflow as ef
        >>> opt = ef.optim.AdamW(weight_decay=0.01)
        >>> float(opt.weight_decay)
        0.0100
    """

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, **kwargs: Any) -> None:
        if weight_decay is None:
            raise ValueError(
                "AdamW: `weight_decay` must be a float. Received: weight_decay=None"
            )
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay, **kwargs)


registry.register("optimizer", AdamW)

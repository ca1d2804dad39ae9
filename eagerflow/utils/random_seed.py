"""`set_random_seed` (Keras's ``keras.utils.set_random_seed``): one seed for Python, NumPy
and eagerflow.

Examples:
    >>> import random, eagerflow as ef
    >>> ef.utils.set_random_seed(7)
    >>> a = (random.random(), float(ef.random.uniform([])))
    >>> ef.utils.set_random_seed(7)
    >>> a == (random.random(), float(ef.random.uniform([])))
    True
"""

import operator
import random

import numpy as np

from eagerflow.ops import random as random_ops


def set_random_seed(seed: int) -> None:
    """Seeds Python's `random`, NumPy's global generator and eagerflow's global seed
    (`ef.random.set_seed`), so that a program repeats from here on.

    Args:
        seed: a non-negative int.

    Raises:
        ValueError: if `seed` is not an int (a float, a string, None) or is negative.
    """
    try:
        seed = operator.index(seed)
    except TypeError:
        raise ValueError("Expected `seed` argument to be an integer. Received: "
                         f"seed={seed} (of type {type(seed)})") from None
    if seed < 0:
        raise ValueError(f"Expected `seed` argument to be a non-negative integer. Received: "
                         f"seed={seed}")
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)

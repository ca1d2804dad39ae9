"""Seeded random ops (`ef.random`); see `eagerflow.core.random`."""

from eagerflow.core.random import (
    Generator,
    categorical,
    get_global_generator,
    get_global_seed,
    get_state,
    normal,
    set_global_generator,
    set_seed,
    set_state,
    shuffle,
    truncated_normal,
    uniform,
)

__all__ = [
    "Generator", "categorical", "get_global_generator", "get_global_seed", "get_state", "normal",
    "set_global_generator", "set_seed", "set_state", "shuffle", "truncated_normal", "uniform",
]

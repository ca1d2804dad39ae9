"""Numeric debugging (`ef.debugging`); see `eagerflow.core.debugging`."""

from eagerflow.core.debugging import check_numerics, disable_check_numerics, enable_check_numerics

__all__ = ["check_numerics", "disable_check_numerics", "enable_check_numerics"]

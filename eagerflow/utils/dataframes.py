"""pandas objects, recognised without importing pandas (it is not a dependency of eagerflow).

Examples:
    >>> import numpy as np
    >>> from eagerflow.utils import dataframes
    >>> dataframes.is_pandas(np.zeros(3))
    False
"""

from __future__ import annotations

import sys


def is_pandas(value: object) -> bool:
    """Whether `value` is a pandas ``Series`` or ``DataFrame`` (always False while pandas
    has not been imported: then no such object can exist)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, (pandas.Series, pandas.DataFrame))

"""Utilities (`ef.utils`).

Example:
    >>> import eagerflow as ef
    >>> callable(ef.utils.plot_history)
    True
"""

from eagerflow.utils.categorical import to_categorical
from eagerflow.utils.plotting import plot_history
from eagerflow.utils.py_dataset import PyDataset, Sequence

__all__ = ["PyDataset", "Sequence", "plot_history", "to_categorical"]

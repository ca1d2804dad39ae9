"""Utilities (`ef.utils`).

Examples:
    >>> import eagerflow as ef
    >>> callable(ef.utils.plot_history)
    True
"""

from eagerflow.utils.categorical import to_categorical
from eagerflow.utils.image_utils import array_to_img, img_to_array, load_img, save_img
from eagerflow.utils.model_plot import plot_model
from eagerflow.utils.plotting import plot_history
from eagerflow.utils.py_dataset import PyDataset, Sequence
from eagerflow.utils.sequences import pad_sequences

__all__ = [
    "PyDataset", "Sequence", "array_to_img", "img_to_array", "load_img", "plot_history",
    "pad_sequences", "plot_model", "save_img", "to_categorical",
]

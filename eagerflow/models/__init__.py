"""Models (`ef.models`): subclassed, functional and Sequential models.

Examples:
    >>> import eagerflow as ef
    >>> model = ef.models.Sequential([ef.layers.Dense(2, input_shape=(3,))])
    >>> model(ef.ones([1, 3])).shape
    (1, 2)
"""

from eagerflow import absent as _absent
from eagerflow.models.cloning import clone_model
from eagerflow.models.functional import Functional
from eagerflow.models.model import Model, model_from_config, model_from_json
from eagerflow.models.sequential import Sequential
from eagerflow.models.save_load import load_model, save_model

__all__ = ["Functional", "Model", "Sequential", "clone_model", "load_model",
           "model_from_config", "model_from_json", "save_model"]


__getattr__ = _absent.namespace_getattr(__name__, "keras.models")

"""Optimizers (`ef.optim`): SGD, Adam, AdamW, Nadam, Adamax, RMSprop, Adagrad, Adadelta, Lion,
Adafactor, Ftrl, and learning-rate schedules.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([1.0, -1.0])
    >>> opt = ef.optim.Adam(learning_rate=0.1)
    >>> for _ in range(50):
    ...     loss = opt.minimize(lambda: ef.reduce_sum(w * w))
    >>> bool(float(loss) < 0.05)
    True
"""

from eagerflow import absent as _absent
from eagerflow.optim import schedules
from eagerflow.optim.adadelta import Adadelta
from eagerflow.optim.adafactor import Adafactor
from eagerflow.optim.adagrad import Adagrad
from eagerflow.optim.adam import Adam
from eagerflow.optim.adamax import Adamax
from eagerflow.optim.adamw import AdamW
from eagerflow.optim.ftrl import Ftrl
from eagerflow.optim.global_step import get_global_step, get_or_create_global_step
from eagerflow.optim.hyperparameters import Hyperparameter
from eagerflow.optim.lamb import Lamb
from eagerflow.optim.lion import Lion
from eagerflow.optim.nadam import Nadam
from eagerflow.optim.optimizer import Optimizer
from eagerflow.optim.rmsprop import RMSprop
from eagerflow.optim.serialization import deserialize, get, serialize
from eagerflow.optim.sgd import SGD, GradientDescent

__all__ = [
    "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl",
    "GradientDescent", "Hyperparameter", "Lamb", "Lion", "Nadam", "Optimizer", "RMSprop",
    "deserialize", "get", "get_global_step", "get_or_create_global_step", "schedules", "serialize",
]


__getattr__ = _absent.namespace_getattr(__name__, "keras.optimizers")

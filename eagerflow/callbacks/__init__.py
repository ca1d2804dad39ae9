"""Callbacks (`ef.callbacks`): code that `fit`, `evaluate` and `predict` call at each stage.

Examples:
    >>> import eagerflow as ef
    >>> callbacks = [
    ...     ef.callbacks.EarlyStopping(monitor="val_loss", patience=2,
    ...                                restore_best_weights=True),
    ...     ef.callbacks.CSVLogger("training.csv"),
    ... ]
"""

from eagerflow import absent as _absent
from eagerflow.callbacks.backup_and_restore import BackupAndRestore
from eagerflow.callbacks.base import Callback
from eagerflow.callbacks.callback_list import CallbackList
from eagerflow.callbacks.csv_logger import CSVLogger
from eagerflow.callbacks.early_stopping import EarlyStopping
from eagerflow.callbacks.history import History
from eagerflow.callbacks.lambda_callback import LambdaCallback
from eagerflow.callbacks.learning_rate import LearningRateScheduler, ReduceLROnPlateau
from eagerflow.callbacks.model_checkpoint import ModelCheckpoint
from eagerflow.callbacks.monitor import MissingMonitorError
from eagerflow.callbacks.progbar import ProgbarLogger
from eagerflow.callbacks.tensorboard import TensorBoard
from eagerflow.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "MissingMonitorError",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]


__getattr__ = _absent.namespace_getattr(__name__, "keras.callbacks")

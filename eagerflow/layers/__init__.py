"""Layers (`ef.layers`): the Layer base class, `Input`, and the built-in layers.

Example:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(4, activation="relu")
    >>> layer(ef.ones([2, 3])).shape
    (2, 4)
"""

from eagerflow.layers import activations, constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.core import Activation, Dense, Lambda
from eagerflow.layers.embedding import Embedding
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.merging import Add, Concatenate, Multiply
from eagerflow.layers.reshaping import Flatten, Reshape
from eagerflow.layers.serialization import deserialize, serialize
from eagerflow.layers.symbolic import Input, InputLayer, SymbolicTensor

__all__ = [
    "Activation", "Add", "Concatenate", "Dense", "Embedding", "Flatten", "Input", "InputLayer",
    "InputSpec", "Lambda", "Layer", "Multiply", "Reshape", "SymbolicTensor", "activations",
    "constraints", "deserialize", "initializers", "regularizers", "serialize",
]

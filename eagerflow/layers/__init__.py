"""Layers (`ef.layers`): the Layer base class, `Input`, and the built-in layers.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(4, activation="relu")
    >>> layer(ef.ones([2, 3])).shape
    (2, 4)
"""

from eagerflow import absent as _absent
from eagerflow.layers import activations, constraints, initializers, regularizers
from eagerflow.layers.advanced_activations import ELU, LeakyReLU, PReLU, ReLU, Softmax
from eagerflow.layers.attention import AdditiveAttention, Attention
from eagerflow.layers.augmentation import (
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from eagerflow.layers.base import Layer, deserialize, serialize
from eagerflow.layers.bidirectional import Bidirectional
from eagerflow.layers.category_encoding import CategoryEncoding
from eagerflow.layers.color_augmentation import RandomBrightness, RandomContrast, RandomGrayscale
from eagerflow.layers.convolutional import (
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
)
from eagerflow.layers.core import Activation, Dense, Lambda, Masking
from eagerflow.layers.discretization import Discretization
from eagerflow.layers.dropout import (
    ActivityRegularization,
    AlphaDropout,
    Dropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from eagerflow.layers.einsum_dense import EinsumDense
from eagerflow.layers.embedding import Embedding
from eagerflow.layers.grouped_query_attention import GroupQueryAttention
from eagerflow.layers.hashing import Hashing
from eagerflow.layers.image_preprocessing import CenterCrop, Resizing
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.lookup import IntegerLookup, StringLookup
from eagerflow.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from eagerflow.layers.multi_head_attention import MultiHeadAttention
from eagerflow.layers.normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from eagerflow.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from eagerflow.layers.preprocessing import Normalization, Rescaling
from eagerflow.layers.preprocessing_pipeline import Pipeline
from eagerflow.layers.reshaping import Flatten, Identity, Permute, RepeatVector, Reshape
from eagerflow.layers.rnn import GRU, LSTM, RNN, SimpleRNN
from eagerflow.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from eagerflow.layers.separable import (
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from eagerflow.layers.spatial import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from eagerflow.layers.symbolic import Input, InputLayer, SymbolicTensor
from eagerflow.layers.text_vectorization import TextVectorization
from eagerflow.layers.time_distributed import TimeDistributed

# Keras's other names for the same classes.
MaxPool1D, MaxPool2D = MaxPooling1D, MaxPooling2D
AvgPool1D, AvgPool2D = AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution2DTranspose, SeparableConvolution2D = Conv2DTranspose, SeparableConv2D
Convolution1DTranspose, SeparableConvolution1D = Conv1DTranspose, SeparableConv1D

__all__ = [
    "GRU", "LSTM", "RNN", "Activation", "Add", "AveragePooling2D", "BatchNormalization",
    "Bidirectional", "Concatenate", "Conv1D", "Conv2D", "Conv2DTranspose", "Dense", "Dropout",
    "Embedding", "Flatten", "GRUCell", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Input",
    "InputLayer", "InputSpec", "LSTMCell", "Lambda", "Layer", "LayerNormalization",
    "MaxPooling2D", "Multiply", "Reshape", "SimpleRNN", "SimpleRNNCell", "SymbolicTensor",
    "activations", "constraints", "deserialize", "initializers", "regularizers", "serialize",
    "Subtract", "Average", "Maximum", "Minimum", "add", "subtract", "multiply", "average",
    "maximum", "minimum", "concatenate", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax",
    "GaussianNoise", "GaussianDropout", "RepeatVector", "Permute", "Identity",
    "UnitNormalization", "GlobalAveragePooling1D", "GlobalMaxPooling1D", "Cropping1D",
    "Cropping2D", "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D",
    "Masking", "SpatialDropout1D", "SpatialDropout2D", "MaxPooling1D", "AveragePooling1D",
    "Dot", "dot", "TimeDistributed", "GroupNormalization", "Rescaling", "Normalization",
    "Resizing", "CenterCrop", "RandomFlip", "RandomCrop", "RandomRotation", "RandomZoom",
    "RandomTranslation",
    "Attention", "AdditiveAttention", "MultiHeadAttention", "DepthwiseConv2D",
    "SeparableConv2D", "Conv3D",
    "MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "GlobalMaxPool1D", "GlobalMaxPool2D", "MaxPool3D", "AvgPool3D", "GlobalAvgPool3D",
    "GlobalMaxPool3D", "MaxPooling3D", "AveragePooling3D", "GlobalAveragePooling3D",
    "GlobalMaxPooling3D", "Cropping3D", "UpSampling3D", "ZeroPadding3D", "SpatialDropout3D",
    "Convolution1D", "Convolution2D", "Convolution3D",
    "Convolution2DTranspose", "SeparableConvolution2D",
    "CategoryEncoding", "RMSNormalization", "ActivityRegularization", "AlphaDropout",
    "Conv1DTranspose", "Convolution1DTranspose", "DepthwiseConv1D", "SeparableConv1D",
    "SeparableConvolution1D", "StringLookup", "IntegerLookup", "TextVectorization",
    "Hashing", "Discretization", "EinsumDense", "RandomBrightness", "RandomContrast",
    "RandomGrayscale", "StackedRNNCells", "GroupQueryAttention", "Pipeline",
]


__getattr__ = _absent.namespace_getattr(__name__, "keras.layers")

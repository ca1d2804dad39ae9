"""Default names from class names: one rule (Keras 3's), for layers, models, optimizers,
losses, metrics and ef.Module alike. Expected names recorded from Keras 3.15 / TF 2.21."""

import pytest

import eagerflow as ef
from eagerflow.core import trackable
from eagerflow.utils import naming


@pytest.mark.parametrize("name, expected", [
    ("GlobalAveragePooling2D", "global_average_pooling2d"),
    ("MNISTModel", "mnist_model"),
    ("GRU", "gru"),
    ("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy"),
    ("TopKCategoricalAccuracy", "top_k_categorical_accuracy"),
    ("AUC", "auc"),
    ("Conv2DTranspose", "conv2d_transpose"),
    # keras.src.utils.naming.to_snake_case gives these:
    ("RMSprop", "rm_sprop"),
    ("AdamW", "adam_w"),
    ("ReLU", "re_lu"),
    ("MeanIoU", "mean_io_u"),
    ("HTTPServer2D", "http_server2d"),
    ("KLDivergence", "kl_divergence"),
])
def test_snake_case(name, expected):
    assert naming.snake_case(name) == expected


def test_one_rule_for_every_default_name():
    assert naming.snake_case is trackable.snake_case

    class MNISTModel(ef.Model):
        def call(self, x):
            return x

    class MNISTModule(ef.Module):
        pass

    # keras.Model subclass MNISTModel().name, tf.Module subclass MNISTModule().name,
    # keras.optimizers.RMSprop().name, keras.optimizers.AdamW().name.
    assert MNISTModel().name.startswith("mnist_model")
    assert MNISTModule().name == "mnist_module"
    assert ef.optim.RMSprop().name == "rm_sprop"
    assert ef.optim.AdamW().name == "adam_w"

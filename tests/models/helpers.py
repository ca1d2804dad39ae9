"""Small models and data for the training tests."""

import numpy as np

import eagerflow as ef


def classification_data(n=64, features=4, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features)).astype(np.float32)
    y = (np.argmax(x[:, :classes], axis=1)).astype(np.int64)
    return x, y


def mlp(classes=3, features=4, hidden=8):
    return ef.Sequential([ef.layers.Dense(hidden, activation="relu", input_shape=(features,),
                                          name="hidden"),
                          ef.layers.Dense(classes, name="logits")])


def compiled_mlp(metrics=("accuracy",), optimizer=None, **kwargs):
    model = mlp()
    model.compile(optimizer=optimizer or ef.optim.SGD(0.1),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=list(metrics), **kwargs)
    return model


def weights_of(model):
    return [v.numpy().copy() for v in model.weights]

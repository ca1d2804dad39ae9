"""Seed-style training loops (plain Variables; no layers) converge."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.optim import global_step


def _linear_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = x @ np.array([[2.0], [-3.0], [0.5]], np.float32) + 1.0
    return ef.constant(x), ef.constant(y)


class LinearModel:
    def __init__(self):
        self.w = ef.Variable(np.zeros((3, 1), np.float32), name="w")
        self.b = ef.Variable(np.zeros((1,), np.float32), name="b")
        self.variables = [self.w, self.b]

    def __call__(self, x):
        return ef.matmul(x, self.w) + self.b


def loss(model, x, y):
    return ef.reduce_mean(ef.square(model(x) - y))


@pytest.mark.parametrize("make", [
    lambda: ef.optim.SGD(0.1),
    lambda: ef.optim.SGD(0.05, momentum=0.9, nesterov=True),
    lambda: ef.optim.Adam(0.1),
    lambda: ef.optim.AdamW(0.1, weight_decay=1e-4),
    lambda: ef.optim.RMSprop(0.02),
    lambda: ef.optim.Adagrad(0.5),
])
def test_minimize_lambda_converges_on_linear_regression(make):
    x, y = _linear_data()
    model = LinearModel()
    optimizer = make()
    for _ in range(300):
        optimizer.minimize(lambda: loss(model, x, y))
    assert float(loss(model, x, y)) < 1e-3
    np.testing.assert_allclose(model.w.numpy().ravel(), [2.0, -3.0, 0.5], atol=0.05)


def test_apply_gradients_with_global_step_converges_on_logistic_regression():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((200, 2)).astype(np.float32)
    labels = (x[:, 0] - 2.0 * x[:, 1] > 0.0).astype(np.float32)[:, None]
    x, labels = ef.constant(x), ef.constant(labels)
    w = ef.Variable(np.zeros((2, 1), np.float32))
    b = ef.Variable(0.0)
    variables = [w, b]
    step = global_step.get_or_create_global_step()
    start = int(step)
    optimizer = ef.optim.Adam(0.1)

    def cross_entropy():
        logits = ef.matmul(x, w) + b
        # stable sigmoid cross-entropy: max(z, 0) - z * y + log(1 + exp(-|z|))
        terms = ef.maximum(logits, 0.0) - logits * labels + ef.log1p(ef.exp(-ef.abs(logits)))
        return ef.reduce_mean(terms)

    for _ in range(200):
        with ef.GradientTape() as tape:
            value = cross_entropy()
        grads = tape.gradient(value, variables)
        optimizer.apply_gradients(zip(grads, variables, strict=True), global_step=step)
    accuracy = np.mean(((ef.matmul(x, w) + b).numpy() > 0) == (labels.numpy() > 0.5))
    assert float(cross_entropy()) < 0.1 and accuracy > 0.97
    assert int(step) - start == 200 and int(optimizer.iterations) == 200

"""NumPy transcriptions of Keras 3's optimizer update rules (keras/src/optimizers/*.py).

Every quantity is float32, as in Keras (which casts hyperparameters and the learning rate
to the variable's dtype), and the operations follow Keras's order. `run(rule, w, grads)`
applies a rule for several steps and returns the final weights.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32


def run(step_fn, weights, grads, **kwargs):
    w = np.array(weights, dtype=np.float32)
    state: dict = {}
    for iteration, g in enumerate(grads):
        w = step_fn(w, np.asarray(g, np.float32), state, iteration, **kwargs)
    return w, state


def sgd(w, g, state, iteration, lr=0.01, momentum=0.0, nesterov=False):
    lr, momentum = f32(lr), f32(momentum)
    if momentum == 0:
        return w - g * lr
    m = state.setdefault("momentum", np.zeros_like(w))
    m[...] = m * momentum - g * lr
    if nesterov:
        return w + (m * momentum - g * lr)
    return w + m


def adam(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
         amsgrad=False):
    lr = f32(lr)
    local_step = f32(iteration + 1)
    beta_1_power = np.power(f32(beta_1), local_step)
    beta_2_power = np.power(f32(beta_2), local_step)
    m = state.setdefault("momentum", np.zeros_like(w))
    v = state.setdefault("velocity", np.zeros_like(w))
    alpha = lr * np.sqrt(f32(1) - beta_2_power) / (f32(1) - beta_1_power)
    m += (g - m) * f32(1 - beta_1)
    v += (np.square(g) - v) * f32(1 - beta_2)
    if amsgrad:
        v_hat = state.setdefault("velocity_hat", np.zeros_like(w))
        v_hat[...] = np.maximum(v_hat, v)
        v = v_hat
    return w - (m * alpha) / (np.sqrt(v) + f32(epsilon))


def rmsprop(w, g, state, iteration, lr=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
            centered=False):
    lr, rho = f32(lr), f32(rho)
    velocity = state.setdefault("velocity", np.zeros_like(w))
    velocity[...] = rho * velocity + (f32(1) - rho) * np.square(g)
    if centered:
        average = state.setdefault("average_gradient", np.zeros_like(w))
        average[...] = rho * average + (f32(1) - rho) * g
        denominator = velocity - np.square(average) + f32(epsilon)
    else:
        denominator = velocity + f32(epsilon)
    increment = lr * g / np.sqrt(denominator)
    if momentum > 0:
        mom = state.setdefault("momentum", np.zeros_like(w))
        mom[...] = f32(momentum) * mom + increment
        return w - mom
    return w - increment


def adagrad(w, g, state, iteration, lr=0.001, initial_accumulator_value=0.1, epsilon=1e-7):
    accumulator = state.setdefault(
        "accumulator", np.full_like(w, f32(initial_accumulator_value)))
    accumulator += np.square(g)
    return w - f32(lr) * g / np.sqrt(accumulator + f32(epsilon))


def with_weight_decay(rule, weight_decay):
    """Keras's `_apply_weight_decay` before the rule: ``w = w - w * wd * lr``."""
    def step(w, g, state, iteration, lr, **kwargs):
        w = w - w * f32(weight_decay) * f32(lr)
        return rule(w, g, state, iteration, lr=lr, **kwargs)
    return step

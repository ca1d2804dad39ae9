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


def nadam(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    lr, beta_1, beta_2 = f32(lr), f32(beta_1), f32(beta_2)
    local_step, next_step = f32(iteration + 1), f32(iteration + 2)
    decay = f32(0.96)
    u_t = beta_1 * (f32(1) - f32(0.5) * np.power(decay, local_step))
    u_t_1 = beta_1 * (f32(1) - f32(0.5) * np.power(decay, next_step))
    state["u_product"] = f32(state.get("u_product", f32(1)) * u_t)  # once per step
    u_product_t = state["u_product"]
    u_product_t_1 = u_product_t * u_t_1
    m = state.setdefault("momentum", np.zeros_like(w))
    v = state.setdefault("velocity", np.zeros_like(w))
    m += (g - m) * (f32(1) - beta_1)
    v += (np.square(g) - v) * (f32(1) - beta_2)
    m_hat = u_t_1 * m / (f32(1) - u_product_t_1) + (f32(1) - u_t) * g / (f32(1) - u_product_t)
    v_hat = v / (f32(1) - np.power(beta_2, local_step))
    return w - m_hat * lr / (np.sqrt(v_hat) + f32(epsilon))


def adamax(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    lr, beta_1, beta_2 = f32(lr), f32(beta_1), f32(beta_2)
    m = state.setdefault("momentum", np.zeros_like(w))
    u = state.setdefault("norm", np.zeros_like(w))
    m += (g - m) * (f32(1) - beta_1)
    u[...] = np.maximum(beta_2 * u, np.abs(g))
    return w - lr * m / ((f32(1) - np.power(beta_1, f32(iteration + 1))) * (u + f32(epsilon)))


def adadelta(w, g, state, iteration, lr=0.001, rho=0.95, epsilon=1e-7):
    lr, rho, epsilon = f32(lr), f32(rho), f32(epsilon)
    grads = state.setdefault("accumulated_grad", np.zeros_like(w))
    deltas = state.setdefault("accumulated_delta_var", np.zeros_like(w))
    grads[...] = rho * grads + (f32(1) - rho) * np.square(g)
    delta = -np.sqrt(deltas + epsilon) * g / np.sqrt(grads + epsilon)
    deltas[...] = rho * deltas + (f32(1) - rho) * np.square(delta)
    return w + lr * delta


def lion(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.99):
    lr, beta_1, beta_2 = f32(lr), f32(beta_1), f32(beta_2)
    m = state.setdefault("momentum", np.zeros_like(w))
    w = w - lr * np.sign(m * beta_1 + g * (f32(1) - beta_1))
    m[...] = m * beta_2 + g * (f32(1) - beta_2)
    return w


def with_weight_decay(rule, weight_decay):
    """Keras's `_apply_weight_decay` before the rule: ``w = w - w * wd * lr``."""
    def step(w, g, state, iteration, lr, **kwargs):
        w = w - w * f32(weight_decay) * f32(lr)
        return rule(w, g, state, iteration, lr=lr, **kwargs)
    return step

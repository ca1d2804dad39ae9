"""NumPy transcriptions of Keras 3's optimizer update rules (keras/src/optimizers/*.py).

Every quantity has the weights' dtype, as in Keras (which casts hyperparameters and the
learning rate to the variable's dtype), and the operations follow Keras's order.
`run(rule, w, grads)` applies a rule for several steps and returns the final weights.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32


def run(step_fn, weights, grads, dtype=np.float32, **kwargs):
    w = np.array(weights, dtype=dtype)
    state: dict = {}
    for iteration, g in enumerate(grads):
        w = step_fn(w, np.asarray(g, dtype), state, iteration, **kwargs)
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


# -- Keras 3 rules added for issue 17. These follow the dtype of `w` (Keras casts every
# hyperparameter to the variable's dtype), so the same transcription checks float64 runs
# tightly and float32 runs at float32 tolerance.
def nadam(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    c = w.dtype.type
    lr, beta_1, beta_2 = c(lr), c(beta_1), c(beta_2)
    t, t_next = c(iteration + 1), c(iteration + 2)
    u_t = beta_1 * (c(1) - c(0.5) * np.power(c(0.96), t))
    u_next = beta_1 * (c(1) - c(0.5) * np.power(c(0.96), t_next))
    # Keras updates the shared product once per step, before the variables.
    product = state["u_product"] = state.get("u_product", c(1)) * u_t
    m = state.setdefault("momentum", np.zeros_like(w))
    v = state.setdefault("velocity", np.zeros_like(w))
    m += (g - m) * (c(1) - beta_1)
    v += (np.square(g) - v) * (c(1) - beta_2)
    m_hat = u_next * m / (c(1) - product * u_next) + (c(1) - u_t) * g / (c(1) - product)
    v_hat = v / (c(1) - np.power(beta_2, t))
    return w - m_hat * lr / (np.sqrt(v_hat) + c(epsilon))


def adamax(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    c = w.dtype.type
    lr, beta_1, beta_2 = c(lr), c(beta_1), c(beta_2)
    m = state.setdefault("momentum", np.zeros_like(w))
    u = state.setdefault("norm", np.zeros_like(w))
    m += (g - m) * (c(1) - beta_1)
    u[...] = np.maximum(beta_2 * u, np.abs(g))
    return w - lr * m / ((c(1) - np.power(beta_1, c(iteration + 1))) * (u + c(epsilon)))


def adadelta(w, g, state, iteration, lr=0.001, rho=0.95, epsilon=1e-7):
    c = w.dtype.type
    lr, rho, epsilon = c(lr), c(rho), c(epsilon)
    grads = state.setdefault("accumulated_grad", np.zeros_like(w))
    deltas = state.setdefault("accumulated_delta_var", np.zeros_like(w))
    grads[...] = rho * grads + (c(1) - rho) * np.square(g)
    delta = -np.sqrt(deltas + epsilon) * g / np.sqrt(grads + epsilon)
    deltas[...] = rho * deltas + (c(1) - rho) * np.square(delta)
    return w + lr * delta


def lion(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.99):
    c = w.dtype.type
    lr, beta_1, beta_2 = c(lr), c(beta_1), c(beta_2)
    m = state.setdefault("momentum", np.zeros_like(w))
    w = w - lr * np.sign(m * beta_1 + g * (c(1) - beta_1))
    m[...] = m * beta_2 + g * (c(1) - beta_2)
    return w


def adafactor(w, g, state, iteration, lr=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
              epsilon_2=1e-3, clip_threshold=1.0, relative_step=True):
    c = w.dtype.type

    def rms(x):
        return np.sqrt(np.mean(np.square(x)))

    t = c(iteration + 1)
    lr = c(lr)
    if relative_step:
        lr = min(lr, c(1) / np.sqrt(t))
    rho_t = min(lr, c(1) / np.sqrt(t))
    alpha_t = max(c(epsilon_2), rms(w)) * rho_t
    squared = np.square(g) + c(epsilon_1)
    beta_2_t = c(1) - np.power(t, c(beta_2_decay))
    v = state.setdefault("velocity", np.zeros_like(w))
    if w.ndim >= 2:
        r = state.setdefault("velocity_row", np.zeros(w.shape[:-1], w.dtype))
        col = state.setdefault("velocity_col", np.zeros(w.shape[:-2] + w.shape[-1:], w.dtype))
        r[...] = beta_2_t * r + (c(1) - beta_2_t) * np.mean(squared, axis=-1)
        col[...] = beta_2_t * col + (c(1) - beta_2_t) * np.mean(squared, axis=-2)
        v[...] = (r / np.mean(r, axis=-1, keepdims=True))[..., :, None] * col[..., None, :]
    else:
        v[...] = beta_2_t * v + (c(1) - beta_2_t) * squared
    u = g / np.sqrt(v)
    return w - alpha_t * u / max(c(1), rms(u) / c(clip_threshold))


def ftrl(w, g, state, iteration, lr=0.001, learning_rate_power=-0.5,
         initial_accumulator_value=0.1, l1_regularization_strength=0.0,
         l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0, beta=0.0):
    c = w.dtype.type
    lr, power, l1 = c(lr), c(-learning_rate_power), c(l1_regularization_strength)
    l2 = c(l2_regularization_strength) + c(beta) / (c(2) * lr)
    n = state.setdefault("accumulator", np.full_like(w, initial_accumulator_value))
    z = state.setdefault("linear", np.zeros_like(w))
    n_new = n + np.square(g)
    z += (g + c(2 * l2_shrinkage_regularization_strength) * w
          - (n_new ** power - n ** power) / lr * w)
    quadratic = n_new ** power / lr + c(2) * l2
    n[...] = n_new
    # Keras's closed form: clip(z, -l1, l1) - z is sign(z) * l1 - z, or 0 where |z| <= l1.
    return (np.clip(z, -l1, l1) - z) / quadratic


def run_with_options(rule, weights, grads, dtype=np.float32, lr=0.001, weight_decay=None,
                     gradient_accumulation_steps=None, use_ema=False, ema_momentum=0.99,
                     ema_overwrite_frequency=None, **kwargs):
    """Keras 3's base-optimizer step around `rule` (`BaseOptimizer._backend_apply_gradients`).

    With N accumulation steps, calls that are not the N-th add the gradient to the
    accumulator and change nothing else; the N-th applies weight decay, then the rule with
    the mean gradient, and the rule sees the update count ``calls // N``. The EMA
    ``average`` is updated after every call, copying the weights on the first update, and
    overwrites the weights every `ema_overwrite_frequency` updates.
    Returns the weights, the rule's state, and {"average", "gradient_accumulator"}.
    """
    c = np.dtype(dtype).type
    w = np.array(weights, dtype=dtype)
    state: dict = {}
    accumulator, average = np.zeros_like(w), np.zeros_like(w)
    steps = gradient_accumulation_steps
    for call, g in enumerate(grads):
        g = np.asarray(g, dtype)
        iteration = call if steps is None else call // steps
        if steps is None or (call + 1) % steps == 0:
            if steps is not None:
                g = (g + accumulator) / c(steps)
                accumulator[...] = 0
            if weight_decay is not None:
                w = w - w * c(weight_decay) * c(lr)
            w = rule(w, g, state, iteration, lr=lr, **kwargs)
        else:
            accumulator += g
        if use_ema:
            momentum = c(ema_momentum) if iteration != 0 else c(0)
            average = momentum * average + (c(1) - momentum) * w
            if ema_overwrite_frequency and (iteration + 1) % ema_overwrite_frequency == 0:
                w = average.copy()
    return w, state, {"average": average, "gradient_accumulator": accumulator}


def lamb(w, g, state, iteration, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    c = w.dtype.type
    t = c(iteration + 1)
    lr, beta_1, beta_2 = c(lr), c(beta_1), c(beta_2)
    m = state.setdefault("momentum", np.zeros_like(w))
    v = state.setdefault("velocity", np.zeros_like(w))
    m[...] = m + (g - m) * (c(1) - beta_1)
    v[...] = v + (np.square(g) - v) * (c(1) - beta_2)
    update = (m / (c(1) - beta_1 ** t)) / (np.sqrt(v / (c(1) - beta_2 ** t)) + c(epsilon))
    w_norm, r_norm = np.sqrt(np.sum(w * w)), np.sqrt(np.sum(update * update))
    trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else c(1)
    return w - trust * lr * update

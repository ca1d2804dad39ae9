"""Layer and model speed: one training step's forward+backward, four ways.

Models (float32, softmax cross-entropy on 10 classes, gradients of every weight):

* MLP: Dense(784 -> 256, relu) -> Dense(256, relu) -> Dense(10), batch 128;
* CNN: Conv2D(32, 3x3, relu) -> MaxPool 2x2 -> Conv2D(64, 3x3, relu) -> MaxPool 2x2 ->
  Flatten -> Dense(10), on 28x28x1 images, batch 64 ("valid" convolutions, as Keras's
  default).

Implementations:

* ``layers``: an `ef.Sequential` of eagerflow layers, called inside a GradientTape;
* ``raw ops``: the same computation written with eagerflow ops on Variables (what the
  layers run underneath), so ``layers / raw ops`` is the Layer machinery's overhead
  (target: below 1.10);
* ``numpy``: forward and backward written by hand in NumPy (im2col convolutions), the
  floor under any framework on NumPy;
* ``torch``: the same model in PyTorch, when importable (target for the MLP: eagerflow
  layers at most 1.2x PyTorch's time).

The machine is shared and noisy, so the implementations run interleaved (one step each
per round) and the median over rounds is reported, with ratios.

Run: ``python benchmarks/bench_layers.py [--rounds 50]``; with PyTorch from the
reference venv: ``PYTHONPATH=. /work/refvenv/bin/python benchmarks/bench_layers.py``.
On a shared machine, ``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` (for NumPy and PyTorch
alike) gives stable figures: two BLAS threads on two busy cores stall unpredictably.
"""

from __future__ import annotations

import argparse

import numpy as np
import timing
from numpy.lib.stride_tricks import as_strided

import eagerflow as ef

try:
    import torch
except ImportError:  # PyTorch is optional: its column is left out
    torch = None


def _loss(logits, labels):
    return ef.reduce_mean(ef.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))


# -- eagerflow: layers and raw ops ----------------------------------------------------------
def mlp_model():
    return ef.Sequential([ef.layers.Input(shape=(784,)),
                          ef.layers.Dense(256, activation="relu"),
                          ef.layers.Dense(256, activation="relu"),
                          ef.layers.Dense(10)])


def cnn_model():
    return ef.Sequential([ef.layers.Input(shape=(28, 28, 1)),
                          ef.layers.Conv2D(32, 3, activation="relu"),
                          ef.layers.MaxPooling2D(),
                          ef.layers.Conv2D(64, 3, activation="relu"),
                          ef.layers.MaxPooling2D(),
                          ef.layers.Flatten(),
                          ef.layers.Dense(10)])


def layers_step(model, x, y):
    def step():
        with ef.GradientTape() as tape:
            loss = _loss(model(x, training=True), y)
        return tape.gradient(loss, model.trainable_variables)
    return step


def raw_mlp_step(weights, x, y):
    w1, b1, w2, b2, w3, b3 = weights

    def step():
        with ef.GradientTape() as tape:
            h = ef.nn.relu(ef.add(ef.matmul(x, w1), b1))
            h = ef.nn.relu(ef.add(ef.matmul(h, w2), b2))
            loss = _loss(ef.add(ef.matmul(h, w3), b3), y)
        return tape.gradient(loss, weights)
    return step


def raw_cnn_step(weights, x, y):
    k1, c1, k2, c2, w3, b3 = weights

    def step():
        with ef.GradientTape() as tape:
            h = ef.nn.relu(ef.nn.bias_add(ef.nn.conv2d(x, k1, [1, 1], "VALID"), c1))
            h = ef.nn.max_pool2d(h, [2, 2], [2, 2], "VALID")
            h = ef.nn.relu(ef.nn.bias_add(ef.nn.conv2d(h, k2, [1, 1], "VALID"), c2))
            h = ef.nn.max_pool2d(h, [2, 2], [2, 2], "VALID")
            h = ef.reshape(h, (h.shape[0], -1))
            loss = _loss(ef.add(ef.matmul(h, w3), b3), y)
        return tape.gradient(loss, weights)
    return step


# -- NumPy by hand --------------------------------------------------------------------------
def _softmax_xent_grad(logits, y):
    shifted = logits - logits.max(1, keepdims=True)
    p = np.exp(shifted)
    p /= p.sum(1, keepdims=True)
    p[np.arange(len(y)), y] -= 1
    return p / len(y)


def numpy_mlp_step(weights, x, y):
    w1, b1, w2, b2, w3, b3 = weights

    def step():
        a1 = np.maximum(x @ w1 + b1, 0)
        a2 = np.maximum(a1 @ w2 + b2, 0)
        d3 = _softmax_xent_grad(a2 @ w3 + b3, y)
        d2 = (d3 @ w3.T) * (a2 > 0)
        d1 = (d2 @ w2.T) * (a1 > 0)
        return [x.T @ d1, d1.sum(0), a1.T @ d2, d2.sum(0), a2.T @ d3, d3.sum(0)]
    return step


def _im2col(x, k):
    n, h, w, c = x.shape
    s = x.strides
    out_h, out_w = h - k + 1, w - k + 1
    view = as_strided(x, (n, out_h, out_w, k, k, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    return view.reshape(n * out_h * out_w, k * k * c), (n, out_h, out_w)


def _col2im(cols, shape, k):
    n, h, w, c = shape
    out_h, out_w = h - k + 1, w - k + 1
    cols = cols.reshape(n, out_h, out_w, k, k, c)
    dx = np.zeros(shape, cols.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, i:i + out_h, j:j + out_w] += cols[:, :, :, i, j]
    return dx


def _pool(x):
    n, h, w, c = x.shape
    windows = x[:, :h // 2 * 2, :w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c)
    out = windows.max((2, 4))
    return out, windows == out[:, :, None, :, None]


def _unpool(dy, mask, shape):
    n, h, w, c = shape
    grad = np.zeros(shape, dy.dtype)
    spread = mask * dy[:, :, None, :, None]
    grad[:, :h // 2 * 2, :w // 2 * 2] = spread.reshape(n, h // 2 * 2, w // 2 * 2, c)
    return grad


def numpy_cnn_step(weights, x, y):
    k1, c1, k2, c2, w3, b3 = weights

    def step():
        cols1, s1 = _im2col(x, 3)
        z1 = np.maximum(cols1 @ k1.reshape(-1, 32) + c1, 0).reshape(*s1, 32)
        p1, m1 = _pool(z1)
        cols2, s2 = _im2col(p1, 3)
        z2 = np.maximum(cols2 @ k2.reshape(-1, 64) + c2, 0).reshape(*s2, 64)
        p2, m2 = _pool(z2)
        flat = p2.reshape(len(x), -1)
        d_logits = _softmax_xent_grad(flat @ w3 + b3, y)
        d_flat = (d_logits @ w3.T).reshape(p2.shape)
        dz2 = _unpool(d_flat, m2, z2.shape) * (z2 > 0)
        dz2 = dz2.reshape(-1, 64)
        dp1 = _col2im(dz2 @ k2.reshape(-1, 64).T, p1.shape, 3)
        dz1 = (_unpool(dp1, m1, z1.shape) * (z1 > 0)).reshape(-1, 32)
        return [(cols1.T @ dz1).reshape(k1.shape), dz1.sum(0),
                (cols2.T @ dz2).reshape(k2.shape), dz2.sum(0), flat.T @ d_logits,
                d_logits.sum(0)]
    return step


# -- PyTorch --------------------------------------------------------------------------------
def torch_step(kind, weights, x, y):
    tensors = [torch.tensor(w) for w in weights]
    if kind == "mlp":
        net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                  torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                  torch.nn.Linear(256, 10))
        linears = [net[0], net[2], net[4]]
        for index, layer in enumerate(linears):
            layer.weight.data = tensors[2 * index].T.contiguous()
            layer.bias.data = tensors[2 * index + 1]
        inputs = torch.tensor(x)
    else:
        net = torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(),
                                  torch.nn.MaxPool2d(2), torch.nn.Conv2d(32, 64, 3),
                                  torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                  torch.nn.Linear(1600, 10))
        net[0].weight.data = tensors[0].permute(3, 2, 0, 1).contiguous()
        net[3].weight.data = tensors[2].permute(3, 2, 0, 1).contiguous()
        net[0].bias.data, net[3].bias.data = tensors[1], tensors[3]
        # Flatten order differs (NCHW vs NHWC): permute the dense rows to match.
        dense = tensors[4].reshape(5, 5, 64, 10).permute(2, 0, 1, 3).reshape(1600, 10)
        net[7].weight.data, net[7].bias.data = dense.T.contiguous(), tensors[5]
        inputs = torch.tensor(x).permute(0, 3, 1, 2).contiguous()
    labels = torch.tensor(y, dtype=torch.long)
    params = list(net.parameters())

    def step():
        loss = torch.nn.functional.cross_entropy(net(inputs), labels)
        return torch.autograd.grad(loss, params)
    return step


# -- running --------------------------------------------------------------------------------
def _variables(model):
    return [ef.Variable(w) for w in model.get_weights()]


def check_agreement(steps) -> None:
    """All implementations compute the same gradients (guards the benchmark itself)."""
    reference = [np.asarray(g) for g in steps["numpy"]()]
    for name, step in steps.items():
        grads = [np.asarray(g) for g in step()]
        if name == "torch":
            # Kernels are laid out differently; bias gradients (1, 3, 5) compare directly.
            grads, reference_part = grads[1::2], reference[1::2]
        else:
            reference_part = reference
        for got, want in zip(grads, reference_part, strict=True):
            np.testing.assert_allclose(np.asarray(got), want, rtol=2e-3, atol=2e-5,
                                       err_msg=name)


def measure(steps, rounds: int) -> dict:
    """Median ms per step; the order changes every round, so no implementation always
    runs right after another."""
    times = timing.interleaved(steps, rounds, warmup=2, shuffle=True)
    return {name: float(np.median(values)) * 1e3 for name, values in times.items()}


def run(kind: str, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    ef.random.set_seed(0)
    if kind == "mlp":
        model, batch = mlp_model(), 128
        x = rng.standard_normal((batch, 784)).astype("float32")
        raw, hand = raw_mlp_step, numpy_mlp_step
    else:
        model, batch = cnn_model(), 64
        x = rng.standard_normal((batch, 28, 28, 1)).astype("float32")
        raw, hand = raw_cnn_step, numpy_cnn_step
    y = rng.integers(0, 10, batch).astype("int32")
    weights = model.get_weights()
    steps = {
        "layers": layers_step(model, ef.constant(x), ef.constant(y)),
        "raw ops": raw(_variables(model), ef.constant(x), ef.constant(y)),
        "numpy": hand(weights, x, y.astype(np.int64)),
    }
    if torch is not None:
        steps["torch"] = torch_step(kind, weights, x, y)
    check_agreement(steps)
    return measure(steps, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(max(1, torch.get_num_threads()))
    print(f"forward+backward per step, median of {args.rounds} interleaved rounds (ms)")
    header = f"{'model':<22}{'layers':>9}{'raw ops':>9}{'numpy':>9}{'torch':>9}"
    print(header + f"{'layers/raw':>12}{'layers/numpy':>14}{'layers/torch':>14}")
    for kind, label in (("mlp", "MLP 784-256-256-10 b128"), ("cnn", "CNN 28x28 b64")):
        ms = run(kind, args.rounds)
        torch_ms = ms.get("torch")
        line = f"{label:<22}{ms['layers']:>9.2f}{ms['raw ops']:>9.2f}{ms['numpy']:>9.2f}"
        line += f"{torch_ms:>9.2f}" if torch_ms else f"{'-':>9}"
        line += f"{ms['layers'] / ms['raw ops']:>12.3f}{ms['layers'] / ms['numpy']:>14.2f}"
        line += f"{ms['layers'] / torch_ms:>14.2f}" if torch_ms else f"{'-':>14}"
        print(line)


if __name__ == "__main__":
    main()

"""Benchmark: eager vs `ef.function`, next to NumPy, PyTorch and TensorFlow.

Two workloads, each timed interleaved (every round runs every variant once, and the
median over rounds is reported) because the machine is shared and noisy:

1. ``small``: 200 small elementwise ops on (10,) float32 tensors per call: a realistic
   mix of tensor-tensor ops, ops with Python-number constants, and activations
   (``x * y``, ``z * 0.5 + 0.25``, ``tanh``, ``cos``, ...).
2. ``mlp``: one training step of a 784-128-10 MLP at batch 32 (plain Variables, matmul,
   relu, softmax cross-entropy from core ops, SGD with ``assign_sub``).

Targets: traced small-op function >= 5x faster than eager and faster than
`tf.function`; traced MLP step >= 1.3x faster than eager.

Run: ``python benchmarks/bench_function.py [--rounds 15] [--threads 1]`` (TensorFlow and
PyTorch columns appear when they are importable, e.g. with /work/refvenv/bin/python).
Every framework gets the same number of threads (default 1): on a small shared machine,
NumPy's BLAS, PyTorch and TensorFlow each starting a thread pool slow each other down by
10x and more, which would measure the contention rather than the frameworks.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys


def _threads(argv) -> int:
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if arg.startswith("--threads="):
            return int(arg.split("=", 1)[1])
    return 1


THREADS = _threads(sys.argv)
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = str(THREADS)  # before NumPy (and its BLAS) is imported
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import timing  # noqa: E402

import eagerflow as ef  # noqa: E402

try:
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(THREADS)
except ImportError:  # the reference frameworks are optional
    tf = None
try:
    import torch

    torch.set_num_threads(THREADS)
except ImportError:
    torch = None

ITERATIONS = 25  # 8 ops per iteration: 200 ops per call


# -- workload 1: small elementwise ops -----------------------------------------------------
def small_ops_ef(x, y):
    for _ in range(ITERATIONS):
        z = x * y
        z = z * 0.5 + 0.25
        x = ef.tanh(z) - x * 0.1
        y = ef.cos(y) + x
    return x, y


def small_ops_numpy(x, y):
    for _ in range(ITERATIONS):
        z = x * y
        z = z * np.float32(0.5) + np.float32(0.25)
        x = np.tanh(z) - x * np.float32(0.1)
        y = np.cos(y) + x
    return x, y


def small_ops_tf(x, y):
    for _ in range(ITERATIONS):
        z = x * y
        z = z * 0.5 + 0.25
        x = tf.tanh(z) - x * 0.1
        y = tf.cos(y) + x
    return x, y


def small_ops_torch(x, y):
    for _ in range(ITERATIONS):
        z = x * y
        z = z * 0.5 + 0.25
        x = torch.tanh(z) - x * 0.1
        y = torch.cos(y) + x
    return x, y


# -- workload 2: MLP train step ------------------------------------------------------------
def mlp_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((32, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 32)
    onehot = np.eye(10, dtype=np.float32)[labels]
    weights = [rng.standard_normal((784, 128)).astype(np.float32) * 0.05,
               np.zeros(128, np.float32),
               rng.standard_normal((128, 10)).astype(np.float32) * 0.05,
               np.zeros(10, np.float32)]
    return x, onehot, weights


def make_mlp_step_ef(weights, lr=0.1):
    w1, b1, w2, b2 = [ef.Variable(w) for w in weights]

    def step(x, onehot):
        with ef.GradientTape() as tape:
            hidden = ef.nn.relu(ef.matmul(x, w1) + b1)
            logits = ef.matmul(hidden, w2) + b2
            loss = -ef.reduce_mean(ef.reduce_sum(onehot * ef.nn.log_softmax(logits), axis=1))
        grads = tape.gradient(loss, [w1, b1, w2, b2])
        for var, grad in zip((w1, b1, w2, b2), grads, strict=False):
            var.assign_sub(lr * grad)
        return loss

    return step


def make_mlp_step_numpy(weights, learning_rate=0.1):
    w1, b1, w2, b2 = [w.copy() for w in weights]
    lr = np.float32(learning_rate)

    def step(x, onehot):
        pre = x @ w1 + b1
        hidden = np.maximum(pre, 0)
        logits = hidden @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -np.mean(np.sum(onehot * log_probs, axis=1))
        dlogits = (np.exp(log_probs) - onehot) / x.shape[0]
        dhidden = dlogits @ w2.T
        dhidden *= pre > 0
        np.subtract(w2, lr * (hidden.T @ dlogits), out=w2)
        np.subtract(b2, lr * dlogits.sum(axis=0), out=b2)
        np.subtract(w1, lr * (x.T @ dhidden), out=w1)
        np.subtract(b1, lr * dhidden.sum(axis=0), out=b1)
        return loss

    return step


def make_mlp_step_tf(weights, lr=0.1):
    variables = [tf.Variable(w) for w in weights]

    def step(x, onehot):
        w1, b1, w2, b2 = variables
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(hidden, w2) + b2
            loss = -tf.reduce_mean(tf.reduce_sum(onehot * tf.nn.log_softmax(logits), axis=1))
        grads = tape.gradient(loss, variables)
        for var, grad in zip(variables, grads, strict=False):
            var.assign_sub(lr * grad)
        return loss

    return step


def make_mlp_step_torch(weights, lr=0.1):
    params = [torch.tensor(w, requires_grad=True) for w in weights]

    def step(x, onehot):
        w1, b1, w2, b2 = params
        hidden = torch.relu(x @ w1 + b1)
        logits = hidden @ w2 + b2
        loss = -(onehot * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=False):
                p -= lr * g
        return loss

    return step


# -- timing --------------------------------------------------------------------------------
def interleaved(variants: dict, calls: int, rounds: int) -> dict:
    """Median seconds per call of each variant; every round runs every variant."""
    # Three warm-up calls each: traces, caches, allocator.
    times = timing.interleaved(variants, rounds, warmup=3, calls=calls)
    return {name: statistics.median(t) for name, t in times.items()}


def report(title, results, baseline, traced):
    print(f"\n{title}")
    print(f"  {'variant':<28}{'µs/call':>12}{'vs ef eager':>14}{'vs ef.function':>16}")
    for name, seconds in results.items():
        print(f"  {name:<28}{seconds * 1e6:>12.1f}{results[baseline] / seconds:>13.2f}x"
              f"{results[traced] / seconds:>15.2f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1, help="threads per framework")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    a = rng.standard_normal(10).astype(np.float32)
    b = rng.standard_normal(10).astype(np.float32)
    xe, ye = ef.constant(a), ef.constant(b)
    traced_small = ef.function(small_ops_ef)
    variants = {
        "numpy (no framework)": lambda: small_ops_numpy(a, b),
        "eagerflow eager": lambda: small_ops_ef(xe, ye),
        "eagerflow ef.function": lambda: traced_small(xe, ye),
    }
    if torch is not None:
        xt, yt = torch.tensor(a), torch.tensor(b)
        variants["torch eager"] = lambda: small_ops_torch(xt, yt)
    if tf is not None:
        xf, yf = tf.constant(a), tf.constant(b)
        tf_traced = tf.function(small_ops_tf)
        variants["tensorflow eager"] = lambda: small_ops_tf(xf, yf)
        variants["tensorflow tf.function"] = lambda: tf_traced(xf, yf)
    np.testing.assert_allclose(traced_small(xe, ye)[0].numpy(), small_ops_ef(xe, ye)[0].numpy(),
                               rtol=1e-6)
    small = interleaved(variants, calls=50, rounds=args.rounds)
    report("200 small elementwise ops on (10,) float32, per call", small, "eagerflow eager",
           "eagerflow ef.function")

    x, onehot, weights = mlp_data()
    xe, oe = ef.constant(x), ef.constant(onehot)
    eager_step = make_mlp_step_ef(weights)
    traced_step = ef.function(make_mlp_step_ef(weights))
    numpy_step = make_mlp_step_numpy(weights)
    variants = {
        "numpy (hand-written)": lambda: numpy_step(x, onehot),
        "eagerflow eager": lambda: eager_step(xe, oe),
        "eagerflow ef.function": lambda: traced_step(xe, oe),
    }
    if torch is not None:
        torch_step = make_mlp_step_torch(weights)
        xt, ot = torch.tensor(x), torch.tensor(onehot)
        variants["torch eager"] = lambda: torch_step(xt, ot)
    if tf is not None:
        tf_step = make_mlp_step_tf(weights)
        tf_traced_step = tf.function(make_mlp_step_tf(weights))
        xf, of = tf.constant(x), tf.constant(onehot)
        variants["tensorflow eager"] = lambda: tf_step(xf, of)
        variants["tensorflow tf.function"] = lambda: tf_traced_step(xf, of)
    mlp = interleaved(variants, calls=20, rounds=args.rounds)
    report("MLP 784-128-10 train step, batch 32 (forward, backward, SGD), per step", mlp,
           "eagerflow eager", "eagerflow ef.function")

    small_ratio = small["eagerflow eager"] / small["eagerflow ef.function"]
    mlp_ratio = mlp["eagerflow eager"] / mlp["eagerflow ef.function"]
    print(f"\ntargets: small ops traced/eager speed-up {small_ratio:.2f}x (>= 5x), "
          f"MLP step {mlp_ratio:.2f}x (>= 1.3x)", end="")
    if tf is not None:
        versus = small["tensorflow tf.function"] / small["eagerflow ef.function"]
        print(f", small ops vs tf.function {versus:.2f}x (> 1x)")
    else:
        print()


if __name__ == "__main__":
    main()

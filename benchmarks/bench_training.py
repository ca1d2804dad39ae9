"""Training throughput of `model.fit` next to a hand-written NumPy loop, a hand-written
PyTorch loop and Keras 3 `fit` on TensorFlow (each when importable), plus peak memory.

Workloads (synthetic data, fixed seeds, no metrics, loss only):

* ``mlp``: one epoch over (60000, 784) float32 with a 784-256-256-10 MLP, batch 128, SGD;
* ``cnn``: 100 steps at batch 64 of conv3x3(32)-maxpool-conv3x3(64)-maxpool-dense(10) on
  28x28x1 images, SGD.

Every measurement runs in its own process (so its peak RSS is its own), frameworks are
interleaved round by round, and the table reports medians with ratios to eagerflow.
Each worker warms up (a few steps, which also builds/traces) before the timed run.

Run: ``python benchmarks/bench_training.py [--rounds 3] [--workloads mlp cnn] [--threads 1]``
(for the references, use an interpreter that has torch / tensorflow, with eagerflow on
PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

MLP_SAMPLES, MLP_BATCH = 60000, 128
CNN_STEPS, CNN_BATCH = 100, 64
LEARNING_RATE = 0.01


def _data(workload):
    rng = np.random.default_rng(0)
    if workload == "mlp":
        x = rng.random((MLP_SAMPLES, 784), dtype=np.float32)
    else:
        x = rng.random((CNN_STEPS * CNN_BATCH, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, len(x)).astype(np.int64)
    return x, y


def _batch_size(workload):
    return MLP_BATCH if workload == "mlp" else CNN_BATCH


# -- workers: each returns the seconds of the timed run ---------------------------------
def run_eagerflow(workload, x, y):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import eagerflow as ef

    ef.config.pin_malloc_thresholds()  # opt in: steps reuse their pages (see the docs)
    ef.random.set_seed(0)
    layers = ef.layers
    if workload == "mlp":
        model = ef.Sequential([layers.Dense(256, activation="relu", input_shape=(784,)),
                               layers.Dense(256, activation="relu"), layers.Dense(10)])
    else:
        model = ef.Sequential([
            layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
            layers.MaxPooling2D(2), layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(10)])
    model.compile(optimizer=ef.optim.SGD(LEARNING_RATE),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
    batch = _batch_size(workload)
    model.fit(x[:batch * 5], y[:batch * 5], batch_size=batch, epochs=1, verbose=0)
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
    return time.perf_counter() - start


def run_keras(workload, x, y):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras

    threads = os.environ.get("BENCH_THREADS")
    if threads:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(int(threads))
    keras.utils.set_random_seed(0)
    layers = keras.layers
    if workload == "mlp":
        model = keras.Sequential([keras.Input((784,)), layers.Dense(256, activation="relu"),
                                  layers.Dense(256, activation="relu"), layers.Dense(10)])
    else:
        model = keras.Sequential([
            keras.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
            layers.MaxPooling2D(2), layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.SGD(LEARNING_RATE),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    batch = _batch_size(workload)
    model.fit(x[:batch * 5], y[:batch * 5], batch_size=batch, epochs=1, verbose=0)
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
    return time.perf_counter() - start


def run_torch(workload, x, y):
    import torch

    if os.environ.get("BENCH_THREADS"):
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
    torch.manual_seed(0)
    nn = torch.nn
    if workload == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))
        inputs = torch.from_numpy(x)
    else:
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(64 * 5 * 5, 10))
        inputs = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    labels = torch.from_numpy(y)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.CrossEntropyLoss()
    batch = _batch_size(workload)

    def epoch(count):
        order = torch.randperm(count)
        for start in range(0, count, batch):
            index = order[start:start + batch]
            optimizer.zero_grad()
            loss = loss_fn(model(inputs[index]), labels[index])
            loss.backward()
            optimizer.step()

    epoch(batch * 5)
    start = time.perf_counter()
    epoch(len(x))
    return time.perf_counter() - start


def run_numpy(workload, x, y):
    """The floor without a framework: the same network written by hand in NumPy."""
    rng = np.random.default_rng(0)
    step = _numpy_mlp_step(rng) if workload == "mlp" else _numpy_cnn_step(rng)
    batch = _batch_size(workload)

    def epoch(count):
        order = rng.permutation(count)
        for start in range(0, count, batch):
            index = order[start:start + batch]
            step(x[index], y[index])

    epoch(batch * 5)
    start = time.perf_counter()
    epoch(len(x))
    return time.perf_counter() - start


def _softmax_xent_grad(logits, labels):
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    probs[np.arange(len(labels)), labels] -= 1
    return probs / len(labels)


def _numpy_mlp_step(rng):
    sizes = [784, 256, 256, 10]
    weights = [(rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32)
               for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    biases = [np.zeros(b, np.float32) for b in sizes[1:]]

    def step(xb, yb):
        activations = [xb]
        for w, b in zip(weights[:-1], biases[:-1], strict=True):
            activations.append(np.maximum(activations[-1] @ w + b, 0))
        grad = _softmax_xent_grad(activations[-1] @ weights[-1] + biases[-1], yb)
        for layer in range(len(weights) - 1, -1, -1):
            grad_w = activations[layer].T @ grad
            grad_b = grad.sum(axis=0)
            if layer:
                grad = (grad @ weights[layer].T) * (activations[layer] > 0)
            weights[layer] -= LEARNING_RATE * grad_w
            biases[layer] -= LEARNING_RATE * grad_b

    return step


def _columns(x, oh, ow):
    """im2col of a 3x3 VALID convolution: ``(n*oh*ow, 9*c)``, one copy of a window view."""
    n, _, _, c = x.shape
    s = x.strides
    view = np.lib.stride_tricks.as_strided(
        x, (n, oh, ow, 3, 3, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    return view.reshape(n * oh * ow, 9 * c)


def _pool(a):
    """2x2 max pool (an odd last row/column is dropped) and the mask of the maxima."""
    n, h, w, c = a.shape
    windows = a[:, :h // 2 * 2, :w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c)
    pooled = windows.max(axis=(2, 4))
    return pooled, windows == pooled[:, :, None, :, None]


def _unpool(grad, mask, shape):
    """The max pool's gradient: `grad` routed to the maxima (ties share it)."""
    n, h, w, c = shape
    out = np.zeros(shape, grad.dtype)
    routed = mask * grad[:, :, None, :, None]
    out[:, :h // 2 * 2, :w // 2 * 2] = routed.reshape(n, h // 2 * 2, w // 2 * 2, c)
    return out


def _numpy_cnn_step(rng):
    """conv3x3(32)-relu-pool-conv3x3(64)-relu-pool-dense(10) by im2col, NHWC, SGD."""
    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(np.float32)

    w1, b1 = he((9, 32), 9), np.zeros(32, np.float32)
    w2, b2 = he((288, 64), 288), np.zeros(64, np.float32)
    w3, b3 = he((1600, 10), 1600), np.zeros(10, np.float32)

    def step(xb, yb):
        n = len(xb)
        cols1 = _columns(xb, 26, 26)
        z1 = (cols1 @ w1 + b1).reshape(n, 26, 26, 32)
        a1 = np.maximum(z1, 0)
        p1, mask1 = _pool(a1)
        cols2 = _columns(p1, 11, 11)
        z2 = (cols2 @ w2 + b2).reshape(n, 11, 11, 64)
        a2 = np.maximum(z2, 0)
        p2, mask2 = _pool(a2)
        flat = p2.reshape(n, 1600)
        grad = _softmax_xent_grad(flat @ w3 + b3, yb)
        grad_w3, grad_b3 = flat.T @ grad, grad.sum(axis=0)
        d2 = _unpool((grad @ w3.T).reshape(n, 5, 5, 64), mask2, a2.shape)
        d2 *= z2 > 0
        d2 = d2.reshape(-1, 64)
        grad_w2, grad_b2 = cols2.T @ d2, d2.sum(axis=0)
        blocks = (d2 @ w2.T).reshape(n, 11, 11, 3, 3, 32)
        d_p1 = np.zeros(p1.shape, np.float32)
        for i in range(3):
            for j in range(3):
                d_p1[:, i:i + 11, j:j + 11] += blocks[:, :, :, i, j]
        d1 = _unpool(d_p1, mask1, a1.shape)
        d1 *= z1 > 0
        d1 = d1.reshape(-1, 32)
        grad_w1, grad_b1 = cols1.T @ d1, d1.sum(axis=0)
        for param, g in ((w1, grad_w1), (b1, grad_b1), (w2, grad_w2), (b2, grad_b2),
                         (w3, grad_w3), (b3, grad_b3)):
            param -= LEARNING_RATE * g

    return step


RUNNERS = {"eagerflow": run_eagerflow, "numpy": run_numpy, "torch": run_torch,
           "keras": run_keras}


def worker(framework, workload) -> dict:
    x, y = _data(workload)
    seconds = RUNNERS[framework](workload, x, y)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {"samples_per_second": len(x) / seconds, "seconds": seconds, "peak_mib": peak_mib}


def _available(framework) -> bool:
    module = {"torch": "torch", "keras": "keras"}.get(framework)
    if module is None:
        return True
    code = f"import {module}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          timeout=300).returncode == 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", nargs="+", default=["mlp", "cnn"])
    parser.add_argument("--frameworks", nargs="+", default=list(RUNNERS))
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for BLAS/OpenMP/torch/TF in every worker (default: "
                             "each library's own); 1 gives steadier figures on a busy machine")
    parser.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "WORKLOAD"))
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.threads:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "BENCH_THREADS"):
            env[name] = str(args.threads)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    frameworks = [f for f in args.frameworks if _available(f)]
    results = {(w, f): [] for w in args.workloads for f in frameworks}
    for round_index in range(args.rounds):
        for workload in args.workloads:
            for framework in frameworks:
                out = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--worker", framework,
                     workload], capture_output=True, text=True, timeout=1800, env=env)
                if out.returncode != 0:
                    print(f"{framework}/{workload} failed:\n{out.stderr[-2000:]}")
                    continue
                results[(workload, framework)].append(json.loads(out.stdout.splitlines()[-1]))
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    threads = args.threads or "default"
    print(f"{'workload':8} {'framework':10} {'samples/s':>10} {'vs eagerflow':>13} "
          f"{'best':>8} {'best vs ef':>11} {'peak MiB':>9}   (median and best of "
          f"{args.rounds}, threads: {threads})")
    for workload in args.workloads:
        base = results.get((workload, "eagerflow")) or []
        base_speed = statistics.median(r["samples_per_second"] for r in base) if base else None
        base_best = max((r["samples_per_second"] for r in base), default=None)
        for framework in frameworks:
            runs = results.get((workload, framework)) or []
            if not runs:
                continue
            speeds = [r["samples_per_second"] for r in runs]
            speed = statistics.median(speeds)
            ratio = f"{speed / base_speed:.2f}x" if base_speed else "-"
            best_ratio = f"{max(speeds) / base_best:.2f}x" if base_best else "-"
            memory = statistics.median(r["peak_mib"] for r in runs)
            print(f"{workload:8} {framework:10} {speed:10.0f} {ratio:>13} {max(speeds):8.0f} "
                  f"{best_ratio:>11} {memory:9.0f}   [{min(speeds):.0f}-{max(speeds):.0f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A whole training step in one graph: `model.fit` and a hand-written ``@ef.function``
train step, next to a PyTorch loop and a raw NumPy loop.

Workload: a 784-256-256-10 MLP on synthetic (16384, 784) float32 data, batch 128, Adam
(lr 1e-3), sparse categorical cross-entropy from logits, one epoch timed after a warm-up.

* ``ef fit``: ``model.fit`` (the step is traced whole: forward, backward, Adam, loss mean);
* ``ef function``: the loop of the TensorFlow guide "writing a training loop from
  scratch", written with ef names: ``@ef.function`` around tape, ``optimizer.apply``;
* ``torch``: the same loop in PyTorch (when importable), default threads;
* ``numpy``: the same network and Adam written by hand in NumPy (the floor without a
  framework);
* ``ef fit plan``: ``ef fit`` with elementwise fusion off
  (``ef.config.optimizer.set_experimental_options({"elementwise_fusion": False})``), to
  show what fusion (the numba kernel set, the default with `eagerflow[fast]`) changes in a
  real step.

For the eagerflow rows the script also reports the share of the step spent outside the
compiled plan (in Python around it: argument handling, the fit loop, callbacks, and any
eager work), measured by timing every compiled plan's function in the same process.

Every measurement runs in its own process; frameworks are interleaved round by round and
the table reports medians with ratios to PyTorch (or NumPy without PyTorch).

Run: ``python benchmarks/bench_train_step.py [--rounds 3]`` (for the PyTorch row, use an
interpreter that has torch, with eagerflow on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SAMPLES, BATCH, LR = 16384, 128, 1e-3


def _data():
    rng = np.random.default_rng(0)
    return (rng.random((SAMPLES, 784), dtype=np.float32),
            rng.integers(0, 10, SAMPLES).astype(np.int64))


def _timed_plans():
    """Times every compiled plan's function (`executor.Plan`) from now on: the seconds
    spent inside graphs, whichever path calls them."""
    from eagerflow.graph import executor

    spent = [0.0]
    original_init = executor.Plan.__init__

    def timed_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        inner = self._fn

        def fn(*arrays):
            start = time.perf_counter()
            try:
                return inner(*arrays)
            finally:
                spent[0] += time.perf_counter() - start

        self._fn = fn

    executor.Plan.__init__ = timed_init
    return spent


def _ef_model(fusion=True):
    import eagerflow as ef

    ef.config.optimizer.set_experimental_options({"elementwise_fusion": fusion})
    ef.config.pin_malloc_thresholds()  # opt in: steps reuse their pages (see the docs)
    ef.random.set_seed(0)
    return ef, ef.Sequential([ef.layers.Dense(256, activation="relu", input_shape=(784,)),
                              ef.layers.Dense(256, activation="relu"), ef.layers.Dense(10)])


def run_ef_fit(x, y, fusion=True):
    ef, model = _ef_model(fusion)
    model.compile(optimizer=ef.optim.Adam(LR),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
    spent = _timed_plans()
    model.fit(x[:BATCH * 5], y[:BATCH * 5], batch_size=BATCH, epochs=1, verbose=0)
    spent[0] = 0.0
    start = time.perf_counter()
    model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
    return time.perf_counter() - start, spent[0]


def run_ef_function(x, y):
    ef, model = _ef_model()
    optimizer = ef.optim.Adam(LR)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)

    @ef.function
    def train_step(xb, yb):
        with ef.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        return loss

    rng = np.random.default_rng(0)

    def epoch(count):
        order = rng.permutation(count)
        for begin in range(0, count - BATCH + 1, BATCH):
            index = order[begin:begin + BATCH]
            train_step(ef.constant(x[index]), ef.constant(y[index]))

    spent = _timed_plans()
    epoch(BATCH * 5)
    spent[0] = 0.0
    start = time.perf_counter()
    epoch(len(x))
    return time.perf_counter() - start, spent[0]


def run_torch(x, y):
    import torch

    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    inputs, labels = torch.from_numpy(x), torch.from_numpy(y)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()

    def epoch(count):
        order = torch.randperm(count)
        for begin in range(0, count - BATCH + 1, BATCH):
            index = order[begin:begin + BATCH]
            optimizer.zero_grad()
            loss_fn(model(inputs[index]), labels[index]).backward()
            optimizer.step()

    epoch(BATCH * 5)
    start = time.perf_counter()
    epoch(len(x))
    return time.perf_counter() - start, None


def run_numpy(x, y):
    rng = np.random.default_rng(0)
    sizes = [784, 256, 256, 10]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        params += [(rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32),
                   np.zeros(b, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0]

    def step(xb, yb):
        acts = [xb]
        for i in range(0, 4, 2):
            acts.append(np.maximum(acts[-1] @ params[i] + params[i + 1], 0))
        logits = acts[-1] @ params[4] + params[5]
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        probs[np.arange(len(yb)), yb] -= 1
        grad = probs / len(yb)
        grads = [None] * 6
        for layer in (2, 1, 0):
            grads[2 * layer] = acts[layer].T @ grad
            grads[2 * layer + 1] = grad.sum(axis=0)
            if layer:
                grad = (grad @ params[2 * layer].T) * (acts[layer] > 0)
        t[0] += 1
        alpha = LR * np.sqrt(1 - 0.999 ** t[0]) / (1 - 0.9 ** t[0])
        for p, g, mi, vi in zip(params, grads, m, v, strict=True):
            mi += (g - mi) * 0.1
            vi += (g * g - vi) * 0.001
            p -= alpha * mi / (np.sqrt(vi) + 1e-7)

    def epoch(count):
        order = rng.permutation(count)
        for begin in range(0, count - BATCH + 1, BATCH):
            index = order[begin:begin + BATCH]
            step(x[index], y[index])

    epoch(BATCH * 5)
    start = time.perf_counter()
    epoch(len(x))
    return time.perf_counter() - start, None


RUNNERS = {"ef fit": run_ef_fit, "ef function": run_ef_function, "torch": run_torch,
           "numpy": run_numpy, "ef fit plan": lambda x, y: run_ef_fit(x, y, fusion=False)}


def _available(name) -> bool:
    if name != "torch":
        return True
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True,
                          timeout=300).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        x, y = _data()
        seconds, in_plans = RUNNERS[args.worker](x, y)
        print(json.dumps({"seconds": seconds, "in_plans": in_plans}))
        return
    names = [n for n in RUNNERS if _available(n)]
    results: dict = {n: [] for n in names}
    for round_ in range(args.rounds):
        for name in names:
            out = subprocess.run([sys.executable, __file__, "--worker", name],
                                 capture_output=True, text=True)
            if out.returncode:  # reported in the table (e.g. an older eagerflow)
                results[name] = (out.stderr.strip().splitlines() or ["?"])[-1]
                continue
            if isinstance(results[name], list):
                results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    reference = "torch" if isinstance(results.get("torch"), list) else "numpy"
    failed = {n: results.pop(n) for n in list(results) if not isinstance(results[n], list)}
    names = [n for n in names if n not in failed]
    speed = {n: statistics.median(SAMPLES / r["seconds"] for r in results[n]) for n in names}
    print(f"MLP 784-256-256-10, batch {BATCH}, Adam, {SAMPLES} samples; medians of "
          f"{args.rounds} rounds, one process each")
    print(f"{'loop':<12} {'samples/s':>10} {'vs ' + reference:>10} {'outside plan':>13}")
    for name in names:
        shares = [1 - r["in_plans"] / r["seconds"] for r in results[name]
                  if r["in_plans"] is not None]
        outside = f"{100 * statistics.median(shares):.0f}%" if shares else "-"
        print(f"{name:<12} {speed[name]:>10.0f} {speed[name] / speed[reference]:>9.2f}x "
              f"{outside:>13}")
    for name, error in failed.items():
        print(f"{name:<12} fails: {error[:100]}")


if __name__ == "__main__":
    main()

"""One training step of a 784-128-10 MLP at batch 32: eagerflow core ops vs NumPy and PyTorch.

The step is forward (matmul, bias, relu, log-softmax cross-entropy), backward through a
GradientTape and an SGD update of the four variables. The NumPy reference is the same
step written by hand; PyTorch uses autograd and an in-place SGD update. Timings are
interleaved round by round; the best round counts.

Run: python benchmarks/bench_mlp_step.py [--rounds 7 --steps 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import eagerflow as ef

BATCH, IN, HIDDEN, OUT, LR = 32, 784, 128, 10, 0.01


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.integers(0, OUT, BATCH)
    w1 = (rng.standard_normal((IN, HIDDEN)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, OUT)) * 0.05).astype(np.float32)
    return x, y, w1, w2


def eagerflow_step():
    x, y, w1, w2 = _data()
    x, labels = ef.constant(x), ef.one_hot(y, OUT)
    variables = [ef.Variable(w1), ef.Variable(np.zeros(HIDDEN, np.float32)),
                 ef.Variable(w2), ef.Variable(np.zeros(OUT, np.float32))]
    w1v, b1v, w2v, b2v = variables

    def step():
        with ef.GradientTape() as tape:
            hidden = ef.nn.relu(ef.matmul(x, w1v) + b1v)
            logits = ef.matmul(hidden, w2v) + b2v
            loss = -ef.reduce_mean(ef.reduce_sum(labels * ef.nn.log_softmax(logits), axis=1))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads, strict=True):
            v.assign_sub(g * LR)

    return step


def numpy_step():
    x, y, w1, w2 = _data()
    b1, b2 = np.zeros(HIDDEN, np.float32), np.zeros(OUT, np.float32)
    onehot = np.eye(OUT, dtype=np.float32)[y]

    def step():
        h = np.maximum(x @ w1 + b1, 0)
        logits = h @ w2 + b2
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        dlogits = (probs - onehot) / BATCH
        dw2, db2 = h.T @ dlogits, dlogits.sum(0)
        dh = (dlogits @ w2.T) * (h > 0)
        dw1, db1 = x.T @ dh, dh.sum(0)
        for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            p -= LR * g

    return step


def torch_step():
    import torch

    torch.set_num_threads(2)
    x, y, w1, w2 = _data()
    x, y = torch.tensor(x), torch.tensor(y)
    params = [torch.tensor(w1, requires_grad=True), torch.zeros(HIDDEN, requires_grad=True),
              torch.tensor(w2, requires_grad=True), torch.zeros(OUT, requires_grad=True)]

    def step():
        w1t, b1t, w2t, b2t = params
        logits = torch.relu(x @ w1t + b1t) @ w2t + b2t
        loss = torch.nn.functional.cross_entropy(logits, y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=True):
                p.sub_(g, alpha=LR)

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    runners = {"numpy (hand-written)": numpy_step(), "eagerflow": eagerflow_step()}
    try:
        runners["torch"] = torch_step()
    except ImportError:
        pass
    best = {name: float("inf") for name in runners}
    for _ in range(args.rounds):
        for name, step in runners.items():
            step()
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            best[name] = min(best[name], (time.perf_counter() - start) / args.steps * 1e3)
    print(f"{'framework':<22} {'ms/step':>8} {'x numpy':>8} {'x torch':>8}")
    for name, ms in best.items():
        vs_torch = f"{ms / best['torch']:8.2f}" if "torch" in best else "       -"
        print(f"{name:<22} {ms:8.3f} {ms / best['numpy (hand-written)']:8.2f} {vs_torch}")


if __name__ == "__main__":
    main()

"""Microseconds per optimizer step: eagerflow (eager, and traced in ef.function) vs
PyTorch vs a raw in-place NumPy loop.

One step updates 10 float32 variables of shape (256, 256) from fixed gradients. For each
optimizer the contestants run interleaved (round after round, each timing `--steps`
steps), and the best round counts, so background load on a shared machine hits all of
them alike. The NumPy loop is the floor: the same arithmetic as eagerflow's update rule
with no bookkeeping at all. PyTorch (torch.optim with its default foreach implementation)
is measured when importable, with its default thread count and with one thread (eagerflow
and the NumPy loop run on one core).

Run: python benchmarks/bench_optim.py [--steps 100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import eagerflow as ef

SHAPE, COUNT = (256, 256), 10


def _numpy_sgd(weights, grads, lr=0.01):
    temp = np.empty_like(weights[0])

    def step():
        for w, g in zip(weights, grads, strict=True):
            np.multiply(g, lr, out=temp)
            w -= temp
    return step


def _numpy_momentum(weights, grads, lr=0.01, momentum=0.9):
    temp = np.empty_like(weights[0])
    velocities = [np.zeros_like(w) for w in weights]

    def step():
        for w, g, v in zip(weights, grads, velocities, strict=True):
            np.multiply(g, lr, out=temp)
            v *= momentum
            v -= temp
            w += v
    return step


def _numpy_adam(weights, grads, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    temp = np.empty_like(weights[0])
    ms = [np.zeros_like(w) for w in weights]
    vs = [np.zeros_like(w) for w in weights]
    state = {"t": 0}

    def step():
        state["t"] += 1
        t = state["t"]
        alpha = lr * math.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        for w, g, m, v in zip(weights, grads, ms, vs, strict=True):
            np.subtract(g, m, out=temp)
            np.multiply(temp, 1 - beta_1, out=temp)
            m += temp
            np.multiply(g, g, out=temp)
            np.subtract(temp, v, out=temp)
            np.multiply(temp, 1 - beta_2, out=temp)
            v += temp
            np.sqrt(v, out=temp)
            np.add(temp, epsilon, out=temp)
            np.divide(m, temp, out=temp)
            np.multiply(temp, alpha, out=temp)
            w -= temp
    return step


def _eagerflow(make_optimizer, weights, grads):
    variables = [ef.Variable(w) for w in weights]
    tensors = [ef.constant(g) for g in grads]
    optimizer = make_optimizer()

    def step():
        optimizer.apply_gradients(zip(tensors, variables, strict=True))
    return step


def _eagerflow_traced(make_optimizer, weights, grads):
    """The same update inside `ef.function`: the rule's ops compiled into one plan."""
    variables = [ef.Variable(w) for w in weights]
    tensors = [ef.constant(g) for g in grads]
    optimizer = make_optimizer()
    apply = ef.function(lambda gs: optimizer.apply_gradients(zip(gs, variables, strict=True)))

    def step():
        apply(tensors)
    return step


def _torch(torch, make_optimizer, weights, grads):
    params = [torch.nn.Parameter(torch.from_numpy(w.copy())) for w in weights]
    for p, g in zip(params, grads, strict=True):
        p.grad = torch.from_numpy(g.copy())
    optimizer = make_optimizer(params)
    return optimizer.step


def _time(step, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1e6


def _single_thread(torch, step):
    """A step that `_timed` runs with torch limited to one thread for the whole round."""
    step.torch_single_thread = torch
    return step


def _timed(step, steps: int) -> float:
    torch = getattr(step, "torch_single_thread", None)
    if torch is None:
        return _time(step, steps)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _time(step, steps)
    finally:
        torch.set_num_threads(threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(COUNT)]
    grads = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(COUNT)]
    cases = [
        ("SGD", lambda: ef.optim.SGD(0.01), _numpy_sgd,
         lambda p: torch.optim.SGD(p, lr=0.01)),
        ("SGD momentum=0.9", lambda: ef.optim.SGD(0.01, momentum=0.9), _numpy_momentum,
         lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9)),
        ("Adam", lambda: ef.optim.Adam(0.001), _numpy_adam,
         lambda p: torch.optim.Adam(p, lr=0.001, eps=1e-7)),
    ]
    threads = f", torch threads {torch.get_num_threads()}" if torch is not None else ""
    print(f"apply_gradients on {COUNT} float32 variables of {SHAPE}: microseconds per step "
          f"(best of {args.rounds} rounds x {args.steps} steps{threads})")
    header = (f"{'optimizer':<18}{'ef eager':>9}{'ef traced':>10}{'numpy':>7}{'torch':>7}"
              f"{'torch 1t':>9}")
    print(header + f"{'traced/numpy':>13}{'traced/torch':>13}{'traced/torch 1t':>16}")
    for name, make_ef, make_numpy, make_torch in cases:
        contestants = {
            "eagerflow": _eagerflow(make_ef, [w.copy() for w in weights], grads),
            "traced": _eagerflow_traced(make_ef, [w.copy() for w in weights], grads),
            "numpy": make_numpy([w.copy() for w in weights], grads),
        }
        if torch is not None:
            contestants["torch"] = _torch(torch, make_torch, weights, grads)
            single = _torch(torch, make_torch, weights, grads)
            contestants["torch 1 thread"] = _single_thread(torch, lambda step=single: step())
        for step in contestants.values():  # warm up: slots, caches, allocator
            _timed(step, 3)
        best = {key: float("inf") for key in contestants}
        for _ in range(args.rounds):
            for key, step in contestants.items():
                best[key] = min(best[key], _timed(step, args.steps))
        ours = best["traced"]
        torch_us = best.get("torch", float("nan"))
        torch_1 = best.get("torch 1 thread", float("nan"))
        print(f"{name:<18}{best['eagerflow']:>9.0f}{ours:>10.0f}{best['numpy']:>7.0f}"
              f"{torch_us:>7.0f}{torch_1:>9.0f}{ours / best['numpy']:>13.2f}"
              f"{ours / torch_us:>13.2f}{ours / torch_1:>16.2f}")


if __name__ == "__main__":
    main()

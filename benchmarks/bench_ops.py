"""Per-op overhead: microseconds per call of small ops, eagerflow vs NumPy, PyTorch, TF.

Each op runs without a tape and with an active tape watching its inputs, next to raw
NumPy (the floor), PyTorch (with and without requires_grad) and TensorFlow eager (with
and without GradientTape) when they are importable. Timings are interleaved round by
round and the best round is kept, so machine noise hits every framework alike.

Run: python benchmarks/bench_ops.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import contextlib
import timeit

import numpy as np

import eagerflow as ef

CASES = {
    "add (1,)": ("add", [(1,), (1,)]),
    "add (100,100)": ("add", [(100, 100), (100, 100)]),
    "matmul 2x2": ("matmul", [(2, 2), (2, 2)]),
    "reduce_sum (100,)": ("reduce_sum", [(100,)]),
}


def _numpy(name, arrays):
    fn = {"add": np.add, "matmul": np.matmul, "reduce_sum": np.add.reduce}[name]
    return lambda: fn(*arrays), contextlib.nullcontext


def _eagerflow(name, arrays, tape):
    fn = {"add": ef.add, "matmul": ef.matmul, "reduce_sum": ef.reduce_sum}[name]
    tensors = [ef.constant(a) for a in arrays]

    @contextlib.contextmanager
    def recording():
        with ef.GradientTape() as t:
            t.watch(tensors)
            yield

    return (lambda: fn(*tensors)), (recording if tape else contextlib.nullcontext)


def _torch(name, arrays, grad):
    import torch

    torch.set_num_threads(1)
    fn = {"add": torch.add, "matmul": torch.matmul, "reduce_sum": torch.sum}[name]
    tensors = [torch.tensor(a, requires_grad=grad) for a in arrays]
    return (lambda: fn(*tensors)), contextlib.nullcontext


def _tensorflow(name, arrays, tape):
    import tensorflow as tf

    fn = {"add": tf.add, "matmul": tf.matmul, "reduce_sum": tf.reduce_sum}[name]
    tensors = [tf.constant(a) for a in arrays]

    @contextlib.contextmanager
    def recording():
        with tf.GradientTape() as t:
            t.watch(tensors)
            yield

    return (lambda: fn(*tensors)), (recording if tape else contextlib.nullcontext)


def _available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _time(call, scope, number: int) -> float:
    with scope():
        return timeit.timeit(call, number=number) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    has_torch, has_tf = _available("torch"), _available("tensorflow")
    print(f"{'op':<18} {'framework':<26} {'us/op':>8} {'x numpy':>8}")
    for label, (name, shapes) in CASES.items():
        arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        runners = {
            "numpy": _numpy(name, arrays),
            "eagerflow": _eagerflow(name, arrays, tape=False),
            "eagerflow + tape": _eagerflow(name, arrays, tape=True),
        }
        if has_torch:
            runners["torch"] = _torch(name, arrays, grad=False)
            runners["torch requires_grad"] = _torch(name, arrays, grad=True)
        if has_tf:
            runners["tensorflow eager"] = _tensorflow(name, arrays, tape=False)
            runners["tensorflow + GradientTape"] = _tensorflow(name, arrays, tape=True)
        best = {key: float("inf") for key in runners}
        for _ in range(args.rounds):
            for key, (call, scope) in runners.items():
                best[key] = min(best[key], _time(call, scope, args.number))
        for key, value in best.items():
            print(f"{label:<18} {key:<26} {value:8.3f} {value / best['numpy']:8.2f}")
        print()


if __name__ == "__main__":
    main()

"""Benchmark: elementwise fusion in `ef.function` against the plain plan, raw NumPy,
PyTorch eager and `torch.compile`, on the same 200-op body.

Workload: ``bench_function.py``'s small-op body (25 iterations of 8 ops: ``x * y``,
``z * 0.5 + 0.25``, ``tanh``, ``cos``, ... on two (10,) float32 tensors; 200 ops per
call, two outputs), and the same body at larger sizes, where fusion must step aside.

Variants:

* ``ef plan``: ``ef.function(body, jit_compile=False)``, today's plan (one NumPy call per
  op, buffers reused);
* ``ef fused``: ``ef.function(body)`` with the numba kernel set (``eagerflow[fast]``):
  the chain runs as one program of fusion's compiled interpreter (both outputs);
* ``numpy``: the body written in NumPy directly (the floor of one call per op);
* ``torch eager`` / ``torch.compile``: the body in PyTorch, in a separate process (an
  interpreter with torch, ``--torch-python``; torch.compile needs a C compiler).

Rounds are interleaved: every round times every variant once (the torch process is asked
for its figure in turn), and the table reports medians, wall and CPU time per call, and
ratios. The machine is shared: read the ratios, not the microseconds.

Run: ``python benchmarks/bench_fusion.py [--rounds 15] [--torch-python /tmp/refvenv/bin/python]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one thread each: the tensors are tiny

import numpy as np  # noqa: E402

ITERATIONS = 25  # 8 ops per iteration: 200 ops per call


def body(x, y, tanh, cos):
    """The 200-op body, written once for every framework (`tanh`, `cos` given)."""
    for _ in range(ITERATIONS):
        z = x * y
        z = z * 0.5 + 0.25
        x = tanh(z) - x * 0.1
        y = cos(y) + x
    return x, y


def numpy_body(x, y):
    half, quarter, tenth = np.float32(0.5), np.float32(0.25), np.float32(0.1)
    for _ in range(ITERATIONS):
        z = x * y
        z = z * half + quarter
        x = np.tanh(z) - x * tenth
        y = np.cos(y) + x
    return x, y


def _time(fn, calls):
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


# -- the torch side (its own process) ------------------------------------------------------
def torch_worker(size: int, calls: int) -> None:
    """Answers each line "eager" or "compile" on stdin with the seconds per call."""
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.standard_normal(size).astype(np.float32))
    b = torch.tensor(rng.standard_normal(size).astype(np.float32))

    def eager(x, y):
        return body(x, y, torch.tanh, torch.cos)

    functions = {"eager": eager}
    try:
        compiled = torch.compile(eager)
        for _ in range(3):
            compiled(a, b)
        functions["compile"] = compiled
        error = None
    except Exception as e:  # noqa: BLE001 - reported in the table, not fatal
        error = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    reference = [t.numpy() for t in eager(a, b)]
    print(json.dumps({"ready": True, "compile_error": error,
                      "check": [r.tolist() for r in reference]}), flush=True)
    for line in sys.stdin:
        fn = functions[line.strip()]
        for _ in range(3):
            fn(a, b)
        print(json.dumps(_time(lambda fn=fn: fn(a, b), calls)), flush=True)


class TorchProcess:
    """The torch worker, asked for one figure at a time."""

    def __init__(self, python, size, calls):  # noqa: D107
        self.process = subprocess.Popen(
            [python, __file__, "--torch-worker", str(size), "--calls", str(calls)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": ""})
        self.hello = json.loads(self.process.stdout.readline())

    def measure(self, name):
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()
        return tuple(json.loads(self.process.stdout.readline()))

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


# -- the eagerflow side ---------------------------------------------------------------------
def run(size, rounds, calls, torch_python):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import eagerflow as ef
    from eagerflow.graph.passes import fusion

    rng = np.random.default_rng(0)
    a = rng.standard_normal(size).astype(np.float32)
    b = rng.standard_normal(size).astype(np.float32)
    xe, ye = ef.constant(a), ef.constant(b)

    def ef_body(x, y):
        return body(x, y, ef.tanh, ef.cos)

    plan = ef.function(ef_body, jit_compile=False)
    fused = ef.function(ef_body)
    variants = {"numpy": lambda: numpy_body(a, b), "ef plan": lambda: plan(xe, ye)}
    if fusion.available():
        variants["ef fused"] = lambda: fused(xe, ye)
    programs = sum(n.type == "FusedElementwise"
                   for n in fused.get_concrete_function(xe, ye).optimized_graph.nodes)
    want = numpy_body(a, b)
    for fn in (plan, fused):
        for got, expected in zip(fn(xe, ye), want, strict=True):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)
    torch_process, notes = None, []
    if torch_python:
        try:
            torch_process = TorchProcess(torch_python, size, calls)
            for got, expected in zip(torch_process.hello["check"], want, strict=True):
                np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
            variants["torch eager"] = "eager"
            if torch_process.hello["compile_error"] is None:
                variants["torch.compile"] = "compile"
            else:
                notes.append(f"torch.compile failed: {torch_process.hello['compile_error']}")
        except (OSError, ValueError) as e:
            notes.append(f"no torch process ({e})")
    for fn in variants.values():
        if callable(fn):
            for _ in range(3):
                fn()
    times: dict = {name: [] for name in variants}
    order = list(variants)
    shuffle = random.Random(0)
    for _ in range(rounds):
        shuffle.shuffle(order)
        for name in order:
            target = variants[name]
            times[name].append(_time(target, calls) if callable(target)
                               else torch_process.measure(target))
    if torch_process is not None:
        torch_process.close()
    return {name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
            for name, ts in times.items()}, programs, notes


def report(size, results, programs, notes):
    print(f"\n200 elementwise ops on two ({size},) float32 tensors, per call "
          f"(ef fused: {programs} compiled programs)")
    header = f"  {'variant':<16}{'µs/call':>10}{'CPU/wall':>10}"
    references = [r for r in ("ef plan", "torch.compile", "numpy") if r in results]
    header += "".join(f"{'vs ' + r:>17}" for r in references)
    print(header)
    for name, (wall, cpu) in results.items():
        line = f"  {name:<16}{wall * 1e6:>10.1f}{cpu / wall:>10.2f}"
        line += "".join(f"{results[r][0] / wall:>16.2f}x" for r in references)
        print(line)
    for note in notes:
        print(f"  ({note})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=200, help="calls per figure")
    parser.add_argument("--sizes", default="10,1000,100000",
                        help="tensor sizes, comma-separated")
    parser.add_argument("--torch-python", default="/tmp/refvenv/bin/python",
                        help="an interpreter with torch for the torch rows ('' for none)")
    parser.add_argument("--torch-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.torch_worker:
        torch_worker(args.torch_worker, args.calls)
        return
    python = args.torch_python if args.torch_python and os.path.exists(args.torch_python) \
        else None
    for size in (int(s) for s in args.sizes.split(",")):
        calls = max(5, args.calls * 10 // max(size, 10)) if size > 1000 else args.calls
        results, programs, notes = run(size, args.rounds, calls, python)
        report(size, results, programs, notes)


if __name__ == "__main__":
    main()

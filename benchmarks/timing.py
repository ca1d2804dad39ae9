"""Interleaved timing shared by the benchmarks.

The machine is shared and its load changes by the second, so no case is timed in one
block: each round runs every case in turn, which exposes all of them to the same load
and keeps their ratios meaningful. Import it as ``import timing`` (benchmarks run as
scripts, with this folder first on ``sys.path``).
"""

from __future__ import annotations

import random
import time


def interleaved(cases: dict, rounds: int, *, warmup: int = 1, calls: int = 1, block: int = 1,
                pause: float = 0.0, shuffle: bool = False) -> dict:
    """Seconds per call of every case, ``block`` figures per round: ``{name: [seconds]}``.

    Args:
        cases: ``{name: zero-argument callable}``.
        rounds: how many times every case takes its turn.
        warmup: untimed calls of every case before the first round (traces, caches,
            allocator, files written once).
        calls: calls per figure (the figure is their mean), for calls too short to time
            one by one.
        block: figures per turn.
        pause: seconds to sleep at the start of every turn, followed by one untimed call.
            After a matmul, OpenBLAS and OpenMP keep their idle threads spinning for up
            to ~0.2 s, which on two cores would steal a core from whichever library runs
            next.
        shuffle: run the cases in a new (seeded) order every round, so that no case
            always runs right after another.
    """
    for fn in cases.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in cases}
    order = list(cases)
    rng = random.Random(0)
    for _ in range(rounds):
        if shuffle:
            rng.shuffle(order)
        for name in order:
            fn = cases[name]
            if pause:
                time.sleep(pause)
                fn()
            for _ in range(block):
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                times[name].append((time.perf_counter() - start) / calls)
    return times

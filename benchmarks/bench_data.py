"""Input-pipeline throughput: eagerflow's Dataset next to tf.data, torch and raw NumPy.

One epoch of (60000, 784) float32 images + int64 labels through

1. ``from_tensor_slices((x, y)).shuffle(10000).batch(128).prefetch(2)``
2. the same with ``.map(lambda x, y: (x * 2.0, y))`` before the batch
3. as 2, with ``num_parallel_calls=AUTOTUNE``

reported in batches per second (469 batches per epoch). The floor is a raw NumPy loop
that permutes indices and gathers each batch (the least any pipeline must do), with
the ``* 2.0`` applied per batch for pipelines 2-3. tf.data and a torch ``DataLoader``
(shuffle=True, batch_size=128, the map in ``__getitem__``) run when importable. Runs
are interleaved (eagerflow, reference, floor, repeated) on a shared machine and each
figure is the median epoch; ratios compare medians.

Usage:
    PYTHONPATH=. python benchmarks/bench_data.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import eagerflow as ef

N, FEATURES, BATCH, BUFFER = 60000, 784, 128, 10000


def epoch_rate(make_iterable) -> float:
    start = time.perf_counter()
    batches = 0
    for _ in make_iterable():
        batches += 1
    return batches / (time.perf_counter() - start)


def eagerflow_pipelines(x, y):
    slices = ef.data.Dataset.from_tensor_slices((x, y))
    return {
        "shuffle.batch.prefetch": slices.shuffle(BUFFER).batch(BATCH).prefetch(2),
        "shuffle.map.batch.prefetch": slices.shuffle(BUFFER).map(
            lambda a, b: (a * 2.0, b)).batch(BATCH).prefetch(2),
        "shuffle.map(AUTOTUNE).batch.prefetch": slices.shuffle(BUFFER).map(
            lambda a, b: (a * 2.0, b), num_parallel_calls=ef.data.AUTOTUNE
        ).batch(BATCH).prefetch(2),
    }


def tensorflow_pipelines(x, y):
    try:
        import tensorflow as tf
    except ImportError:
        return None
    slices = tf.data.Dataset.from_tensor_slices((x, y))
    return {
        "shuffle.batch.prefetch": slices.shuffle(BUFFER).batch(BATCH).prefetch(2),
        "shuffle.map.batch.prefetch": slices.shuffle(BUFFER).map(
            lambda a, b: (a * 2.0, b)).batch(BATCH).prefetch(2),
        "shuffle.map(AUTOTUNE).batch.prefetch": slices.shuffle(BUFFER).map(
            lambda a, b: (a * 2.0, b), num_parallel_calls=tf.data.AUTOTUNE
        ).batch(BATCH).prefetch(2),
    }


def torch_pipelines(x, y):
    try:
        import torch
        from torch.utils.data import DataLoader, Dataset, TensorDataset
    except ImportError:
        return None

    class Doubled(Dataset):
        def __init__(self, xs, ys):
            self.xs, self.ys = xs, ys

        def __len__(self):
            return len(self.xs)

        def __getitem__(self, i):
            return self.xs[i] * 2.0, self.ys[i]

    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    plain = DataLoader(TensorDataset(xt, yt), batch_size=BATCH, shuffle=True)
    doubled = DataLoader(Doubled(xt, yt), batch_size=BATCH, shuffle=True)
    return {"shuffle.batch.prefetch": plain, "shuffle.map.batch.prefetch": doubled}


def numpy_floor(x, y, double: bool):
    def run():
        order = np.random.permutation(len(x))
        for start in range(0, len(x), BATCH):
            index = order[start:start + BATCH]
            batch = x[index]
            yield (batch * 2.0 if double else batch), y[index]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.random((N, FEATURES), dtype=np.float32)
    y = rng.integers(0, 10, N).astype(np.int64)
    systems = {"eagerflow": eagerflow_pipelines(x, y)}
    for name, build in (("tf.data", tensorflow_pipelines), ("torch", torch_pipelines)):
        pipelines = build(x, y)
        if pipelines is not None:
            systems[name] = pipelines
    floors = {name: numpy_floor(x, y, double="map" in name) for name in systems["eagerflow"]}
    print(f"{N} x {FEATURES} float32, batch {BATCH}, shuffle buffer {BUFFER}; "
          f"batches/s, median of {args.rounds} epochs (higher is better)")
    for pipeline in systems["eagerflow"]:
        rates = {name: [] for name in systems if pipeline in systems[name]}
        rates["numpy floor"] = []
        for _ in range(args.rounds):
            for name, pipelines in systems.items():
                if pipeline in pipelines:
                    rates[name].append(epoch_rate(pipelines[pipeline].__iter__))
            rates["numpy floor"].append(epoch_rate(floors[pipeline]))
        medians = {name: statistics.median(values) for name, values in rates.items()}
        print(f"\n{pipeline}")
        ours = medians["eagerflow"]
        for name, rate in medians.items():
            ratio = "" if name == "eagerflow" else f"   eagerflow / {name} = {ours / rate:.2f}x"
            print(f"  {name:12s} {rate:9.1f}{ratio}")


if __name__ == "__main__":
    main()

"""Training throughput on the common workloads, eagerflow against PyTorch and Keras 3.

Workloads (synthetic data with fixed seeds; the network, the optimizer, the loss and the
batch are the same in every framework; samples per second of training):

* ``mlp_sgd``: 784-256-256-10 MLP, SGD(0.01), sparse cross-entropy from logits, batch 128;
* ``mlp_adam``: the same MLP with Adam(1e-3);
* ``cnn``: conv3x3(32)-maxpool-conv3x3(64)-maxpool-dense(10) on 28x28x1, Adam, batch 64;
* ``autoencoder``: the keras.io denoising autoencoder (two Conv2D + pool, two strided
  Conv2DTranspose, a Conv2D(1) sigmoid output), binary cross-entropy, Adam, batch 64;
* ``lstm``: LSTM(64) over 50 steps of 32 features, dense(10), Adam, batch 64;
* ``gru``: Embedding(10000, 64) + GRU(64) over 100 tokens, dense(1) logit, Adam, batch 64;
* ``transformer``: one encoder block (4 heads of 16, feed-forward 128, post-norm) over 64
  tokens of width 64, mean pool, dense(10), Adam, batch 32;
* ``fn200``: ``bench_fusion``'s 200 small elementwise ops on two (10,) tensors, traced
  (``ef.function``, ``torch.compile``, ``tf.function``): calls per second.

Frameworks: ``ef`` (the default install: NumPy kernels, ``EAGERFLOW_KERNELS=numpy``),
``ef-fast`` (the ``fast`` extra's numba kernels, ``EAGERFLOW_KERNELS=numba``), ``torch``
(a hand-written loop, the usual way) and ``keras`` (``fit`` on TensorFlow). Every figure
comes from its own process (so its peak RSS is its own and no library's threads slow
another), frameworks are interleaved round by round, and the table gives medians, ranges
and ratios to PyTorch, with the load average around the run, the CPU model and its flags:
ratios move between CPUs.

Run: ``python benchmarks/bench_workloads.py [--rounds 5] [--workloads ...] [--frameworks ...]
[--torch-python PY] [--keras-python PY] [--threads N]``: PyTorch and Keras run in the
interpreters given (default: this one), with this checkout on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (batch, timed steps, warm-up steps) per workload
SIZES = {"mlp_sgd": (128, 200, 5), "mlp_adam": (128, 200, 5), "cnn": (64, 40, 3),
         "autoencoder": (64, 20, 3), "lstm": (64, 20, 3), "gru": (64, 20, 3),
         "transformer": (32, 30, 3), "fn200": (1, 3000, 100)}
WORKLOADS = list(SIZES)
FRAMEWORKS = ["ef", "ef-fast", "torch", "keras"]
KERNELS = {"ef": "numpy", "ef-fast": "numba"}


def data(workload: str):
    """Inputs and targets for warm-up plus timed steps, the same in every framework."""
    batch, steps, warm = SIZES[workload]
    n = batch * (steps + warm)
    rng = np.random.default_rng(0)
    if workload in ("mlp_sgd", "mlp_adam"):
        return rng.random((n, 784), np.float32), rng.integers(0, 10, n)
    if workload == "cnn":
        return rng.random((n, 28, 28, 1), np.float32), rng.integers(0, 10, n)
    if workload == "autoencoder":
        x = rng.random((n, 28, 28, 1), np.float32)
        return x, x
    if workload == "lstm":
        return rng.standard_normal((n, 50, 32)).astype(np.float32), rng.integers(0, 10, n)
    if workload == "gru":
        return rng.integers(0, 10000, (n, 100)), rng.integers(0, 2, n).astype(np.float32)
    if workload == "transformer":
        return rng.standard_normal((n, 64, 64)).astype(np.float32), rng.integers(0, 10, n)
    raise ValueError(f"data: unknown workload {workload!r}")


# -- eagerflow and Keras share one builder: the same Keras API -------------------------------
def keras_style_model(lib, workload: str):
    """(model, loss) built with `lib` (``eagerflow`` or ``keras``)."""
    L = lib.layers
    sparse = lib.losses.SparseCategoricalCrossentropy(from_logits=True)
    if workload in ("mlp_sgd", "mlp_adam"):
        inputs = lib.Input((784,))
        h = L.Dense(256, activation="relu")(inputs)
        h = L.Dense(256, activation="relu")(h)
        return lib.Model(inputs, L.Dense(10)(h)), sparse
    if workload == "cnn":
        inputs = lib.Input((28, 28, 1))
        h = L.MaxPooling2D(2)(L.Conv2D(32, 3, activation="relu")(inputs))
        h = L.MaxPooling2D(2)(L.Conv2D(64, 3, activation="relu")(h))
        return lib.Model(inputs, L.Dense(10)(L.Flatten()(h))), sparse
    if workload == "autoencoder":
        inputs = lib.Input((28, 28, 1))
        h = L.Conv2D(32, 3, activation="relu", padding="same")(inputs)
        h = L.MaxPooling2D(2, padding="same")(h)
        h = L.Conv2D(32, 3, activation="relu", padding="same")(h)
        h = L.MaxPooling2D(2, padding="same")(h)
        h = L.Conv2DTranspose(32, 3, strides=2, activation="relu", padding="same")(h)
        h = L.Conv2DTranspose(32, 3, strides=2, activation="relu", padding="same")(h)
        out = L.Conv2D(1, 3, activation="sigmoid", padding="same")(h)
        return lib.Model(inputs, out), lib.losses.BinaryCrossentropy()
    if workload == "lstm":
        inputs = lib.Input((50, 32))
        return lib.Model(inputs, L.Dense(10)(L.LSTM(64)(inputs))), sparse
    if workload == "gru":
        inputs = lib.Input((100,), dtype="int32")
        h = L.GRU(64)(L.Embedding(10000, 64)(inputs))
        return lib.Model(inputs, L.Dense(1)(h)), lib.losses.BinaryCrossentropy(from_logits=True)
    if workload == "transformer":
        inputs = lib.Input((64, 64))
        attention = L.MultiHeadAttention(num_heads=4, key_dim=16)(inputs, inputs)
        h = L.LayerNormalization(epsilon=1e-5)(L.Add()([inputs, attention]))
        ff = L.Dense(64)(L.Dense(128, activation="relu")(h))
        h = L.LayerNormalization(epsilon=1e-5)(L.Add()([h, ff]))
        return lib.Model(inputs, L.Dense(10)(L.GlobalAveragePooling1D()(h))), sparse
    raise ValueError(f"keras_style_model: unknown workload {workload!r}")


def fit_seconds(lib, workload: str, x, y) -> float:
    model, loss = keras_style_model(lib, workload)
    batch, steps, warm = SIZES[workload]
    optimizer = (lib.optimizers.SGD(0.01) if workload == "mlp_sgd"
                 else lib.optimizers.Adam(1e-3))
    model.compile(optimizer=optimizer, loss=loss)
    cut = batch * warm
    model.fit(x[:cut], y[:cut], batch_size=batch, epochs=1, verbose=0, shuffle=False)
    start = time.perf_counter()
    model.fit(x[cut:], y[cut:], batch_size=batch, epochs=1, verbose=0, shuffle=False)
    return time.perf_counter() - start


def run_ef(workload: str, x, y) -> float:
    sys.path.insert(0, ROOT)
    import eagerflow as ef

    ef.random.set_seed(0)
    if workload == "fn200":
        return fn200_seconds(ef.function(_fn200_body(ef.tanh, ef.cos)), ef.constant, workload)
    return fit_seconds(ef, workload, x, y)


def run_keras(workload: str, x, y) -> float:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf

    threads = os.environ.get("BENCH_THREADS")
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(int(threads))
    keras.utils.set_random_seed(0)
    if workload == "fn200":
        return fn200_seconds(tf.function(_fn200_body(tf.tanh, tf.cos)), tf.constant, workload)
    return fit_seconds(keras, workload, x, y)


def _fn200_body(tanh, cos):
    sys.path.insert(0, HERE)
    from bench_fusion import body

    return lambda a, b: body(a, b, tanh, cos)


def fn200_seconds(fn, constant, workload: str) -> float:
    """Seconds for the timed calls of the 200-op function (`fn` traces on its first call)."""
    _, steps, warm = SIZES[workload]
    rng = np.random.default_rng(0)
    a = constant(rng.standard_normal(10).astype(np.float32))
    b = constant(rng.standard_normal(10).astype(np.float32))
    for _ in range(warm):
        fn(a, b)
    start = time.perf_counter()
    for _ in range(steps):
        fn(a, b)
    return time.perf_counter() - start


# -- PyTorch: the loop its users write ---------------------------------------------------
def torch_model(torch, workload: str):
    nn = torch.nn
    if workload in ("mlp_sgd", "mlp_adam"):
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                             nn.Linear(256, 10)), nn.CrossEntropyLoss()
    if workload == "cnn":
        return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(64 * 5 * 5, 10)), nn.CrossEntropyLoss()
    if workload == "autoencoder":
        # the output's sigmoid is folded into the loss, as Keras computes it from the logits
        return nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.ConvTranspose2d(32, 32, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
            nn.ConvTranspose2d(32, 32, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
            nn.Conv2d(32, 1, 3, padding=1)), nn.BCEWithLogitsLoss()
    if workload == "lstm":
        class LastState(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn, self.head = nn.LSTM(32, 64, batch_first=True), nn.Linear(64, 10)

            def forward(self, x):
                return self.head(self.rnn(x)[1][0][0])

        return LastState(), nn.CrossEntropyLoss()
    if workload == "gru":
        class Tokens(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(10000, 64)
                self.rnn, self.head = nn.GRU(64, 64, batch_first=True), nn.Linear(64, 1)

            def forward(self, x):
                return self.head(self.rnn(self.embed(x))[1][0])[:, 0]

        return Tokens(), nn.BCEWithLogitsLoss()
    if workload == "transformer":
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0,
                                                        batch_first=True)
                self.head = nn.Linear(64, 10)

            def forward(self, x):
                return self.head(self.block(x).mean(dim=1))

        return Encoder(), nn.CrossEntropyLoss()
    raise ValueError(f"torch_model: unknown workload {workload!r}")


def run_torch(workload: str, x, y) -> float:
    import torch

    if os.environ.get("BENCH_THREADS"):
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
    torch.manual_seed(0)
    if workload == "fn200":
        compiled = torch.compile(_fn200_body(torch.tanh, torch.cos))
        return fn200_seconds(compiled, torch.tensor, workload)
    model, loss_fn = torch_model(torch, workload)
    if x.ndim == 4:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        y = x if workload == "autoencoder" else y
    inputs = torch.from_numpy(x)
    targets = torch.from_numpy(y)
    optimizer = (torch.optim.SGD(model.parameters(), lr=0.01) if workload == "mlp_sgd"
                 else torch.optim.Adam(model.parameters(), lr=1e-3))
    batch, steps, warm = SIZES[workload]

    def train(first: int, count: int) -> None:
        for step in range(first, first + count):
            xb = inputs[step * batch:(step + 1) * batch]
            yb = targets[step * batch:(step + 1) * batch]
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()

    train(0, warm)
    start = time.perf_counter()
    train(warm, steps)
    return time.perf_counter() - start


RUNNERS = {"ef": run_ef, "ef-fast": run_ef, "torch": run_torch, "keras": run_keras}


def worker(framework: str, workload: str) -> dict:
    x, y = data(workload) if workload != "fn200" else (None, None)
    seconds = RUNNERS[framework](workload, x, y)
    batch, steps, _ = SIZES[workload]
    info = {"per_second": batch * steps / seconds,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}
    if framework.startswith("ef"):
        import eagerflow as ef

        info["kernels"] = ef.config.get_kernel_set()
    return info


# -- the driver ----------------------------------------------------------------------------
def cpu_description() -> str:
    model, flags = platform.processor() or platform.machine(), ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":  # (the same on every core)
                    model = value.strip()
                if key.strip() == "flags" and not flags:
                    wanted = ("avx", "avx2", "fma", "avx512f", "avx512_vnni", "amx_tile")
                    flags = " ".join(f for f in value.split() if f in wanted)
    except OSError:
        pass
    return f"{model}; {os.cpu_count()} logical CPUs; SIMD: {flags or 'unknown'}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workloads", nargs="+", default=WORKLOADS, choices=WORKLOADS)
    parser.add_argument("--frameworks", nargs="+", default=FRAMEWORKS, choices=FRAMEWORKS)
    parser.add_argument("--torch-python", default=sys.executable)
    parser.add_argument("--keras-python", default=sys.executable)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for BLAS/OpenMP/numba/torch/TF in every worker "
                             "(default: each library's own)")
    parser.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "WORKLOAD"))
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    if args.threads:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "NUMBA_NUM_THREADS", "BENCH_THREADS"):
            env[name] = str(args.threads)
    python = {"ef": sys.executable, "ef-fast": sys.executable, "torch": args.torch_python,
              "keras": args.keras_python}
    results = {(w, f): [] for w in args.workloads for f in args.frameworks}
    failures: dict = {}
    load_before = os.getloadavg()
    for round_index in range(args.rounds):
        for workload in args.workloads:
            for framework in args.frameworks:
                if (workload, framework) in failures:
                    continue
                worker_env = dict(env, EAGERFLOW_KERNELS=KERNELS.get(framework, "numpy"))
                out = subprocess.run(
                    [python[framework], os.path.abspath(__file__), "--worker", framework,
                     workload], capture_output=True, text=True, timeout=3600, env=worker_env)
                if out.returncode != 0:
                    failures[(workload, framework)] = out.stderr.strip().splitlines()[-1:]
                    continue
                results[(workload, framework)].append(json.loads(out.stdout.splitlines()[-1]))
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    load_after = os.getloadavg()
    print(f"CPU: {cpu_description()}")
    print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} "
          f"{load_before[2]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f} "
          f"{load_after[2]:.2f}; threads: {args.threads or 'default'}; rounds: {args.rounds}")
    print(f"{'workload':12} {'framework':9} {'per s':>9} {'range':>17} {'vs torch':>9} "
          f"{'vs keras':>9} {'peak MiB':>9}  kernels")
    for workload in args.workloads:
        medians = {f: statistics.median(r["per_second"] for r in results[(workload, f)])
                   for f in args.frameworks if results[(workload, f)]}
        for framework in args.frameworks:
            runs = results[(workload, framework)]
            if not runs:
                reason = failures.get((workload, framework), ["not run"])
                print(f"{workload:12} {framework:9} failed: {' '.join(reason)[:90]}")
                continue
            speeds = [r["per_second"] for r in runs]
            median = medians[framework]
            vs = [f"{median / medians[ref]:.2f}x" if ref in medians else "-"
                  for ref in ("torch", "keras")]
            peak = statistics.median(r["peak_mib"] for r in runs)
            print(f"{workload:12} {framework:9} {median:9.0f} "
                  f"{f'[{min(speeds):.0f}-{max(speeds):.0f}]':>17} {vs[0]:>9} {vs[1]:>9} "
                  f"{peak:9.0f}  {runs[0].get('kernels', '')}")
    print("per s: samples per second of training (fn200: calls per second); medians of the "
          "rounds, each figure from its own process")
    return 0


if __name__ == "__main__":
    sys.exit(main())

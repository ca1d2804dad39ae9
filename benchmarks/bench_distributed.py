"""Data-parallel scaling of `fit` on MPI: 1 process vs 2 ranks (issue 20).

The model is the MLP 784-256-256-10 (269,322 float32 parameters: 1.08 MB of gradients per
step) trained by ``model.fit`` with Adam at a global batch of 128 on synthetic MNIST-shaped
data. Both cases use one BLAS thread per process, so 2 ranks use the machine's 2 cores
and 1 process uses one: the scaling efficiency is ``samples/s(2 ranks) / (2 x
samples/s(1 process))``. Each case runs in fresh processes (launched by this script:
``python`` alone, ``mpiexec -n 2 python`` for the ranks), which time one epoch after an
untimed one (the trace); the cases alternate over the rounds (the machine is shared) and
the medians are reported. The same training is run as references in the same rounds:
a hand-written NumPy MLP with Adam whose ranks reduce one packed gradient buffer with
``MPI_Allreduce`` (the floor without a framework), and PyTorch's
``DistributedDataParallel`` on its gloo backend (when torch is importable; launched the
same way, one thread per process). Also reported, from the 2-rank runs: the allreduce time per
step and per MB (MPIStrategy's own counters; the time includes waiting for the slower
rank), the share of a step spent in the allreduce, a bare ``MPI_Allreduce`` of 1 MB
timed alone (the transport's own cost, without training around it), and a control: two
independent processes at batch 64 each, run at once without MPI, which shows how much
of two cores the machine gives two processes at that moment (the ceiling for 2 ranks).

Usage::

    python benchmarks/bench_distributed.py [--rounds 3] [--steps 200] [--no-references]

(for the PyTorch reference, run it with an interpreter that has torch and mpi4py, with
eagerflow on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import time

GLOBAL_BATCH = 128
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def worker(steps: int, batch: int) -> None:
    """One case, run in each launched process; rank 0 prints one JSON line."""
    import numpy as np

    import eagerflow as ef

    strategy = ef.distribute.MPIStrategy()
    x, y = _data(steps, batch)
    with strategy.scope():
        model = ef.Sequential([ef.layers.Dense(256, activation="relu", input_shape=(784,)),
                               ef.layers.Dense(256, activation="relu"),
                               ef.layers.Dense(10)])
        model.compile(optimizer="adam", metrics=["accuracy"],
                      loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)  # traces
    strategy.reset_communication_stats()
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    stats = strategy.communication_stats()
    result = {"samples_per_second": steps * batch / seconds,
              "step_seconds": seconds / steps, **stats}
    if strategy.num_replicas_in_sync > 1:
        from mpi4py import MPI

        buffer = np.ones(262_144, np.float32)  # 1 MiB
        comm = MPI.COMM_WORLD
        for _ in range(5):
            comm.Allreduce(MPI.IN_PLACE, buffer)
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(50):
            comm.Allreduce(MPI.IN_PLACE, buffer)
        result["bare_allreduce_seconds_per_mb"] = (time.perf_counter() - start) / 50 / (
            buffer.nbytes / 1e6)
    if strategy.is_chief:
        print(json.dumps(result), flush=True)


def _data(steps: int, batch: int):
    """The synthetic data every worker trains on: the same on every rank."""
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.random((steps * batch, 784), dtype=np.float32),
            rng.integers(0, 10, steps * batch))


def _epochs(step, x, y, batch: int, size: int, rank: int, steps: int) -> float:
    """One untimed epoch, then one timed: seconds of the timed one. Like `fit`, every
    rank draws the same shuffle and keeps rows ``[rank*b, (rank+1)*b)`` of each global
    batch, ``b = batch / size``."""
    import numpy as np

    rng = np.random.default_rng(1)
    share = batch // size
    seconds = 0.0
    for _ in range(2):
        order = rng.permutation(steps * batch)
        start = time.perf_counter()
        for first in range(0, steps * batch, batch):
            rows = order[first + rank * share:first + (rank + 1) * share]
            step(x[rows], y[rows])
        seconds = time.perf_counter() - start
    return seconds


def numpy_worker(steps: int, batch: int) -> None:
    """The floor without a framework: the same MLP, loss and Adam written by hand in
    NumPy (in-place updates, gradients written straight into one flat buffer), reduced
    with one ``MPI_Allreduce`` of that buffer per step when launched by mpiexec."""
    import numpy as np

    comm = None
    if "PMI_RANK" in os.environ:
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
    size, rank = (comm.Get_size(), comm.Get_rank()) if comm else (1, 0)
    x, y = _data(steps, batch)
    rng = np.random.default_rng(2)
    shapes = [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]
    counts = [int(np.prod(shape)) for shape in shapes]
    offsets = np.cumsum([0] + counts)

    def views(flat):
        return [flat[a:b].reshape(shape)
                for a, b, shape in zip(offsets[:-1], offsets[1:], shapes, strict=True)]

    params_flat = np.zeros(offsets[-1], np.float32)
    params = views(params_flat)
    for w in params[::2]:
        limit = np.sqrt(6 / sum(w.shape))
        w[...] = rng.uniform(-limit, limit, w.shape)
    grads_flat = np.empty_like(params_flat)
    grads = views(grads_flat)
    m, v = np.zeros_like(params_flat), np.zeros_like(params_flat)
    scratch = np.empty_like(params_flat)
    lr, beta1, beta2, epsilon = 1e-3, 0.9, 0.999, 1e-7
    iteration = [0]

    def step(xb, yb):
        w1, b1, w2, b2, w3, b3 = params
        h1 = np.maximum(xb @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        logits = h2 @ w3 + b3
        logits -= logits.max(axis=1, keepdims=True)
        np.exp(logits, out=logits)
        logits /= logits.sum(axis=1, keepdims=True)
        logits[np.arange(len(yb)), yb] -= 1
        logits /= len(yb)
        g1, gb1, g2, gb2, g3, gb3 = grads
        np.matmul(h2.T, logits, out=g3)
        np.sum(logits, axis=0, out=gb3)
        d2 = logits @ w3.T
        d2 *= h2 > 0
        np.matmul(h1.T, d2, out=g2)
        np.sum(d2, axis=0, out=gb2)
        d1 = d2 @ w2.T
        d1 *= h1 > 0
        np.matmul(xb.T, d1, out=g1)
        np.sum(d1, axis=0, out=gb1)
        if comm is not None:
            comm.Allreduce(MPI.IN_PLACE, grads_flat)
            np.divide(grads_flat, size, out=grads_flat)
        iteration[0] += 1
        t = iteration[0]
        np.multiply(m, beta1, out=m)
        np.multiply(grads_flat, 1 - beta1, out=scratch)
        np.add(m, scratch, out=m)
        np.multiply(v, beta2, out=v)
        np.square(grads_flat, out=scratch)
        np.multiply(scratch, 1 - beta2, out=scratch)
        np.add(v, scratch, out=v)
        np.sqrt(v, out=scratch)
        np.add(scratch, epsilon, out=scratch)
        np.divide(m, scratch, out=scratch)
        np.multiply(scratch, lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t), out=scratch)
        np.subtract(params_flat, scratch, out=params_flat)

    seconds = _epochs(step, x, y, batch, size, rank, steps)
    if rank == 0:
        print(json.dumps({"samples_per_second": steps * batch / seconds,
                          "step_seconds": seconds / steps}), flush=True)


def torch_worker(steps: int, batch: int) -> None:
    """PyTorch's reference: the same MLP and Adam, wrapped in DistributedDataParallel
    (gloo backend, over TCP on localhost) when launched by mpiexec."""
    import torch

    torch.set_num_threads(1)
    size, rank = int(os.environ.get("PMI_SIZE", "1")), int(os.environ.get("PMI_RANK", "0"))
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    if size > 1:
        import torch.distributed as dist

        dist.init_process_group(
            "gloo", init_method=f"tcp://127.0.0.1:{os.environ['BENCH_TORCH_PORT']}",
            rank=rank, world_size=size)
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    x, y = _data(steps, batch)

    def step(xb, yb):
        optimizer.zero_grad()
        loss_fn(model(torch.from_numpy(xb)), torch.from_numpy(yb)).backward()
        optimizer.step()

    seconds = _epochs(step, x, y, batch, size, rank, steps)
    if rank == 0:
        print(json.dumps({"samples_per_second": steps * batch / seconds,
                          "step_seconds": seconds / steps}), flush=True)
    if size > 1:
        torch.distributed.barrier()  # no rank tears gloo down while another still talks
        torch.distributed.destroy_process_group()


WORKERS = {"eagerflow": worker, "numpy": numpy_worker, "torch": torch_worker}


def _start(command: list, steps: int, batch: int, impl: str = "eagerflow") -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI_", "PMIX_", "OMPI_", "HYDRA_"))}
    env.update(ONE_THREAD)
    env["PYTHONPATH"] = str(pathlib.Path(__file__).resolve().parents[1])
    if impl == "torch":
        with socket.socket() as probe:  # a free port for gloo's rendezvous
            probe.bind(("127.0.0.1", 0))
            env["BENCH_TORCH_PORT"] = str(probe.getsockname()[1])
    return subprocess.Popen([*command, sys.executable, __file__, "--worker", impl, "--steps",
                             str(steps), "--batch", str(batch)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _result(process: subprocess.Popen) -> dict:
    stdout, stderr = process.communicate(timeout=600)
    if process.returncode:
        raise RuntimeError(f"{process.args} failed:\n{stdout}\n{stderr}")
    return json.loads(stdout.strip().splitlines()[-1])


def _run(command: list, steps: int, batch: int = GLOBAL_BATCH, impl: str = "eagerflow") -> dict:
    return _result(_start(command, steps, batch, impl))


def _pair(steps: int) -> dict:
    """Two independent processes at batch 64 each, at once, without MPI: what the machine
    gives two single-threaded processes (the ceiling for 2 ranks on a shared machine)."""
    first, second = (_start([], steps, GLOBAL_BATCH // 2) for _ in range(2))
    slower = max(_result(first)["step_seconds"], _result(second)["step_seconds"])
    return {"samples_per_second": GLOBAL_BATCH / slower, "step_seconds": slower}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200, help="steps per timed epoch")
    parser.add_argument("--no-references", action="store_true",
                        help="time eagerflow only (no NumPy-by-hand or PyTorch runs)")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, default=GLOBAL_BATCH, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        WORKERS[args.worker](args.steps, args.batch)
        return
    mpiexec = pathlib.Path(sys.executable).with_name("mpiexec")
    mpiexec = str(mpiexec) if mpiexec.exists() else shutil.which("mpiexec")
    if mpiexec is None:
        sys.exit("bench_distributed: no mpiexec; install the `mpi` extra "
                 "(pip install -e '.[mpi]')")
    references = [] if args.no_references else ["numpy"] + (
        ["torch"] if importlib.util.find_spec("torch") else [])
    runs: dict = {"1 process": [], "2 ranks": [], "one rank's share": [], "2 processes": []}
    for impl in references:
        runs[f"{impl} 1 process"], runs[f"{impl} 2 ranks"] = [], []
    for _ in range(args.rounds):  # interleaved: the cases see the same load
        runs["1 process"].append(_run([], args.steps))
        runs["2 ranks"].append(_run([mpiexec, "-n", "2"], args.steps))
        # One process at batch 64: the compute of one rank's share, for the cost model.
        runs["one rank's share"].append(_run([], args.steps, GLOBAL_BATCH // 2))
        runs["2 processes"].append(_pair(args.steps))
        for impl in references:
            runs[f"{impl} 1 process"].append(_run([], args.steps, impl=impl))
            runs[f"{impl} 2 ranks"].append(_run([mpiexec, "-n", "2"], args.steps, impl=impl))

    def median(case, key):
        return statistics.median(r[key] for r in runs[case])

    one, two = median("1 process", "samples_per_second"), median("2 ranks", "samples_per_second")
    print(f"MLP 784-256-256-10, Adam, global batch {GLOBAL_BATCH}, 1 BLAS thread per "
          f"process, {args.steps} steps timed, median of {args.rounds} interleaved rounds")
    print(f"{'':>26}{'1 process':>12}{'2 ranks':>12}")
    print(f"{'samples/s':>26}{one:>12.0f}{two:>12.0f}")
    print(f"{'step time (ms)':>26}{median('1 process', 'step_seconds') * 1e3:>12.2f}"
          f"{median('2 ranks', 'step_seconds') * 1e3:>12.2f}")
    ratios = [b["samples_per_second"] / (2 * a["samples_per_second"])
              for a, b in zip(runs["1 process"], runs["2 ranks"], strict=True)]
    best = max(r["samples_per_second"] for r in runs["2 ranks"]) / (
        2 * max(r["samples_per_second"] for r in runs["1 process"]))
    print(f"scaling efficiency: {statistics.median(ratios):.1%} (median of the rounds' "
          f"ratios; {min(ratios):.0%}..{max(ratios):.0%}; fastest run vs fastest run "
          f"{best:.1%}); speed-up {two / one:.2f}x on 2 ranks")
    names = {"numpy": "NumPy by hand, MPI_Allreduce", "torch": "PyTorch DDP (gloo)"}
    for impl in references:
        ref_one = median(f"{impl} 1 process", "samples_per_second")
        ref_two = median(f"{impl} 2 ranks", "samples_per_second")
        ref_ratios = [b["samples_per_second"] / (2 * a["samples_per_second"]) for a, b in zip(
            runs[f"{impl} 1 process"], runs[f"{impl} 2 ranks"], strict=True)]
        print(f"reference {names[impl]}: 1 process {ref_one:.0f}, 2 ranks {ref_two:.0f} "
              f"samples/s, efficiency {statistics.median(ref_ratios):.1%} "
              f"({min(ref_ratios):.0%}..{max(ref_ratios):.0%}); eagerflow 2 ranks / "
              f"{impl} 2 ranks: {two / ref_two:.2f}x")
    per_step = [r["allreduce_seconds"] / max(r["gradient_steps"], 1) for r in runs["2 ranks"]]
    megabytes = [r["allreduce_bytes"] / max(r["allreduce_calls"], 1) / 1e6
                 for r in runs["2 ranks"]]
    calls = [r["allreduce_calls"] / max(r["gradient_steps"], 1) for r in runs["2 ranks"]]
    share = [r["allreduce_seconds"] / (r["step_seconds"] * max(r["gradient_steps"], 1))
             for r in runs["2 ranks"]]
    step_allreduce = statistics.median(per_step)
    size = statistics.median(megabytes)
    pairs = [b["samples_per_second"] / p["samples_per_second"]
             for b, p in zip(runs["2 ranks"], runs["2 processes"], strict=True)]
    print(f"machine ceiling: 2 independent processes at batch 64 (no MPI) reach "
          f"{median('2 processes', 'samples_per_second'):.0f} samples/s together, "
          f"{median('2 processes', 'samples_per_second') / (2 * one):.0%} of twice 1 process; "
          f"2 ranks reach {statistics.median(pairs):.0%} of that ceiling")
    print(f"allreduce per step: {statistics.median(calls):.2f} calls, {size:.2f} MB, "
          f"{step_allreduce * 1e3:.2f} ms ({step_allreduce / size * 1e3:.2f} ms/MB, "
          "waiting for the slower rank included)")
    print(f"share of a step in the allreduce: {statistics.median(share):.1%}")
    print("bare MPI_Allreduce of 1 MB alone: "
          f"{median('2 ranks', 'bare_allreduce_seconds_per_mb') * 1e3:.3f} ms/MB")
    # The least disturbed run estimates the compute best on a shared machine.
    cost_model(min(r["step_seconds"] for r in runs["one rank's share"]), PARAMETER_BYTES)


PARAMETER_BYTES = 269_322 * 4
# Assumed per-message latency and achieved share of the link's bandwidth (see the guide).
NETWORKS = {"10 Gb/s Ethernet (TCP)": (10e9, 25e-6), "100 Gb/s (RDMA)": (100e9, 3e-6)}


def cost_model(compute: float, size: int, per_rank: int = GLOBAL_BATCH // 2) -> None:
    """Expected weak scaling (each rank keeps `per_rank` rows per step) for 8 and 64 ranks
    from the measured compute time of one rank's share and a ring allreduce:
    ``2 (N-1)/N * bytes / bandwidth + 2 (N-1) * latency``, not overlapped with compute,
    at 80% of the link's bandwidth."""
    print(f"\nring-allreduce cost model: {size / 1e6:.2f} MB per step, compute "
          f"{compute * 1e3:.2f} ms per step for {per_rank} rows per rank (fastest run)")
    print(f"{'network':>26}{'ranks':>7}{'allreduce ms':>14}{'step ms':>9}"
          f"{'samples/s':>11}{'efficiency':>12}")
    for name, (bits, latency) in NETWORKS.items():
        bandwidth = 0.8 * bits / 8
        for ranks in (8, 64):
            allreduce = 2 * (ranks - 1) / ranks * size / bandwidth + 2 * (ranks - 1) * latency
            step = compute + allreduce
            print(f"{name:>26}{ranks:>7}{allreduce * 1e3:>14.2f}{step * 1e3:>9.2f}"
                  f"{ranks * per_rank / step:>11.0f}{compute / step:>12.0%}")


if __name__ == "__main__":
    main()

"""Convolution and pooling speed: eagerflow vs raw NumPy im2col vs PyTorch (if importable).

Times, in milliseconds, the forward pass and forward+backward (gradients w.r.t. the input
and the filter) of

* conv2d 3x3 SAME, (64, 28, 28, 1) -> 32 channels,
* conv2d 3x3 SAME, (64, 14, 14, 32) -> 64 channels,
* the small CNN's own layers (``bench_training.py --workloads cnn``): conv2d 3x3 VALID,
  (64, 28, 28, 1) -> 32 and (64, 13, 13, 32) -> 64,
* max_pool2d 2x2 stride 2 on (64, 28, 28, 32),

plus the first-layer case (filter gradient only) for the first convolution. eagerflow and
NumPy use NHWC float32; PyTorch uses NCHW float32 with ``torch.set_num_threads`` equal to
the BLAS thread count NumPy uses. The machine is shared and noisy, so the implementations
are timed interleaved (a few calls of each per round, see `measure`); medians and bests
are shown, with the ratios eagerflow / PyTorch (target: forward+backward <= 2x) and
eagerflow / NumPy.

Run: ``python benchmarks/bench_conv.py [--rounds 10]`` (PyTorch from the reference venv:
``PYTHONPATH=. /work/refvenv/bin/python benchmarks/bench_conv.py``).

Notes: alternatives measured and not kept (issue 19; 2-core AMD EPYC, numpy 2.4 with
OpenBLAS 0.3.31, caches flushed between calls unless said otherwise). Where the small
CNN step (``bench_training.py --workloads cnn``, 13.2-13.8 ms) is quoted, it is the
median of three runs.

* Conv input gradient, (64, 11, 11, 64) -> (64, 13, 13, 32): kept, one batched matmul
  giving a contiguous block per kernel offset, then nine strided adds (3.6 ms). One
  plain GEMM into the ``(n, oh, ow, kh, kw, c)`` column layout, then adds from its strided
  slices: 5.8 ms. The batch cut into chunks of 4-32 images (GEMM and adds per chunk, so
  the gradient stays in cache): 3.5-4.6 ms, the smaller GEMMs lose what the cache gains.
* Max-pool gradient, (64, 26, 26, 32) 2x2: kept, four ``dy * (winner == k)`` writes into
  the strided quarters (1.5-1.7 ms). A reused mask buffer: 1.5 ms; writes through a 6-D
  view of the gradient: 1.4-1.5 ms; one broadcast multiply over a one-hot of the
  winners: 1.65 ms; copy then zero the losers (``copyto(where=)``): 5.6 ms; numexpr
  ``where`` (cache hot): 3.4 ms. The pass is bound by writing the 5.5 MB gradient.
* The first conv's filter gradient computed from the pooled gradient per window offset,
  never writing the routed full-size gradient (a graph pass): 1.73 ms against 1.82 ms for
  max-pool gradient plus filter gradient, 0.1 ms of a 13 ms step; not worth the pass.
* Threads. OpenBLAS's idle worker busy-waits after every product (CPU/wall 2.0 on the CNN
  step). ``OPENBLAS_THREAD_TIMEOUT=4`` puts it to sleep at once: CPU/wall 1.5, and the
  step gets slower (14.5-15.0 ms against 13.3-14.4), the worker waking late for the next
  product. eagerflow's own threads instead (BLAS at one thread through threadpoolctl,
  conv, pooling and matmul kernels split over the batch on a 2-thread pool): 13.3-13.8 ms
  against 13.2-13.3 ms, CPU/wall 1.6. The memory-bound kernels do not scale on this
  machine (a 5.5 MB multiply: 147 us on one thread, 184 us split over two), a hand-off to
  a pool thread costs 12 us (a lock) to 60 us (``ThreadPoolExecutor``), and split GEMMs
  lose BLAS efficiency. So eagerflow leaves BLAS's threads alone and changes no
  process-wide setting.
* What remains of the gap on the (64, 14, 14, 32) -> 64 layer is the GEMM: OpenBLAS's
  ``(12544, 288) @ (288, 64)`` takes 3.25 ms (142 GFLOP/s), PyTorch's oneDNN convolution
  of the whole layer 2.55 ms.
* The small CNN's layer 2, (64, 13, 13, 32) -> 64 VALID, fwd+bwd 7.4-8.2 ms against
  PyTorch's 4.6-5.8 (this script) or 6.6-7.8 ms (the same calls back to back). Its three
  GEMMs of 285 MFLOP each take 1.5-1.6 ms apiece (~184 GFLOP/s, about this CPU's
  practical peak on 2 cores: OpenBLAS runs its AVX-512 kernels); what separates us
  from oneDNN's direct convolution is building the im2col matrix (~0.5 ms) and the
  input gradient's col2im (~1.5 ms in the step). Measured, not kept: GEMMs that
  accumulate into the output (``scipy.linalg.blas.sgemm`` with ``beta=1``, shifted rows
  of the flattened padded grid, no im2col or col2im): input gradient 2.47-2.70 ms
  against 2.85-3.11, forward 2.32 against 2.66, filter gradient 4.3-10 ms against
  3.0-3.2 (nine skinny GEMMs), so only the input gradient gains, ~0.4 ms of a 13 ms
  step, not worth a SciPy dependency. Chunking the col2im adds over the batch (1-16
  images a chunk: 0.82-2.0 ms against 0.76 in isolation) and one numexpr sum per region
  of the gradient (2.0 ms) were slower.
* PyTorch's own speed on the small CNN is bimodal from process to process: six fresh
  processes in a row ran at 4.9k, 7.3k, 3.5k, 3.8k, 3.8k and 6.9k samples/s, with
  ``max_pool2d_with_indices`` and ``convolution_backward`` taking 60% of its slow steps.
  So ``bench_training.py --workloads cnn`` needs many rounds, and its median ratio moves
  by +-15% between runs.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import timing
from numpy.lib.stride_tricks import as_strided

import eagerflow as ef

try:
    import torch
    import torch.nn.functional as torch_f
except ImportError:  # PyTorch is optional: its columns are left out
    torch = None

THREADS = int(os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
              or os.cpu_count() or 1)


# -- raw NumPy floor: the same im2col algorithm, without a framework ---------------------
def np_conv_forward(x, w, padding="SAME"):
    n, h, width, c = x.shape
    kh, kw, _, out_c = w.shape
    if padding == "SAME":
        xp = np.zeros((n, h + kh - 1, width + kw - 1, c), x.dtype)
        xp[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + width] = x
    else:
        xp = x
    oh, ow = xp.shape[1] - kh + 1, xp.shape[2] - kw + 1
    s = xp.strides
    view = as_strided(xp, (n, oh, ow, kh, kw, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    cols = view.reshape(n * oh * ow, -1)
    return (cols @ w.reshape(-1, out_c)).reshape(n, oh, ow, out_c), cols


def np_conv_forward_backward(x, w, dy, input_grad=True, padding="SAME"):
    n, h, width, c = x.shape
    kh, kw, _, out_c = w.shape
    _, cols = np_conv_forward(x, w, padding)
    dy_flat = dy.reshape(-1, out_c)
    dw = (cols.T @ dy_flat).reshape(w.shape)
    if not input_grad:
        return dw
    oh, ow = dy.shape[1:3]
    blocks = np.matmul(dy_flat, w.reshape(kh * kw, c, out_c).transpose(0, 2, 1))
    dxp = np.zeros((n, oh + kh - 1, ow + kw - 1, c), x.dtype)
    for k in range(kh * kw):
        i, j = divmod(k, kw)
        dxp[:, i:i + oh, j:j + ow] += blocks[k].reshape(n, oh, ow, c)
    if padding == "SAME":
        return dxp[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + width], dw
    return dxp, dw


def np_pool_forward(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def np_pool_forward_backward(x, dy):
    n, h, w, c = x.shape
    windows = x.reshape(n, h // 2, 2, w // 2, 2, c)
    y = windows.max(axis=(2, 4), keepdims=True)
    mask = windows == y  # ties share the gradient here: the floor skips tie-breaking
    return (mask * dy.reshape(n, h // 2, 1, w // 2, 1, c)).reshape(x.shape)


# -- eagerflow ----------------------------------------------------------------------------
def ef_conv_forward_backward(x, w, input_grad=True, padding="SAME"):
    with ef.GradientTape() as tape:
        if input_grad:
            tape.watch(x)
        tape.watch(w)
        y = ef.nn.conv2d(x, w, 1, padding)
    return tape.gradient(y, [x, w] if input_grad else [w])


def ef_pool_forward_backward(x):
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.max_pool2d(x, 2, 2, "VALID")
    return tape.gradient(y, x)


# -- PyTorch ------------------------------------------------------------------------------
def torch_conv_forward(x, w, padding="SAME"):
    with torch.no_grad():
        return torch_f.conv2d(x, w, padding=1 if padding == "SAME" else 0)


def torch_conv_forward_backward(x, w, input_grad=True, padding="SAME"):
    x.requires_grad_(input_grad)
    y = torch_f.conv2d(x, w, padding=1 if padding == "SAME" else 0)
    return torch.autograd.grad(y, [x, w] if input_grad else [w], torch.ones_like(y))


def torch_pool_forward(x):
    with torch.no_grad():
        return torch_f.max_pool2d(x, 2)


def torch_pool_forward_backward(x):
    y = torch_f.max_pool2d(x, 2)
    return torch.autograd.grad(y, [x], torch.ones_like(y))


# -- harness ------------------------------------------------------------------------------
def conv_case(shape, out_c, rng, padding="SAME"):
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((3, 3, shape[3], out_c), dtype=np.float32) * 0.1
    out_sizes = shape[1:3] if padding == "SAME" else (shape[1] - 2, shape[2] - 2)
    dy = np.ones((shape[0], *out_sizes, out_c), np.float32)
    xe, we = ef.constant(x), ef.constant(w)
    impls = {
        "forward": {
            "eagerflow": lambda: ef.nn.conv2d(xe, we, 1, padding),
            "numpy": lambda: np_conv_forward(x, w, padding),
        },
        "forward+backward": {
            "eagerflow": lambda: ef_conv_forward_backward(xe, we, padding=padding),
            "numpy": lambda: np_conv_forward_backward(x, w, dy, padding=padding),
        },
    }
    if shape[3] == 1:
        impls["fwd+bwd, filter grad only"] = {
            "eagerflow": lambda: ef_conv_forward_backward(xe, we, False, padding),
            "numpy": lambda: np_conv_forward_backward(x, w, dy, False, padding),
        }
    if torch is not None:
        xt = torch.tensor(x.transpose(0, 3, 1, 2).copy())
        wt = torch.tensor(w.transpose(3, 2, 0, 1).copy(), requires_grad=True)
        impls["forward"]["torch"] = lambda: torch_conv_forward(xt, wt, padding)
        impls["forward+backward"]["torch"] = (
            lambda: torch_conv_forward_backward(xt, wt, padding=padding))
        if shape[3] == 1:
            impls["fwd+bwd, filter grad only"]["torch"] = (
                lambda: torch_conv_forward_backward(xt, wt, False, padding))
    return impls


def pool_case(shape, rng):
    x = rng.standard_normal(shape, dtype=np.float32)
    dy = np.ones((shape[0], shape[1] // 2, shape[2] // 2, shape[3]), np.float32)
    xe = ef.constant(x)
    impls = {
        "forward": {
            "eagerflow": lambda: ef.nn.max_pool2d(xe, 2, 2, "VALID"),
            "numpy": lambda: np_pool_forward(x),
        },
        "forward+backward": {
            "eagerflow": lambda: ef_pool_forward_backward(xe),
            "numpy": lambda: np_pool_forward_backward(x, dy),
        },
    }
    if torch is not None:
        xt = torch.tensor(x.transpose(0, 3, 1, 2).copy(), requires_grad=True)
        impls["forward"]["torch"] = lambda: torch_pool_forward(xt)
        impls["forward+backward"]["torch"] = lambda: torch_pool_forward_backward(xt)
    return impls


def measure(impls: dict, rounds: int, block: int = 3, pause: float = 0.25) -> dict:
    """(median, best) milliseconds per call for each implementation.

    Each round gives every implementation a turn: a pause (BLAS threads of the previous
    one stop spinning), one untimed call, then `block` timed calls (`timing.interleaved`).
    """
    times = timing.interleaved(impls, rounds, warmup=0, block=block, pause=pause)
    return {name: (1e3 * float(np.median(t)), 1e3 * float(np.min(t)))
            for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(THREADS)
    rng = np.random.default_rng(0)
    cases = [
        ("conv2d 3x3 SAME (64,28,28,1)->32", conv_case((64, 28, 28, 1), 32, rng)),
        ("conv2d 3x3 SAME (64,14,14,32)->64", conv_case((64, 14, 14, 32), 64, rng)),
        # The small CNN's own two layers (bench_training.py --workloads cnn).
        ("CNN layer 1 VALID (64,28,28,1)->32",
         conv_case((64, 28, 28, 1), 32, rng, "VALID")),
        ("CNN layer 2 VALID (64,13,13,32)->64",
         conv_case((64, 13, 13, 32), 64, rng, "VALID")),
        ("max_pool2d 2x2 (64,28,28,32)", pool_case((64, 28, 28, 32), rng)),
    ]
    print(f"threads: {THREADS} (NumPy's BLAS and torch), {args.rounds} interleaved rounds of 3 "
          "calls each; median ms (best ms in brackets)")
    print(f"{'case':<34} {'pass':<28} {'eagerflow':>15} {'numpy':>15} {'torch':>15} "
          f"{'ef/torch':>14} {'ef/numpy':>9}")
    for title, passes in cases:
        for pass_name, impls in passes.items():
            ms = measure(impls, args.rounds)
            cells = [f"{ms[k][0]:7.2f} ({ms[k][1]:5.2f})" if k in ms else f"{'-':>15}"
                     for k in ("eagerflow", "numpy", "torch")]
            if "torch" in ms:
                ratio = (f"{ms['eagerflow'][0] / ms['torch'][0]:5.2f} "
                         f"({ms['eagerflow'][1] / ms['torch'][1]:5.2f})")
            else:
                ratio = "-"
            print(f"{title:<34} {pass_name:<28} {' '.join(cells)} {ratio:>14} "
                  f"{ms['eagerflow'][0] / ms['numpy'][0]:9.2f}")

if __name__ == "__main__":
    main()

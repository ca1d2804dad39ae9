"""The one module that imports numba: how eagerflow's compiled kernels are compiled.

Kernel modules (``*_jit.py`` beside this one) write their loops as plain Python and
decorate them with `kernel` (one thread) or `parallel_kernel` (``prange`` loops over
both cores). They are imported only when the numba kernel set is active and one of their
ops first runs (see `kernel_sets.py`), so ``import eagerflow`` never loads numba.

* **Disk cache.** Every kernel is compiled with ``cache=True``: the machine code of each
  signature (dtype, rank, layout) is written the first time it is compiled and loaded by
  later processes. numba writes it to ``__pycache__`` beside the kernel's source when that
  directory is writable (an editable install, or a wheel in a writable environment), and
  otherwise to the user's cache directory (``~/.cache/numba`` on Linux); the environment
  variable ``NUMBA_CACHE_DIR`` puts it elsewhere. A cache entry is keyed by the source
  file's path and modification time, so an edited kernel recompiles.
* **Threads.** The threading layer is chosen explicitly, before any parallel kernel is
  compiled: ``"threadsafe"`` (TBB if installed, else OpenMP), because eagerflow ops may run
  in several Python threads at once (a dataset's ``map`` beside the training step) and
  numba's fallback ``workqueue`` layer aborts the process on concurrent launches. A user
  setting ``NUMBA_THREADING_LAYER`` keeps their choice.
* **One pool at a time.** A thread pool whose idle threads spin takes the second core
  from another pool's work: OpenBLAS's workers spin ~0.1 s after a product, OpenMP's ~1 ms
  after a parallel kernel (``GOMP_SPINCOUNT``, below). So work split over the cores runs
  in one of eagerflow's two kinds of threads at a time: compiled work in numba's pool
  (`run_parts`; the kernels call BLAS from inside, on one thread per part), and Python
  tasks that call BLAS between kernels (a convolution's blocks) in eagerflow's own
  threads (`run_split`). Both mark the threads busy (`blas_threads.note_split`), and large
  matrix products then join numba's pool instead of OpenBLAS's (`matmul_jit`).

Examples:
    >>> from eagerflow.ops.kernels import jit
    >>> jit.threads() >= 1
    True
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable
from typing import Any

import numba
from llvmlite import ir as _llvm_ir
from numba.core import extending as _extending

from eagerflow.ops.kernels import blas_threads

# OpenMP's idle threads spin for GOMP_SPINCOUNT iterations of a ``pause`` instruction
# after a parallel kernel before they sleep. Waking a sleeping thread costs more than the
# work of most kernels here: on the 2-core VM, a parallel loop of two 24 us halves took
# 80-97 us with passive waiting (worse than one thread, 48 us) and 32-35 us with the
# threads spinning. 40,000 iterations are ~1 ms there (a ``pause`` takes 25 ns on AMD Zen,
# ~40 on recent Intel cores), which spans the gaps between a training step's parallel
# kernels; libgomp's own default is 300,000. libgomp reads this when numba first loads it
# (at the first parallel kernel, not at `import numba`), so it is set here, unless the
# user chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT).
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "40000")
_numba_config: Any = numba.config  # (numba's config attributes are set at run time)
if "NUMBA_THREADING_LAYER" not in os.environ:
    _numba_config.THREADING_LAYER = "threadsafe"

prange = numba.prange

# cache=True: compiled once per signature, then loaded from disk (see above).
# nogil=True: a kernel releases the GIL, so a dataset thread can run Python meanwhile.
kernel = numba.njit(cache=True, nogil=True)
parallel_kernel = numba.njit(cache=True, nogil=True, parallel=True)
# Sums whose order is no part of the result (convolutions, like BLAS): reassociation lets
# the compiler vectorise reductions, contraction fuses multiply-adds. No other fastmath
# flag: NaN and inf propagate as in NumPy. Kernels that must match a NumPy formula bit for
# bit (optimizer updates) use `kernel`/`parallel_kernel`.
parallel_sum_kernel = numba.njit(cache=True, nogil=True, parallel=True,
                                 fastmath={"reassoc", "contract"})
# The same on one thread: row reductions of a few thousand elements (layer normalization)
# finish before a pool would wake up, and under load parallel launches cost more.
sum_kernel = numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
# Divisions as NumPy's (inf or nan on a zero divisor) instead of numba's default test
# that raises ZeroDivisionError: that per-element branch keeps LLVM from vectorizing a
# loop with a division (the fused Adam update ran 2-3x slower with it). No fastmath: the
# results are IEEE operation for operation, bit-identical to the NumPy formulas.
elementwise_kernel = numba.njit(cache=True, nogil=True, error_model="numpy")
# A per-element formula two kernels share (an optimizer's update, written into new
# arrays or in place): inlined into each caller at numba's IR level, so the caller's loop
# is the same code as if the formula were written in it (and vectorizes the same).
inline_formula = numba.njit(inline="always", error_model="numpy")


def _float32_from_bits(typingctx, bits):  # pragma: no cover - compiled (inlined)
    signature = numba.types.float32(numba.types.int32)

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llvm_ir.FloatType())

    return signature, codegen


float32_from_bits: Any = _extending.intrinsic(_float32_from_bits)
"""``float32_from_bits(bits)`` in a kernel: the float32 whose IEEE bits are the int32 `bits`
(a bit cast, one register move), for formulas that build a power of two from its exponent
field: ``(k + 127) << 23`` is ``2.0**k`` for -126 <= k <= 127. numba has no scalar ``view``;
this inlines LLVM's ``bitcast``, so the loop around it still vectorizes."""


def threads() -> int:
    """The number of threads the parallel kernels use (numba's ``get_num_threads``)."""
    return int(numba.get_num_threads())


_pool: list = []
# A forked child has none of the parent's threads: it starts its own pool when it needs one.
os.register_at_fork(after_in_child=_pool.clear)


@inline_formula
def part_bounds(count, parts, part):  # pragma: no cover - compiled (inlined)
    """The range ``(start, stop)`` of `count` items that part `part` of `parts` takes, in a
    kernel's ``prange`` over its parts (`run_parts`): equal sizes to within one item."""
    return count * part // parts, count * (part + 1) // parts


def part_count(count: int) -> int:
    """How many parts `run_parts` splits `count` items into: one per thread, at most
    `count`, at least one (for arrays a kernel's parts fill, one row each)."""
    return max(1, min(threads(), count))


def run_parts(parallel: Callable[..., Any], count: int, *args: Any) -> Any:
    """Calls ``parallel(parts, *args)``, a `parallel_kernel` whose ``prange`` over `parts`
    gives each thread its range of `count` items (`part_bounds`); returns its result.

    `parts` is one per thread of numba's pool, at most `count` (`part_count`). BLAS
    called inside the kernel (`gemm_jit`, numba's ``np.dot``) runs on one thread per part
    (`blas_threads.one_blas_thread`), and the call is noted as a split
    (`blas_threads.note_split`), so large products between such kernels join the pool
    (`matmul_jit`) instead of waking OpenBLAS's. The hand-off to the pool's spinning
    threads costs a few microseconds (see ``GOMP_SPINCOUNT`` above), against 60-120 us for
    `run_split`'s Python threads, which this replaces wherever the task is compiled code.
    A kernel a Python thread other than the pool's runs meanwhile gets its own threads
    (the ``threadsafe`` layer): the results are the same, the cores shared.

    Each kernel module writes its own few-line `parallel` kernel around its range kernel
    (``for part in prange(parts): kernel(..., *part_bounds(count, parts, part))``): one
    generic wrapper taking the range kernel as an argument works, but numba cannot cache it
    on disk (its argument's type is a dispatcher, new in every process), and it compiled
    again in every process: ~4 s of the LSTM workload's first step.
    """
    blas_threads.note_split()
    return blas_threads.one_blas_thread(parallel, part_count(count), *args)


def run_split(task: Callable[[int, int], Any], count: int) -> list:
    """Runs ``task(start, stop)`` over `count` items split into one range per thread.

    The ranges run in Python threads (one in the caller's), each calling sequential
    kernels (`kernel`, which release the GIL) and BLAS at one thread: a convolution's
    blocks then keep both cores busy with packing *and* products, where numba's pool and
    OpenBLAS's pool taking turns spin against each other (a conv layer's forward and both
    gradients: 214 ms wall and 71 ms CPU against 42 ms and 14 ms, on the loaded 2-core
    machine, same run). Returns the tasks' results in range order.

    For tasks with Python in them. Waking a Python thread costs 60-120 us on the 2-core
    VM, so a task that is one compiled kernel runs in numba's pool instead (`run_parts`).
    """
    parts = part_count(count)
    if parts == 1:  # (one range: BLAS keeps its threads)
        return [task(0, count)]
    bounds = [(count * i // parts, count * (i + 1) // parts) for i in range(parts)]
    blas_threads.note_split()
    with blas_threads.blas_limited(1):
        if not _pool:
            _pool.append(concurrent.futures.ThreadPoolExecutor(
                threads() - 1, thread_name_prefix="kernel-split"))
        futures = [_pool[0].submit(task, *b) for b in bounds[1:]]
        first = task(*bounds[0])
        return [first] + [f.result() for f in futures]

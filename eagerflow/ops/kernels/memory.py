"""Keeps glibc's malloc from handing freed arrays back to the kernel between steps.

A training step allocates the same temporaries every time (a batch, activations,
gradients, tens to hundreds of KiB each) and frees them at the end. glibc serves an
allocation above its *mmap threshold* with a fresh ``mmap`` and returns it to the kernel on
``free``, and it trims the top of the heap once more than the *trim threshold* is free there.
Either way the next step touches new pages, and every 4 KiB page costs a minor fault and a
zero fill: hundreds of faults per step, a third of an MLP step's time on this machine.

glibc adapts both thresholds at run time (freeing an mmapped chunk raises them), so whether a
process falls into that regime depends on what it happened to free first. Pinning them, as
glibc's own dynamic rule would end up doing after one large transient allocation, makes it
the same every time:

* mmap threshold 32 MiB (glibc's upper bound for its dynamic threshold on 64-bit systems):
  smaller arrays come from the heap and their pages are reused;
* trim threshold 64 MiB (twice that, glibc's own ratio): at most this much free memory stays
  at the top of the heap.

Arrays above 32 MiB are still mapped and unmapped directly, so large data does not linger.

Traced functions (``fit``'s step, ``@ef.function``) no longer depend on this: each compiled
plan keeps the buffers of its intermediate results between calls (the executor's memory
plan, `graph/passes/buffer_reuse.py`), so a traced MLP step takes no page faults with
glibc's static 128 KiB threshold either (262 per step without the memory plan). Pinning
still helps eager loops, whose temporaries come from malloc every step.
This changes the whole process's allocator, so eagerflow never does it on its own: call
``ef.config.pin_malloc_thresholds()``, or set the environment variable
``EAGERFLOW_PIN_MALLOC=1`` before importing eagerflow. Linux with glibc only (elsewhere it
does nothing and returns ``{}``).

Examples:
    >>> from eagerflow.ops.kernels import memory
    >>> set(memory.malloc_settings()) <= {"mmap_threshold", "trim_threshold"}
    True
"""

from __future__ import annotations

import ctypes
import os
import platform

MMAP_THRESHOLD = 32 * 1024 * 1024
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD

# From <malloc.h>.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_settings: dict = {}


def _libc_mallopt():
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None


def pin_if_requested(environ=None) -> dict:
    """Pins the thresholds when ``EAGERFLOW_PIN_MALLOC`` is 1/true/yes/on (run at import).

    Args:
        environ: the environment to read (default `os.environ`).

    Returns:
        The settings applied (see `malloc_settings`).
    """
    environ = os.environ if environ is None else environ
    if environ.get("EAGERFLOW_PIN_MALLOC", "").strip().lower() in ("1", "true", "yes", "on"):
        return pin_malloc_thresholds()
    return dict(_settings)


def pin_malloc_thresholds() -> dict:
    """Pins glibc's mmap threshold at 32 MiB and its trim threshold at 64 MiB, so that the
    temporaries of training steps reuse their heap pages instead of faulting fresh ones in
    (see the module docstring). This affects the whole process; it is idempotent.

    Returns:
        The settings applied, as in `malloc_settings`: empty when the C library is not
        glibc.

    Examples:
        >>> import eagerflow as ef
        >>> set(ef.config.pin_malloc_thresholds()) <= {"mmap_threshold", "trim_threshold"}
        True
    """
    if _settings:
        return dict(_settings)
    mallopt = _libc_mallopt()
    if mallopt is None:
        return {}
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success; the trim threshold goes first so that the heap is never
    # trimmed below the new mmap threshold in between.
    if mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1:
        _settings["trim_threshold"] = TRIM_THRESHOLD
    if mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1:
        _settings["mmap_threshold"] = MMAP_THRESHOLD
    return dict(_settings)


def malloc_settings() -> dict:
    """The malloc thresholds eagerflow pinned, in bytes (empty if it left malloc alone)."""
    return dict(_settings)

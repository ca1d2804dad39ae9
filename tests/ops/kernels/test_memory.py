"""Pinning glibc's malloc thresholds (opt-in) makes per-step temporaries reuse their pages."""

import json
import os
import platform
import subprocess
import sys

import pytest

from eagerflow.ops.kernels import memory

glibc_only = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="the thresholds are glibc's")

# Eight 512 KiB arrays alive at once, then freed, twenty times: the shape of a training step.
# With glibc's adaptive thresholds the heap top is trimmed after every round (4 MiB freed
# is over the 1 MiB trim threshold the first round adapts to), so every round faults its
# pages in again; with the thresholds pinned, rounds after the first reuse the same pages.
_PROBE = """
import json, resource, sys
import eagerflow as ef
import numpy as np

def one_round():
    arrays = [np.ones(128 * 1024, np.float32) for _ in range(8)]
    del arrays

for _ in range(3):
    one_round()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    one_round()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"settings": ef.config.malloc_settings(), "faults_per_round": faults / 20}))
"""


def _probe(**env):
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@glibc_only
def test_import_pins_the_thresholds_and_steps_reuse_pages():
    result = _probe(EAGERFLOW_PIN_MALLOC="1")
    assert result["settings"] == {"mmap_threshold": memory.MMAP_THRESHOLD,
                                  "trim_threshold": memory.TRIM_THRESHOLD}
    # 4 MiB per round is 1024 pages; pinned, a round faults (almost) none of them in.
    assert result["faults_per_round"] < 100


@glibc_only
def test_import_leaves_malloc_alone_unless_asked():
    environ = {k: v for k, v in os.environ.items() if k != "EAGERFLOW_PIN_MALLOC"}
    out = subprocess.run([sys.executable, "-c", "import eagerflow as ef, json; "
                          "print(json.dumps(ef.config.malloc_settings()))"],
                         capture_output=True, text=True, env=environ, timeout=120, check=True)
    assert json.loads(out.stdout) == {}
    assert _probe(EAGERFLOW_PIN_MALLOC="0")["settings"] == {}


def test_only_explicit_values_opt_in():
    assert memory.pin_if_requested({"EAGERFLOW_PIN_MALLOC": "off"}) == memory.malloc_settings()
    assert memory.pin_if_requested({}) == memory.malloc_settings()

"""The kernel-set mechanism (eagerflow/ops/kernels/kernel_sets.py, ef.config.*_kernel_set): the
choice from EAGERFLOW_KERNELS, no silent fallback, and a kernel installed by op name. Runs
with or without numba (numba's absence is simulated where it matters)."""

import subprocess
import sys

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import dispatch
from eagerflow.ops.kernels import kernel_sets


def _square(x):
    return x * x


def _square_grad(dy, y, x):
    return dy * 2 * x


def _fast_square(x):
    return np.square(x)


def _kernel_square_grad(dy, y, x):
    return dy * x + x * dy  # the same value, another rule: tells which rule ran


@pytest.fixture
def restore_kernel_set():
    """Declares the op ``KernelTestSquare`` for the test, and removes it (and its kernels)
    after, with the kernel set the test found."""
    before = kernel_sets.active()
    op = dispatch.primitive("KernelTestSquare")(_square)
    op.gradient(_square_grad)
    yield op
    kernel_sets.unregister("KernelTestSquare")
    del dispatch.OPS["KernelTestSquare"]  # (the op-table meta-tests must not see it)
    kernel_sets.set_active(before)


@pytest.fixture
def numba_present(monkeypatch):
    monkeypatch.setattr(kernel_sets, "missing", lambda: [])


def _run(env_value):
    code = "import eagerflow as ef; print(ef.config.get_kernel_set())"
    env = {"EAGERFLOW_KERNELS": env_value, "PATH": ""}
    import os
    env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False)


def test_the_environment_chooses_the_set_at_import():
    done = _run("numpy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "numpy"
    done = _run("fortran")
    assert done.returncode != 0
    assert "EAGERFLOW_KERNELS" in done.stderr and "'fortran'" in done.stderr


def test_import_does_not_load_numba():
    code = ("import sys, eagerflow as ef; x = ef.ones([1, 4, 4, 1]); "
            "ef.nn.conv2d(x, ef.ones([3, 3, 1, 1]), 1, 'SAME') if ef.config.get_kernel_set() "
            "== 'numpy' else None; print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_numba_asked_but_missing_raises(restore_kernel_set, monkeypatch):
    monkeypatch.setattr(kernel_sets, "missing", lambda: ["numba"])
    with pytest.raises(ImportError, match=r"set_kernel_set: the numba kernel set .* not "
                                          r"installed.*eagerflow\[fast\]"):
        ef.config.set_kernel_set("numba")
    monkeypatch.setenv("EAGERFLOW_KERNELS", "numba")
    with pytest.raises(ImportError, match="environment variable EAGERFLOW_KERNELS"):
        kernel_sets.requested()
    monkeypatch.setenv("EAGERFLOW_KERNELS", "auto")
    assert kernel_sets.requested() == "numpy"


def test_bad_names_raise(restore_kernel_set):
    with pytest.raises(ValueError, match=r"one of \['numpy', 'numba'\]. Received: 'cuda'"):
        ef.config.set_kernel_set("cuda")
    with pytest.raises(KeyError, match="no op is named 'NoSuchOp'"):
        kernel_sets.register("NoSuchOp", forward=_fast_square)
    with pytest.raises(ValueError, match="give a forward and/or a grad"):
        kernel_sets.register("KernelTestSquare")


def test_registering_before_the_ops_gradient_rule_raises():
    # The op's own rule is captured at registration and restored when the set changes.
    @dispatch.primitive("KernelTestNoRuleYet")
    def _cube(x):
        return x * x * x

    try:
        with pytest.raises(ValueError, match="'KernelTestNoRuleYet' has no gradient rule yet"):
            kernel_sets.register("KernelTestNoRuleYet", forward=_fast_square)
        assert "KernelTestNoRuleYet" not in kernel_sets.registered()
    finally:
        del dispatch.OPS["KernelTestNoRuleYet"]  # (other tests walk every op)


def test_a_kernel_runs_only_in_its_set(restore_kernel_set, numba_present):
    kernel_sets.register("KernelTestSquare", forward=f"{__name__}:_fast_square",
                      grad=_kernel_square_grad)
    assert kernel_sets.registered()["KernelTestSquare"] == ("forward", "grad")
    x = ef.constant([1.0, -3.0])
    kernel_sets.set_active("numba")
    assert ef.config.get_kernel_set() == "numba"
    op = dispatch.OPS["KernelTestSquare"]
    assert op.grad is _kernel_square_grad
    np.testing.assert_array_equal(dispatch.execute(op, (x,)).numpy(), [1.0, 9.0])
    assert op.forward is _fast_square  # loaded on first call, then put in the op
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = dispatch.execute(op, (x,))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, -6.0])
    kernel_sets.set_active("numpy")
    assert op.forward is _square is kernel_sets.numpy_forward("KernelTestSquare")
    assert op.grad is _square_grad
    assert kernel_sets.kernel_forward("KernelTestSquare") is _fast_square


def test_a_broken_kernel_module_is_an_error_not_a_fallback(restore_kernel_set, numba_present):
    kernel_sets.register("KernelTestSquare", forward="eagerflow.ops.kernels.no_such_jit:square")
    kernel_sets.set_active("numba")
    with pytest.raises(ImportError, match="could not be loaded.*EAGERFLOW_KERNELS=numpy"):
        dispatch.execute(dispatch.OPS["KernelTestSquare"], (ef.constant([2.0]),))
    with pytest.raises(KeyError, match="'Add' has no registered kernel forward"):
        kernel_sets.kernel_forward("Add")


def _square_into(x, out=None):
    return np.square(x, out=out)


def test_a_kernel_not_loaded_yet_shows_the_numpy_forwards_signature(numba_present):
    """A graph compiled before the op first ran reads the forward's parameters (whether it
    takes an ``out`` buffer of the memory plan): the lazy forward shows the NumPy one's."""
    import inspect

    before = kernel_sets.active()
    op = dispatch.primitive("KernelTestSquareInto")(_square_into)
    op.gradient(lambda dy, y, x: dy * 2 * x)
    try:
        kernel_sets.register("KernelTestSquareInto", forward=f"{__name__}:_fast_square")
        kernel_sets.set_active("numba")
        assert op.forward.__name__ == "KernelTestSquareInto_kernel"  # (not loaded yet)
        assert list(inspect.signature(op.forward).parameters) == ["x", "out"]
    finally:
        kernel_sets.unregister("KernelTestSquareInto")
        del dispatch.OPS["KernelTestSquareInto"]
        kernel_sets.set_active(before)

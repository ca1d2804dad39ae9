"""One-row-per-op test tables: forward against NumPy, gradients and JVPs against finite
differences.

Each op test module defines ``CASES = [OpCase(...), ...]`` and calls ``parametrize(CASES)``
for its forward and gradient tests. `test_coverage.py` runs every case under a tape and
fails when a registered differentiable primitive was reached by no case.

Example row::

    OpCase("log", ef.log, np.log, shapes=[(3, 4)], domain=(0.1, 4.0))
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable, Sequence

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import nest
from eagerflow.core import tape as tape_lib
from eagerflow.testing import check_gradients, check_jvp


@dataclasses.dataclass
class OpCase:
    """A test row for one op.

    Attributes:
        name: test id.
        fn: ``fn(*tensors)`` calling the op under test.
        reference: NumPy function of the same arrays giving the expected forward result, or
            None when the row checks gradients only.
        shapes: input shapes; inputs are drawn uniformly from `domain`.
        domain: (low, high) of the random inputs.
        inputs: explicit inputs instead of random ones (shapes and domain are then unused).
        order: highest gradient order to check (0: not differentiable).
        rtol, atol: forward tolerances in float32 (float64 uses 1e-6 of them).
        grad_tol: (rtol, atol) for the gradient check.
        dtypes: float dtypes to check the forward pass in.
    """

    name: str
    fn: Callable
    reference: Callable | None = None
    shapes: Sequence[tuple] = ((3,),)
    domain: tuple = (-2.0, 2.0)
    inputs: Sequence | None = None
    order: int = 2
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_tol: tuple = (1e-4, 1e-5)
    dtypes: Sequence = (np.float32, np.float64)

    def make_inputs(self, dtype=np.float64, seed=0) -> list:
        if self.inputs is not None:
            return [np.asarray(a, dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
                    for a in self.inputs]
        rng = np.random.default_rng(seed)
        low, high = self.domain
        return [rng.uniform(low, high, size=s).astype(dtype) for s in self.shapes]


UNARY_SHAPES = [(), (5,), (3, 4)]


def unary_cases(name, fn, reference, domain=(-2.0, 2.0), order=2, **kwargs) -> list:
    """Rows for an elementwise unary op: a scalar, a vector and a matrix input."""
    return [
        OpCase(f"{name}-{len(shape)}d", fn, reference, shapes=[shape], domain=domain,
               order=order, **kwargs)
        for shape in UNARY_SHAPES
    ]


def parametrize(cases):
    return pytest.mark.parametrize("case", cases, ids=[c.name for c in cases])


def check_forward(case: OpCase) -> None:
    if case.reference is None:
        pytest.skip("gradient-only row")
    for dtype in case.dtypes:
        inputs = case.make_inputs(dtype)
        got = case.fn(*[ef.constant(a) for a in inputs])
        want = case.reference(*inputs)
        got_list = got if isinstance(got, (list, tuple)) else [got]
        want_list = want if isinstance(want, (list, tuple)) else [want]
        for g, w in zip(got_list, want_list, strict=True):
            w = np.asarray(w)
            scale = 1.0 if dtype == np.float32 else 1e-6
            np.testing.assert_allclose(np.asarray(g), w, rtol=max(case.rtol * scale, 1e-12),
                                       atol=case.atol * scale, err_msg=case.name)
            if w.dtype.kind == "f":
                assert np.asarray(g).dtype == np.asarray(inputs[0]).dtype, case.name


def check_gradient(case: OpCase) -> None:
    if case.order == 0:
        pytest.skip("not differentiable")
    rtol, atol = case.grad_tol
    check_gradients(case.fn, *case.make_inputs(np.float64), order=case.order, rtol=rtol,
                    atol=atol)


def check_forward_mode(case: OpCase) -> None:
    """The row's JVPs (forward mode) against finite differences, to the same order."""
    if case.order == 0:
        pytest.skip("not differentiable")
    rtol, atol = case.grad_tol
    check_jvp(case.fn, *case.make_inputs(np.float64), order=case.order, rtol=rtol, atol=atol)


def gradient(f, value) -> np.ndarray:
    """The gradient of ``f(x)`` with respect to ``x = value`` (as float64), as an ndarray."""
    x = ef.constant(np.asarray(value, np.float64))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


def ops_reached(case: OpCase) -> set[str]:
    """Names of the differentiable ops a case records, to first and second order."""
    names: set[str] = set()
    inputs = [ef.constant(a) for a in case.make_inputs(np.float64)]
    watched = [x for x in inputs if x.dtype.kind == "f"]
    with ef.GradientTape(persistent=True) as outer:
        outer.watch(watched)
        with ef.GradientTape(persistent=True) as inner:
            inner.watch(watched)
            outputs = [o for o in nest.flatten(case.fn(*inputs)) if o is not None]
        names |= {record[0].name for record in tape_lib.recorded(inner)[0] if record}
        if case.order >= 1:
            grads = inner.gradient(outputs, watched)
    if case.order >= 2:
        names |= {record[0].name for record in tape_lib.recorded(outer)[0] if record}
        kept = [g for g in grads if g is not None]
        if kept:
            outer.gradient(kept, watched)
    return names


def squared(case: OpCase) -> OpCase:
    """The row `case` with every output squared.

    The gradient of a linear op (gather, pad, slicing, reshape, ...) does not depend on the
    op's input, so an order-2 check of the op alone never runs the gradient of its gradient
    rule. Squaring the outputs makes the first-order gradient depend on the input, so the
    second order exercises (and the coverage test reaches) helper primitives such as
    GatherGrad or StridedSliceGrad.
    """

    def fn(*args):
        return nest.map_structure(ef.square, case.fn(*args))

    reference = None
    if case.reference is not None:
        def reference(*args):
            return nest.map_structure(np.square, case.reference(*args))

    return dataclasses.replace(case, name=f"{case.name}-squared", fn=fn, reference=reference)


def all_cases() -> list:
    """The ``CASES`` rows of every op test module."""
    import tests.ops

    cases = []
    for info in pkgutil.iter_modules(tests.ops.__path__):
        if info.name.startswith("test_"):
            module = importlib.import_module(f"tests.ops.{info.name}")
            cases += getattr(module, "CASES", [])
    return cases

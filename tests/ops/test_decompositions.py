"""ef.linalg: inv, det, solve, triangular_solve, cholesky, logdet, trace, diag_part, and the
rows for the rest of the namespace (matmul, norm), all gradient-checked."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_rng = np.random.default_rng(4)
_A = _rng.uniform(-1, 1, size=(2, 3, 3)) + 3 * np.eye(3)  # well-conditioned batch
_B = _rng.uniform(-1, 1, size=(2, 3, 2))
_S = _rng.uniform(-1, 1, size=(2, 3, 3))
_S = _S @ _S.transpose(0, 2, 1) + 2 * np.eye(3)  # symmetric positive definite


def _sym(a):
    """Symmetrises the input so finite differences stay on symmetric matrices."""
    return (a + ef.transpose(a, [0, 2, 1])) * 0.5


def _swap(a):
    return np.swapaxes(a, -1, -2)


CASES = [
    OpCase("inv", ef.linalg.inv, np.linalg.inv, inputs=[_A]),
    OpCase("inv_adjoint", lambda a: ef.linalg.inv(a, adjoint=True),
           lambda a: np.linalg.inv(_swap(a)), inputs=[_A]),
    OpCase("det", ef.linalg.det, np.linalg.det, inputs=[_A], rtol=1e-4),
    OpCase("solve", ef.linalg.solve, np.linalg.solve, inputs=[_A, _B]),
    OpCase("solve_adjoint", lambda a, b: ef.linalg.solve(a, b, adjoint=True),
           lambda a, b: np.linalg.solve(_swap(a), b), inputs=[_A, _B]),
    OpCase("solve_broadcast_batch", ef.linalg.solve, np.linalg.solve, inputs=[_A[0], _B]),
    OpCase("triangular_solve", ef.linalg.triangular_solve,
           lambda a, b: np.linalg.solve(np.tril(a), b), inputs=[_A, _B]),
    OpCase("triangular_solve_upper_adjoint",
           lambda a, b: ef.linalg.triangular_solve(a, b, lower=False, adjoint=True),
           lambda a, b: np.linalg.solve(_swap(np.triu(a)), b), inputs=[_A, _B]),
    OpCase("cholesky", lambda a: ef.linalg.cholesky(_sym(a)), np.linalg.cholesky, inputs=[_S]),
    OpCase("logdet", lambda a: ef.linalg.logdet(_sym(a)), lambda a: np.linalg.slogdet(a)[1],
           inputs=[_S]),
    OpCase("trace", ef.linalg.trace, lambda a: np.trace(a, axis1=-2, axis2=-1), inputs=[_A]),
    OpCase("diag_part", ef.linalg.diag_part,
           lambda a: np.diagonal(a[..., :3, :3], axis1=-2, axis2=-1), shapes=[(2, 3, 4)]),
    OpCase("matmul", ef.linalg.matmul, np.matmul, shapes=[(2, 3, 4), (4, 2)]),
    OpCase("matmul_transposed",
           lambda a, b: ef.linalg.matmul(a, b, transpose_a=True, transpose_b=True),
           lambda a, b: _swap(a) @ _swap(b), shapes=[(2, 4, 3), (2, 2, 4)]),
    OpCase("norm", lambda a: ef.linalg.norm(a, axis=-1), lambda a: np.linalg.norm(a, axis=-1),
           shapes=[(3, 4)]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


def test_cholesky_reads_only_the_lower_triangle_and_its_gradient_is_symmetric():
    lower_only = np.tril(_S[0]) + np.triu(np.full((3, 3), 99.0), 1)
    np.testing.assert_allclose(ef.linalg.cholesky(lower_only).numpy(),
                               np.linalg.cholesky(_S[0]), rtol=1e-12)
    a = ef.constant(_S[0])
    with ef.GradientTape() as tape:
        tape.watch(a)
        y = ef.reduce_sum(ef.linalg.cholesky(a))
    grad = tape.gradient(y, a).numpy()
    np.testing.assert_allclose(grad, grad.T, rtol=1e-12)


def test_logdet_does_not_overflow():
    big = np.eye(4) * 1e200
    assert float(ef.linalg.logdet(big)) == pytest.approx(4 * 200 * np.log(10))


@pytest.mark.parametrize("call, match", [
    (lambda: ef.linalg.inv(ef.ones([2, 3])), r"square matrices \[..., M, M\], got shape \(2, 3\)"),
    (lambda: ef.linalg.inv([[1, 0], [0, 1]]), "input must be a floating-point tensor, got dtype"),
    (lambda: ef.linalg.inv(ef.ones([2, 2])), r"Input is not invertible.*\[Op:MatrixInverse\]"),
    (lambda: ef.linalg.det(ef.ones([3])), r"got shape \(3,\)"),
    (lambda: ef.linalg.solve(ef.ones([2, 2]), ef.ones([3, 1])),
     r"rhs must be \[..., M, K\] .* M = 2; got matrix float32\[2, 2\] and rhs float32\[3, 1\]"),
    (lambda: ef.linalg.solve(ef.ones([2, 2]), ef.ones([2, 1])), r"not invertible"),
    (lambda: ef.linalg.triangular_solve(ef.zeros([2, 2]), ef.ones([2, 1])),
     "a zero on its diagonal"),
    (lambda: ef.linalg.cholesky(-ef.eye(2)),
     r"Cholesky decomposition was not successful.*not positive definite \[Op:Cholesky\]"),
    (lambda: ef.linalg.diag_part(ef.ones([3])), r"rank >= 2, got shape \(3,\)"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()

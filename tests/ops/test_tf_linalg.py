"""ef.linalg's compositions: transposes, band_part, set_diag, matvec, cross and
cholesky_solve against NumPy, with gradients to order 2."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_rng = np.random.default_rng(3)
_S = _rng.uniform(-1, 1, size=(3, 3))
_S = _S @ _S.T + 2 * np.eye(3)


def _np_set_diag(x, d, k):
    y = x.copy()
    rows = np.arange(max(0, -k), min(x.shape[-2], x.shape[-1] - k))
    y[..., rows, rows + k] = d
    return y


CASES = [
    OpCase("adjoint", ef.linalg.adjoint, lambda a: np.swapaxes(a, -1, -2), shapes=[(2, 3, 4)]),
    OpCase("band_part", lambda a: ef.linalg.band_part(a, 1, 2),
           lambda a: np.triu(np.tril(a, 2), -1), shapes=[(4, 5)]),
    OpCase("set_diag", lambda a, d: ef.linalg.set_diag(a, d),
           lambda a, d: _np_set_diag(a, d, 0), shapes=[(2, 3, 4), (2, 3)]),
    OpCase("set_diag_k", lambda a, d: ef.linalg.set_diag(a, d, k=-1),
           lambda a, d: _np_set_diag(a, d, -1), shapes=[(3, 4), (2,)]),
    OpCase("matvec", ef.linalg.matvec, lambda a, b: a @ b, shapes=[(2, 3, 4), (4,)]),
    OpCase("matvec_adjoint", lambda a, b: ef.linalg.matvec(a, b, adjoint_a=True),
           lambda a, b: np.swapaxes(a, -1, -2) @ b, shapes=[(3, 4), (3,)]),
    OpCase("cross", ef.linalg.cross, np.cross, shapes=[(2, 3), (3,)]),
    OpCase("normalize", lambda a: ef.linalg.normalize(a, axis=-1),
           lambda a: (a / np.linalg.norm(a, axis=-1, keepdims=True),
                      np.linalg.norm(a, axis=-1, keepdims=True)), shapes=[(3, 4)]),
    OpCase("tensor_diag", ef.linalg.tensor_diag,
           lambda d: np.diag(d.ravel()).reshape(d.shape + d.shape), shapes=[(2, 3)]),
    OpCase("tensor_diag_part", ef.linalg.tensor_diag_part,
           lambda a: np.diagonal(a.reshape(6, 6)).reshape(2, 3), shapes=[(2, 3, 2, 3)]),
    OpCase("cholesky_solve", lambda b: ef.linalg.cholesky_solve(np.linalg.cholesky(_S).astype(b.dtype), b),
           lambda b: np.linalg.solve(_S, b), shapes=[(3, 2)]),
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


def test_eye_and_l2_normalize_are_the_shared_ops():
    assert ef.linalg.eye is ef.eye
    assert ef.linalg.l2_normalize is ef.nn.l2_normalize


@pytest.mark.parametrize("call, match", [
    (lambda: ef.linalg.matrix_transpose([1.0, 2.0]), "at least 2-D"),
    (lambda: ef.linalg.set_diag(ef.zeros((3, 3)), [1.0, 2.0]), r"diagonal must have shape \(3,\)"),
    (lambda: ef.linalg.cross([1.0, 2.0], [1.0, 2.0]), "vectors of 3 entries"),
    (lambda: ef.linalg.tensor_diag_part(ef.zeros((2, 3))), r"shape s \+ s"),
])
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()

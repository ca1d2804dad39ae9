"""ef.linalg factorizations: slogdet, eigh, qr, svd (gradient- and JVP-checked to order 2) and
pinv, lstsq, matrix_rank built on them; their forward passes against NumPy."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_rng = np.random.default_rng(7)
_A = _rng.uniform(-1, 1, size=(2, 3, 3)) + 3 * np.eye(3)
_TALL = _rng.uniform(-1, 1, size=(2, 4, 3))
_WIDE = _rng.uniform(-1, 1, size=(3, 4))
_SYM = _rng.uniform(-1, 1, size=(3, 3)) + np.diag([0.0, 2.0, 4.0])  # distinct eigenvalues


def _sign_free(vectors):
    """Singular and eigenvectors are defined up to sign: compare their squares."""
    return vectors * vectors


def _svd_parts(a):
    s, u, v = ef.linalg.svd(a)
    return s, _sign_free(u), _sign_free(v)


def _np_svd_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return s, u * u, np.swapaxes(vh, -1, -2) ** 2


def _eigh_parts(a):
    e, v = ef.linalg.eigh(a)
    return e, _sign_free(v)


def _np_eigh_parts(a):
    e, v = np.linalg.eigh(a)
    return e, v * v


def _qr_parts(a):
    q, r = ef.linalg.qr(a)
    return _sign_free(q), _sign_free(r)


def _np_qr_parts(a):
    q, r = np.linalg.qr(a)
    return q * q, r * r


# tf.linalg.lu of _LU_A (TensorFlow 2.21): factors and permutation
_LU_A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
_LU_FACTORS = np.array([[7.0, 8.0, 10.0], [0.14285714285714285, 0.8571428571428572, 1.5714285714285716], [0.5714285714285714, 0.5000000000000002, -0.49999999999999967]])
_LU_PERM = np.array([2, 0, 1], np.int32)

CASES = [
    OpCase("slogdet", lambda a: ef.linalg.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1],
           inputs=[_A]),
    OpCase("slogdet_negative", lambda a: ef.linalg.slogdet(a)[1],
           lambda a: np.linalg.slogdet(a)[1], inputs=[-_A[0]]),
    OpCase("eigh", _eigh_parts, _np_eigh_parts, inputs=[_SYM], rtol=1e-4),
    OpCase("eigvalsh", ef.linalg.eigvalsh, lambda a: np.linalg.eigvalsh(a), inputs=[_SYM]),
    OpCase("qr_tall", _qr_parts, _np_qr_parts, inputs=[_TALL], rtol=1e-4),
    OpCase("svd_tall", _svd_parts, _np_svd_parts, inputs=[_TALL], rtol=1e-4),
    OpCase("svd_wide", _svd_parts, _np_svd_parts, inputs=[_WIDE], rtol=1e-4),
    OpCase("svd_values", lambda a: ef.linalg.svd(a, compute_uv=False),
           lambda a: np.linalg.svd(a, compute_uv=False), inputs=[_A]),
    OpCase("pinv", ef.linalg.pinv, np.linalg.pinv, inputs=[_TALL], rtol=1e-4),
    OpCase("lstsq_tall", ef.linalg.lstsq,
           lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], inputs=[_TALL[0], _TALL[1]],
           rtol=1e-4),
    OpCase("lu_solve", lambda f, b: ef.linalg.lu_solve(f, _LU_PERM, b),
           lambda f, b: np.linalg.solve(np.triu(f), np.linalg.solve(np.tril(f, -1) + np.eye(3),
                                                                    b[_LU_PERM])),
           inputs=[_LU_FACTORS, _rng.uniform(-1, 1, size=(3, 2))]),
    OpCase("lstsq_wide", ef.linalg.lstsq, lambda a, b: np.linalg.pinv(a) @ b,
           inputs=[_WIDE, _rng.uniform(-1, 1, size=(3, 2))], rtol=1e-4),
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


def test_eigh_reads_only_the_lower_triangle():
    lower_only = np.tril(_SYM) + np.triu(np.full((3, 3), 50.0), 1)
    symmetric = np.tril(_SYM) + np.tril(_SYM, -1).T
    np.testing.assert_allclose(ef.linalg.eigvalsh(lower_only).numpy(),
                               np.linalg.eigvalsh(symmetric), rtol=1e-12)


def test_full_svd_and_qr_shapes_and_their_gradients_say_they_are_missing():
    s, u, v = ef.linalg.svd(_TALL[0], full_matrices=True)
    assert (s.shape, u.shape, v.shape) == ((3,), (4, 4), (3, 3))
    q, r = ef.linalg.qr(_TALL[0], full_matrices=True)
    assert (q.shape, r.shape) == ((4, 4), (4, 3))
    a = ef.constant(_TALL[0])
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(a)
        u_sum = ef.reduce_sum(ef.linalg.svd(a, full_matrices=True)[1])
        q_sum = ef.reduce_sum(ef.linalg.qr(a, full_matrices=True)[0])
    with pytest.raises(ef.errors.UnimplementedError, match="SvdGrad is not implemented"):
        tape.gradient(u_sum, a)
    with pytest.raises(ef.errors.UnimplementedError, match="QrGrad is implemented"):
        tape.gradient(q_sum, a)


def test_matrix_rank_and_default_tolerances():
    assert int(ef.linalg.matrix_rank(np.ones((3, 4)))) == 1
    assert ef.linalg.matrix_rank(np.eye(3)).dtype == np.int32
    assert int(ef.linalg.matrix_rank(np.diag([1.0, 1e-3]), tol=1e-2)) == 1
    np.testing.assert_allclose(ef.linalg.pinv(np.diag([2.0, 1e-20])).numpy(),
                               np.diag([0.5, 0.0]))


def test_slogdet_of_a_singular_matrix():
    sign, logdet = ef.linalg.slogdet(np.zeros((2, 2)))
    assert float(sign) == 0.0 and float(logdet) == -np.inf


@pytest.mark.parametrize("call, match", [
    (lambda: ef.linalg.slogdet(np.ones((2, 3))), "square matrices"),
    (lambda: ef.linalg.eigh([1.0, 2.0]), "square matrices"),
    (lambda: ef.linalg.svd(np.ones((2, 2), np.int32)), "floating-point"),
    (lambda: ef.linalg.qr(np.ones(3)), r"matrices \[\.\.\., M, N\]"),
    (lambda: ef.linalg.lstsq(np.ones((3, 2)), np.ones((2, 1))), "rhs must be matrices"),
])
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_lu_matches_tensorflow_and_has_no_gradient():
    factors, perm = ef.linalg.lu(_LU_A)
    np.testing.assert_allclose(factors.numpy(), _LU_FACTORS, rtol=1e-12)
    assert perm.numpy().tolist() == _LU_PERM.tolist() and perm.dtype == np.int32
    batch = np.stack([_LU_A, _LU_A.T + np.eye(3)])
    np.testing.assert_allclose(ef.linalg.lu_reconstruct(*ef.linalg.lu(batch)).numpy(), batch,
                               atol=1e-12)
    np.testing.assert_allclose(ef.linalg.lu_matrix_inverse(factors, perm).numpy(),
                               [[-0.6666666666666656, -1.3333333333333341, 1.0000000000000004], [-0.6666666666666689, 3.666666666666669, -2.000000000000001], [1.000000000000001, -2.0000000000000013, 1.0000000000000004]], rtol=1e-9)
    lu_keras, pivots = ef.ops.lu_factor(_LU_A.astype(np.float32))
    assert pivots.numpy().tolist() == [1, 2, 0]  # Keras 3.15, TensorFlow backend
    a = ef.constant(_LU_A)
    with ef.GradientTape() as tape:
        tape.watch(a)
        total = ef.reduce_sum(ef.linalg.lu(a)[0])
    with pytest.raises(ef.errors.UnimplementedError, match="Lu has no gradient"):
        tape.gradient(total, a)
    with pytest.raises(ef.errors.UnimplementedError, match="Lu has no gradient"):
        with ef.autodiff.ForwardAccumulator(a, ef.ones_like(a)):
            ef.linalg.lu(a)


def test_lu_reconstruct_traces():
    rebuild = ef.function(lambda a: ef.linalg.lu_reconstruct(*ef.linalg.lu(a)))
    np.testing.assert_allclose(rebuild(ef.constant(_LU_A)).numpy(), _LU_A, atol=1e-12)

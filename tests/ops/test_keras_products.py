"""ef.ops.cross, correlate, corrcoef, cdist and the Keras linalg wrappers: forward against
NumPy, gradients to order 2, and the errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_rng = np.random.default_rng(5)
_TALL = _rng.uniform(-1, 1, size=(4, 3))

CASES = [
    OpCase("cross", ef.ops.cross, np.cross, shapes=[(4, 3), (3,)]),
    OpCase("cross_2d", ef.ops.cross, lambda a, b: a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
           shapes=[(4, 2), (4, 2)]),
    OpCase("cross_axis", lambda a, b: ef.ops.cross(a, b, axis=0),
           lambda a, b: np.cross(a, b, axis=0), shapes=[(3, 4), (3, 4)]),
    OpCase("correlate_valid", ef.ops.correlate, np.correlate, shapes=[(6,), (3,)]),
    OpCase("correlate_same", lambda a, v: ef.ops.correlate(a, v, "same"),
           lambda a, v: np.correlate(a, v, "same"), shapes=[(5,), (4,)]),
    OpCase("correlate_full", lambda a, v: ef.ops.correlate(a, v, "full"),
           lambda a, v: np.correlate(a, v, "full"), shapes=[(3,), (5,)]),
    OpCase("corrcoef", ef.ops.corrcoef, np.corrcoef, shapes=[(3, 6)], rtol=1e-4),
    OpCase("cdist", ef.ops.cdist,
           lambda x, y: np.sqrt(((x[:, None] - y[None]) ** 2).sum(-1)), shapes=[(3, 2), (4, 2)]),
    OpCase("linalg_lstsq", ef.ops.lstsq, lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
           inputs=[_TALL, _rng.uniform(-1, 1, size=(4,))], rtol=1e-4),
    OpCase("linalg_pinv", ef.ops.pinv, np.linalg.pinv, inputs=[_TALL], rtol=1e-4),
    OpCase("linalg_svd_values", lambda a: ef.ops.svd(a, compute_uv=False),
           lambda a: np.linalg.svd(a, compute_uv=False), inputs=[_TALL]),
    OpCase("numpy_slogdet", lambda a: ef.ops.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1],
           inputs=[_TALL[:3] + 2 * np.eye(3)]),
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


def test_keras_svd_is_numpys_order():
    u, s, vh = ef.ops.svd(_TALL)
    assert (u.shape, s.shape, vh.shape) == ((4, 4), (3,), (3, 3))
    u, s, vh = ef.ops.svd(_TALL, full_matrices=False)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ vh.numpy(), _TALL, atol=1e-12)
    q, r = ef.ops.qr(_TALL, mode="complete")
    assert (q.shape, r.shape) == ((4, 4), (4, 3))
    assert int(ef.ops.matrix_rank(np.ones((3, 3)))) == 1


@pytest.mark.parametrize("call, match", [
    (lambda: ef.ops.cross([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0]), "Incompatible dimensions"),
    (lambda: ef.ops.correlate(np.ones((2, 2)), [1.0]), "expects 1-D inputs"),
    (lambda: ef.ops.correlate([1.0], [1.0], mode="circular"), "`mode` must be"),
    (lambda: ef.ops.cdist([1.0, 2.0], [[1.0, 2.0]]), "must have rank >= 2"),
    (lambda: ef.ops.cdist([[1.0, 2.0]], [[1.0]]), "Last dimension"),
    (lambda: ef.ops.qr(_TALL, mode="r"), "`mode` must be"),
    (lambda: ef.ops.lstsq(_TALL, np.ones(3)), "lstsq expects"),
    (lambda: ef.ops.matrix_rank([1.0, 2.0]), "rank >= 2"),
    (lambda: ef.ops.depth_to_space(ef.zeros((1, 1, 1, 4)), 2, "NHWC"), "`data_format` must"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()

"""The Dot merge layer (Keras's batch dot) and its functional form."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

RNG = np.random.default_rng(0)
A2, B2 = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
A3, B3 = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 4, 3))
C2 = RNG.standard_normal((2, 3))


def _unit(x, axis):
    return x / np.sqrt((x * x).sum(axis, keepdims=True))


@pytest.mark.parametrize("axes, a, b, expected", [
    (1, A2, B2, (A2 * B2).sum(1, keepdims=True)),
    (2, A3, B3, np.einsum("bnd,bmd->bnm", A3, B3)),
    ((1, 1), A3, A3, np.einsum("bnd,bne->bde", A3, A3)),
    ((1, 2), C2, A3, np.einsum("bd,bnd->bn", C2, A3)),
])
def test_batch_dot_against_einsum(axes, a, b, expected):
    layer = ef.layers.Dot(axes=axes)
    out = layer([ef.constant(a.astype("float32")), ef.constant(b.astype("float32"))])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    assert layer.compute_output_shape([(None, *a.shape[1:]), (None, *b.shape[1:])])[1:] == \
        expected.shape[1:]
    layer64 = ef.layers.Dot(axes=axes, dtype="float64")
    check_gradients(lambda x, y: layer64([x, y]), a, b)


def test_normalized_dot_is_cosine_similarity_and_errors():
    out = ef.layers.dot([ef.constant(A2), ef.constant(B2)], axes=1, normalize=True)
    np.testing.assert_allclose(out, (_unit(A2, 1) * _unit(B2, 1)).sum(1, keepdims=True),
                               rtol=1e-6)
    layer = ef.layers.Dot(axes=1, normalize=True)
    assert ef.layers.Dot.from_config(layer.get_config()).get_config() == layer.get_config()
    with pytest.raises(ValueError, match="batch axis"):
        ef.layers.Dot(axes=0)([ef.constant(A2), ef.constant(B2)])
    with pytest.raises(ValueError, match="sizes 3 and 4"):
        ef.layers.Dot(axes=1)([ef.constant(A2), ef.ones([4, 4])])

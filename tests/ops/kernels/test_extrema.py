"""maximum/minimum against a constant block (eagerflow/ops/kernels/extrema.py): the same
bits as NumPy's scalar form, for every shape class, and relu/relu6/elu through it."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops.kernels import extrema


def _special_values(shape, dtype):
    x = np.random.default_rng(0).normal(size=shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -np.nan]
    return x


@pytest.mark.parametrize("shape", [(64, 26, 26, 32), (3, 70000), (100000, 3), (8, 8), (40000,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_bits_as_the_scalar_form(shape, dtype):
    x = _special_values(shape, dtype)
    for ours, numpy_fn in ((extrema.maximum, np.maximum), (extrema.minimum, np.minimum)):
        got = ours(x, 0.5)
        want = numpy_fn(x, dtype(0.5))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_block_geometry():
    f32 = np.dtype("float32")
    assert extrema.operand((64, 26, 26, 32), 0, f32).shape == (26, 26, 32)
    assert extrema.operand((2, 300, 300), 0, f32).shape == (300,)  # 90,000 > block cap
    assert extrema.operand((100000, 3), 0, f32).shape == ()  # inner loop would be short
    assert extrema.operand((8, 8), 0, f32).shape == ()  # small: the scalar is as fast
    assert extrema.operand((64, 26, 26, 32), 0, np.dtype("int32")).shape == ()
    block = extrema.operand((64, 26, 26, 32), 6, f32)
    assert not block.flags.writeable and block.dtype == f32 and (block == 6).all()


@pytest.mark.parametrize("fn", [ef.nn.relu, ef.nn.relu6, ef.nn.elu])
def test_activations_equal_eager_and_traced(fn):
    x = _special_values((64, 16, 16, 8), np.float32)
    eager = fn(ef.constant(x)).numpy()
    traced = ef.function(fn)(ef.constant(x)).numpy()
    np.testing.assert_array_equal(eager.view(np.uint8), traced.view(np.uint8))
    reference = {ef.nn.relu: lambda v: np.maximum(v, np.float32(0)),
                 ef.nn.relu6: lambda v: np.minimum(np.maximum(v, np.float32(0)), np.float32(6)),
                 ef.nn.elu: lambda v: np.where(v > 0, v, np.expm1(np.minimum(v, 0)))}[fn](x)
    np.testing.assert_allclose(eager, reference, rtol=1e-6)

"""A dense layer's product, bias add and relu as one op
(eagerflow/graph/passes/matmul_bias.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph.passes import dead_code, matmul_bias, pipeline
from tests.graph.passes.programs import run, traced, types

_RNG = np.random.default_rng(0)
W = _RNG.normal(size=(6, 8)).astype(np.float32)
B = _RNG.normal(size=8).astype(np.float32)
HEADS = _RNG.normal(size=(2, 4)).astype(np.float32)  # an einsum dense layer's bias
X = ef.TensorSpec([5, 6])


def _fused(fn, *specs):
    program, cf = traced(fn, *specs)
    fused = matmul_bias.fuse_matmul_bias(dead_code.eliminate_dead_code(program))
    return matmul_bias.fuse_bias_gradients(fused), program, cf


def _same(fn, *arrays):
    """The rewritten program gives the traced one's values bit for bit."""
    specs = [ef.TensorSpec(a.shape, a.dtype) for a in arrays]
    fused, program, cf = _fused(fn, *specs)
    for got, want in zip(run(fused, cf, *arrays), run(program, cf, *arrays), strict=True):
        np.testing.assert_array_equal(got, want)
    return fused


def test_a_dense_layer_with_relu_becomes_one_op():
    x = _RNG.normal(size=(5, 6)).astype(np.float32)
    fused = _same(lambda x: ef.nn.relu(ef.matmul(x, W) + B), x)
    node, = (n for n in fused.nodes if n.type == "MatMulBias")
    assert node.attrs == {"relu": True}
    assert "AddV2" not in types(fused) and "Relu" not in types(fused)


def test_a_reshaped_product_and_a_bias_over_two_axes_become_one_op():
    # Dense on (batch, steps, features) and EinsumDense's (..., heads, size) bias
    x = _RNG.normal(size=(2, 5, 6)).astype(np.float32)

    def fn(x):
        flat = ef.matmul(ef.reshape(x, [-1, 6]), W)
        return ef.reshape(flat, [2, 5, 2, 4]) + HEADS, ef.reshape(flat * 1.0, [2, 5, 8])

    fused = _same(lambda x: ef.reshape(ef.matmul(ef.reshape(x, [-1, 6]), W), [2, 5, 2, 4])
                  + HEADS, x)
    assert types(fused)[-2:] == ["MatMulBias", "Reshape"]
    assert fused.outputs[0].shape == (2, 5, 2, 4)
    # the product read twice (here by a second expression): nothing fused
    assert "MatMulBias" not in types(_same(fn, x))


def test_transposed_operands_and_float64_keep_their_flags():
    x = _RNG.normal(size=(6, 5))
    fused = _same(lambda x: ef.matmul(x, W.T.astype(np.float64), transpose_a=True,
                                      transpose_b=True) + B.astype(np.float64), x)
    node, = (n for n in fused.nodes if n.type == "MatMulBias")
    assert node.attrs == {"transpose_a": True, "transpose_b": True, "relu": False}


def _both(value, then):
    return value, then(value)


@pytest.mark.parametrize("name, fn", [
    ("the sum is returned too", lambda x: _both(ef.matmul(x, W) + B, ef.nn.relu)),
    ("the product is returned", lambda x: _both(ef.matmul(x, W), lambda p: p + B)),
    ("a bias over the rows", lambda x: ef.matmul(x, W) + B[:5, None]),
    ("a bias that grows the sum", lambda x: ef.matmul(x, W) + np.ones((3, 5, 8), np.float32)),
    ("a bias of another dtype", lambda x: ef.cast(ef.matmul(x, W), ef.float64)
     + B.astype(np.float64)),
    ("a batched product", lambda x: ef.matmul(ef.reshape(x, [5, 1, 6]), W) + B),
])
def test_other_shapes_and_readers_are_left_alone(name, fn):
    x = _RNG.normal(size=(5, 6)).astype(np.float32)
    fused = _same(fn, x)
    if name == "the sum is returned too":  # the add is fused, the relu left to read it
        node, = (n for n in fused.nodes if n.type == "MatMulBias")
        assert node.attrs == {"relu": False} and "Relu" in types(fused)
    else:
        assert "MatMulBias" not in types(fused), name


def test_the_pipeline_fuses_a_training_steps_dense_layers():
    """A Keras model's traced training step: every Dense layer's product, bias and relu are
    one op, and so are its kernel's and bias's gradients; training gives the weights it
    gives without the rewrites, bit for bit on the NumPy kernel set (the numba set sums the
    bias gradients in another order)."""
    x = _RNG.normal(size=(32, 4, 6)).astype(np.float32)
    y = _RNG.integers(0, 3, 32)

    def fit():
        ef.utils.set_random_seed(3)
        inputs = ef.Input((4, 6))
        h = ef.layers.Dense(16, activation="relu")(inputs)
        h = ef.layers.Dense(8)(ef.layers.Flatten()(h))
        model = ef.Model(inputs, ef.layers.Dense(3)(h))
        model.compile(optimizer=ef.optimizers.Adam(1e-2),
                      loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        step = list(model._train_function._functions.values())[0]
        graph = step.list_concrete_functions()[0].optimized_graph
        return [w.numpy() for w in model.weights], types(graph)

    before = ef.config.get_kernel_set()
    ef.config.set_kernel_set("numpy")
    try:
        weights, kinds = fit()
        assert kinds.count("MatMulBias") == 3 and "Relu" not in kinds
        assert kinds.count("MatMulSum") == 3  # the three kernels' and biases' gradients
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pipeline.matmul_bias, "fuse_matmul_bias", lambda program: program)
            patch.setattr(pipeline.matmul_bias, "fuse_bias_gradients",
                          lambda program: program)
            plain, kinds = fit()
    finally:
        ef.config.set_kernel_set(before)
    assert "MatMulBias" not in kinds and "MatMulSum" not in kinds
    for got, want in zip(weights, plain, strict=True):
        np.testing.assert_array_equal(got, want)


def _dense_grads(x, dy):
    return ef.matmul(x, dy, transpose_a=True), ef.reduce_sum(dy, axis=0)


def test_a_kernel_and_bias_gradient_become_one_op():
    x = _RNG.normal(size=(7, 6)).astype(np.float32)
    dy = _RNG.normal(size=(7, 8)).astype(np.float32)
    fused = _same(_dense_grads, x, dy)
    node, = (n for n in fused.nodes if n.type == "MatMulSum")
    assert "Sum" not in types(fused) and "BatchMatMulV2" not in types(fused)
    # over reshaped rows: (2, 5, 2, 4) summed over its two leading axes, as EinsumDense's
    d = _RNG.normal(size=(2, 5, 2, 4)).astype(np.float32)
    x = _RNG.normal(size=(10, 6)).astype(np.float32)
    fused = _same(lambda x, d: (ef.matmul(x, ef.reshape(d, [10, 8]), transpose_a=True),
                                ef.reduce_sum(d, axis=[0, 1])), x, d)
    assert "MatMulSum" in types(fused) and fused.outputs[1].shape == (2, 4)


@pytest.mark.parametrize("name, fn", [
    ("the sum is read before the product", lambda x, dy: _both(
        ef.reduce_sum(dy, axis=0), lambda total: ef.matmul(x * ef.reduce_sum(total), dy,
                                                            transpose_a=True))),
    ("keepdims", lambda x, dy: (ef.matmul(x, dy, transpose_a=True),
                                ef.reduce_sum(dy, axis=0, keepdims=True))),
    ("another axis", lambda x, dy: (ef.matmul(x, dy, transpose_a=True),
                                    ef.reduce_sum(dy, axis=1))),
    ("no transposed product", lambda x, dy: (ef.matmul(ef.transpose(x), dy),
                                             ef.reduce_sum(dy, axis=0))),
])
def test_other_gradients_are_left_alone(name, fn):
    x = _RNG.normal(size=(7, 6)).astype(np.float32)
    dy = _RNG.normal(size=(7, 8)).astype(np.float32)
    assert "MatMulSum" not in types(_same(fn, x, dy)), name

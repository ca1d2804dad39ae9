"""Max pool before bias and relu, fused (eagerflow/graph/passes/pool_first.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph.passes import pipeline, pool_first
from tests.graph.passes.programs import run, traced, types


def _block(pool, extra=None):
    def step(c, b, dp):
        with ef.GradientTape() as tape:
            tape.watch([c, b])
            z = ef.nn.bias_add(c, b)
            r = ef.nn.relu(z)
            p = pool(r)
            loss = ef.reduce_sum(p * dp)
            if extra == "relu":
                loss = loss + ef.reduce_sum(r)
            elif extra == "sum":
                loss = loss + ef.reduce_sum(z)
        dc, db = tape.gradient(loss, [c, b])
        return p, dc, db
    return step


_POOLS = [
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "VALID"), (2, 6, 7, 3)),
    (lambda r: ef.nn.max_pool2d(r, 3, 1, "SAME"), (2, 5, 5, 2)),  # overlapping windows
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "SAME"), (1, 5, 5, 2)),  # padded windows
]


def _case(pool, shape, extra=None):
    rng = np.random.default_rng(3)
    # Rounded values: ties inside windows, and whole windows that relu clamps to 0.
    c = np.round(rng.normal(size=shape) * 2).astype(np.float32)
    b = np.array([0.5, -1.0, 0.25][:shape[-1]], np.float32)
    pooled_shape = pool(ef.zeros(shape)).shape
    dp = rng.normal(size=pooled_shape).astype(np.float32)
    program, cf = traced(_block(pool, extra), ef.TensorSpec(shape), ef.TensorSpec([shape[-1]]),
                         ef.TensorSpec(pooled_shape))
    return program, cf, (c, b, dp)


@pytest.mark.parametrize("pool, shape", _POOLS)
def test_pool_bias_relu_and_gradients_fuse_with_the_same_values(pool, shape, kernel_set):
    program, cf, arrays = _case(pool, shape)
    rewritten = pipeline.optimize(program.nodes, program.outputs)
    producer = {id(out): n.type for n in rewritten.nodes for out in n.outputs}
    reads = {n.type: [producer[id(x)] for x in n.inputs] for n in rewritten.nodes
             if n.type not in ("Placeholder", "Const")}
    # one op forward (conv output and bias), one backward (conv output, pooled output and
    # the incoming pooled gradient) giving both gradients: no full-size intermediate
    assert reads == {"MaxPoolBiasRelu": ["Placeholder", "Placeholder"],
                     "MaxPoolBiasReluGrad": ["Placeholder", "MaxPoolBiasRelu", "Placeholder"]}
    fused_grad = rewritten.nodes[-1]
    assert all(a is b for a, b in zip(fused_grad.outputs, rewritten.outputs[1:], strict=True))
    p, dc, db = run(rewritten, cf, *arrays)
    expected = [t.numpy() for t in _block(pool)(*map(ef.constant, arrays))]
    np.testing.assert_array_equal(p, expected[0])  # bitwise: max commutes with both
    np.testing.assert_array_equal(dc, expected[1])  # same winners (no rounded ties here)
    np.testing.assert_allclose(db, expected[2], rtol=1e-6, atol=1e-6)  # summed in another order


def test_a_gradient_without_the_bias_and_inference_fuse_too(kernel_set):
    pool, shape = _POOLS[2]
    _, _, (c, b, dp) = _case(pool, shape)

    def input_gradient(c, b, dp):
        with ef.GradientTape() as tape:
            tape.watch(c)
            p = pool(ef.nn.relu(ef.nn.bias_add(c, b)))
        return tape.gradient(p, c, output_gradients=dp)

    def inference(c, b):
        return pool(ef.nn.relu(ef.nn.bias_add(c, b)))

    for fn, arrays in ((input_gradient, (c, b, dp)), (inference, (c, b))):
        specs = [ef.TensorSpec(a.shape) for a in arrays]
        program, cf = traced(fn, *specs)
        rewritten = pipeline.optimize(program.nodes, program.outputs)
        fused = [t for t in types(rewritten) if t not in ("Placeholder", "Const")]
        assert fused == ["MaxPoolBiasRelu", "MaxPoolBiasReluGrad"][:len(arrays) - 1]
        want = fn(*map(ef.constant, arrays)).numpy()
        np.testing.assert_array_equal(run(rewritten, cf, *arrays)[0], want)


def test_trained_cnn_matches_eager(kernel_set):
    rng = np.random.default_rng(0)
    x = rng.random((8, 10, 10, 1), dtype=np.float32)
    y = rng.integers(0, 3, 8)

    def make():
        ef.random.set_seed(1)
        model = ef.Sequential([ef.Input((10, 10, 1)), ef.layers.Conv2D(4, 3, activation="relu"),
                               ef.layers.MaxPooling2D(2), ef.layers.Flatten(), ef.layers.Dense(3)])
        model.compile(ef.optim.SGD(0.1), ef.losses.SparseCategoricalCrossentropy(True))
        return model

    traced_model, eager_model = make(), make()
    eager_model.run_eagerly = True
    for model in (traced_model, eager_model):
        model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    for a, b in zip(traced_model.get_weights(), eager_model.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("extra", ["relu", "sum"])
def test_no_rewrite_when_a_full_size_tensor_has_another_reader(extra):
    pool, shape = _POOLS[0]
    program, cf, arrays = _case(pool, shape, extra)
    before = pipeline.optimize(program.nodes, program.outputs)
    assert types(pool_first.pool_first(before)) == types(before)
    expected = [t.numpy() for t in _block(pool, extra)(*map(ef.constant, arrays))]
    for got, want in zip(run(before, cf, *arrays), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_no_rewrite_for_channels_first_bias_or_average_pool():
    def nchw(c, b):
        return ef.nn.max_pool2d(ef.nn.relu(ef.nn.bias_add(c, b, data_format="NCHW")), 2, 2,
                                "VALID")

    def average(c, b):
        return ef.nn.avg_pool2d(ef.nn.relu(ef.nn.bias_add(c, b)), 2, 2, "VALID")

    for fn, shape in ((nchw, [1, 2, 4, 4]), (average, [1, 4, 4, 2])):
        program, _ = traced(fn, ef.TensorSpec(shape), ef.TensorSpec([2]))
        assert types(pool_first.pool_first(program)) == types(program)


def test_an_unknown_batch_size_fuses_too(kernel_set):
    pool, shape = _POOLS[0]
    _, _, arrays = _case(pool, shape)
    step = _block(pool)
    specs = [ef.TensorSpec((None,) + shape[1:]), ef.TensorSpec([shape[-1]]),
             ef.TensorSpec((None,) + pool(ef.zeros(shape)).shape[1:])]
    program, cf = traced(step, *specs)
    rewritten = pipeline.optimize(program.nodes, program.outputs)
    assert {"MaxPoolBiasRelu", "MaxPoolBiasReluGrad"} <= set(types(rewritten))
    assert "MaxPool" not in types(rewritten)
    expected = [t.numpy() for t in step(*map(ef.constant, arrays))]
    for got, want in zip(run(rewritten, cf, *arrays), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    traced_step = ef.function(step, input_signature=specs)
    for got, want in zip(traced_step(*arrays), expected, strict=True):  # the plan of fit
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)

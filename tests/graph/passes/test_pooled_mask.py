"""Relu masks moved to the pooled side (eagerflow/graph/passes/pooled_mask.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph.passes import pipeline, pooled_mask
from tests.graph.passes.programs import run, traced, types


def _relu_pool_grads(pool, extra_use=False):
    def step(z, dp):
        with ef.GradientTape() as tape:
            tape.watch(z)
            r = ef.nn.relu(z)
            y = pool(r)
            loss = ef.reduce_sum(y * dp)
            if extra_use:  # the relu output is read again: its mask has a second consumer
                loss = loss + ef.reduce_sum(r)
        return tape.gradient(loss, z)
    return step


@pytest.mark.parametrize("pool, shape", [
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "VALID"), (2, 6, 7, 3)),
    (lambda r: ef.nn.max_pool2d(r, 3, 1, "SAME"), (2, 5, 5, 2)),  # overlapping windows
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "SAME"), (1, 5, 5, 2)),  # padded windows
])
def test_relu_mask_behind_a_max_pool_moves_to_the_pooled_side(pool, shape):
    rng = np.random.default_rng(1)
    # Rounded values: many ties, and whole windows of relu zeros.
    z = np.round(rng.normal(size=shape) * 2).astype(np.float32)
    program, cf = traced(_relu_pool_grads(pool), ef.TensorSpec(shape),
                         ef.TensorSpec(cf_shape := pool(ef.zeros(shape)).shape))
    dp = rng.normal(size=cf_shape).astype(np.float32)
    rewritten = pipeline.optimize(program.nodes, program.outputs)
    pooled = {id(n.outputs[0]) for n in rewritten.nodes if n.type == "MaxPool"}
    masks = [n for n in rewritten.nodes if n.type == "Greater"]
    assert masks and all(id(n.inputs[0]) in pooled for n in masks)  # on the pooled side
    expected = _relu_pool_grads(pool)(ef.constant(z), ef.constant(dp)).numpy()
    np.testing.assert_array_equal(run(rewritten, cf, z, dp)[0], expected)


def test_relu_mask_stays_when_something_else_reads_it():
    shape = (1, 4, 4, 2)
    program, _ = traced(_relu_pool_grads(lambda r: ef.nn.max_pool2d(r, 2, 2, "VALID"), True),
                        ef.TensorSpec(shape), ef.TensorSpec([1, 2, 2, 2]))
    rewritten = pooled_mask.mask_pooled_gradients(program)
    assert types(rewritten) == types(program)

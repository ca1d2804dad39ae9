"""Port of Keras 3.15's ``keras/src/layers/activations/leaky_relu_test.py`` (eager calls with numeric results).

Every eager call of a layer those tests make was recorded by running them under Keras 3.15
(TensorFlow 2.21 backend, CPU): constructor arguments, inputs, the layer's weights and the
output Keras returned are the literals below. The test builds the eagerflow layer of the
same name, gives it those weights and compares its output. Symbolic calls, random layers
and cases too large to keep as literals are left out.
"""
# ruff: noqa: E501  (the case table holds recorded literals, one case per line)

import pytest

import eagerflow as ef
from tests.conformance.keras._replay import A, replay_layer

nan, INF = float("nan"), float("inf")
inf = INF

# (Keras test, layer, constructor args, kwargs, call args, call kwargs, weights, Keras's output)
CASES = [
    ('LeakyReLUTest.test_leaky_relu', 'LeakyReLU', [], {'negative_slope': 1}, [A([[[1.8843998908996582, 2.5259299278259277, 0.3533681631088257, 0.5301117897033691], [2.5507402420043945, 2.7428483963012695, 0.030311107635498047, 2.8136677742004395], [1.937211513519287, 1.1696748733520508, 0.36091554164886475, 1.1231231689453125]], [[1.5881849527359009, 2.764603614807129, 1.3422213792800903, 2.807467460632324], [2.166623592376709, 1.1871689558029175, 0.01365959644317627, 1.1341474056243896], [2.8134303092956543, 0.9580868482589722, 0.35681676864624023, 1.7495824098587036]]], 'float32')], {}, [], A([[[1.8843998908996582, 2.5259299278259277, 0.3533681631088257, 0.5301117897033691], [2.5507402420043945, 2.7428483963012695, 0.030311107635498047, 2.8136677742004395], [1.937211513519287, 1.1696748733520508, 0.36091554164886475, 1.1231231689453125]], [[1.5881849527359009, 2.764603614807129, 1.3422213792800903, 2.807467460632324], [2.166623592376709, 1.1871689558029175, 0.01365959644317627, 1.1341474056243896], [2.8134303092956543, 0.9580868482589722, 0.35681676864624023, 1.7495824098587036]]], 'float32')),
    ('LeakyReLUTest.test_leaky_relu_correctness', 'LeakyReLU', [], {'negative_slope': 0.5}, [A([-10.0, -5.0, 0.0, 5.0, 10.0], 'float64')], {}, [], A([-5.0, -2.5, 0.0, 5.0, 10.0], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

"""Port of Keras 3.15's ``keras/src/layers/activations/relu_test.py`` (eager calls with numeric results).

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
    ('ReLUTest.test_default_relu_no_args', 'ReLU', [], {}, [A([-3.0, -1.0, 0.0, 1.0, 3.0], 'float64')], {}, [], A([0.0, 0.0, 0.0, 1.0, 3.0], 'float32')),
    ('ReLUTest.test_leaky_relu_correctness', 'ReLU', [], {'max_value': 10, 'negative_slope': 0.5, 'threshold': 0}, [A([-10.0, -5.0, 0.0, 5.0, 10.0], 'float64')], {}, [], A([-5.0, -2.5, 0.0, 5.0, 10.0], 'float32')),
    ('ReLUTest.test_normal_relu_correctness', 'ReLU', [], {'max_value': 10, 'negative_slope': 0.0, 'threshold': 0}, [A([-10.0, -5.0, 0.0, 5.0, 10.0], 'float64')], {}, [], A([0.0, 0.0, 0.0, 5.0, 10.0], 'float32')),
    ('ReLUTest.test_relu', 'ReLU', [], {'max_value': 10, 'negative_slope': 1, 'threshold': 0.5}, [A([[[1.7031022310256958, 2.18869686126709, 0.8195382356643677, 0.9103127717971802], [2.331732988357544, 1.6632310152053833, 1.143204689025879, 2.4764089584350586], [1.383927583694458, 2.4258062839508057, 0.7181210517883301, 1.8280044794082642]], [[2.1028380393981934, 0.6997450590133667, 1.5983952283859253, 1.9624357223510742], [1.8772612810134888, 0.7947885990142822, 1.3936811685562134, 0.2650684118270874], [1.702720284461975, 1.2697352170944214, 2.314032554626465, 2.690516948699951]]], 'float32')], {}, [], A([[[1.7031022310256958, 2.18869686126709, 0.8195382356643677, 0.9103127717971802], [2.331732988357544, 1.6632310152053833, 1.143204689025879, 2.4764089584350586], [1.383927583694458, 2.4258062839508057, 0.7181210517883301, 1.8280044794082642]], [[2.1028380393981934, 0.6997450590133667, 1.5983952283859253, 1.9624357223510742], [1.8772612810134888, 0.7947885990142822, 1.3936811685562134, -0.2349315881729126], [1.702720284461975, 1.2697352170944214, 2.314032554626465, 2.690516948699951]]], 'float32')),
    ('ReLUTest.test_relu_all_zeros_input', 'ReLU', [], {}, [A([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'float64')], {}, [], A([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'float32')),
    ('ReLUTest.test_relu_multidimensional_input', 'ReLU', [], {}, [A([[-1.0, 2.0], [3.0, -4.0]], 'float64')], {}, [], A([[0.0, 2.0], [3.0, 0.0]], 'float32')),
    ('ReLUTest.test_relu_multidimensional_input#2', 'ReLU', [], {}, [A([[[-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0]], [[-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0]]], 'float64')], {}, [], A([[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]], 'float32')),
    ('ReLUTest.test_relu_none_max_value_is_unlimited', 'ReLU', [], {'max_value': None}, [A([0.0, 100.0, 1000.0, 99999.0], 'float64')], {}, [], A([0.0, 100.0, 1000.0, 99999.0], 'float32')),
    ('ReLUTest.test_threshold_relu_correctness', 'ReLU', [], {'max_value': 8, 'negative_slope': 0.0, 'threshold': 5}, [A([6.0, 7.0, 0.0, 5.0, 10.0], 'float64')], {}, [], A([6.0, 7.0, 0.0, 0.0, 8.0], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

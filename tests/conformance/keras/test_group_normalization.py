"""Port of Keras 3.15's ``keras/src/layers/normalization/group_normalization_test.py`` (eager calls with numeric results).

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
    ('GroupNormalizationTest.test_broadcasting_2d_channels_first', 'GroupNormalization', [], {'groups': 2, 'axis': 1}, [A([[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]], [[12.0, 13.0], [14.0, 15.0]]]], 'float32')], {}, [A([1.0, 1.0, 1.0, 1.0], 'float32'), A([0.0, 0.0, 0.0, 0.0], 'float32')], A([[[[-1.5273797512054443, -1.0909855365753174], [-0.6545913219451904, -0.21819710731506348]], [[0.21819710731506348, 0.6545913219451904], [1.0909855365753174, 1.5273797512054443]], [[-1.5273799896240234, -1.0909857749938965], [-0.6545915603637695, -0.21819734573364258]], [[0.21819686889648438, 0.6545910835266113], [1.0909852981567383, 1.5273795127868652]]]], 'float32')),
    ('GroupNormalizationTest.test_correctness_1d', 'GroupNormalization', [], {'groups': 1, 'axis': -1, 'scale': False, 'center': False}, [A([[-1.0, -1.0, 1.0, 1.0, 2.0, 2.0, 0.0, -2.0]], 'float64')], {}, [], A([[-0.8977948427200317, -0.8977948427200317, 0.538676917552948, 0.538676917552948, 1.2569128274917603, 1.2569128274917603, -0.17955897748470306, -1.6160306930541992]], 'float32')),
    ('GroupNormalizationTest.test_correctness_1d#2', 'GroupNormalization', [], {'groups': 2, 'axis': 1, 'scale': False, 'center': False}, [A([[-1.0, -1.0, 1.0, 1.0, 2.0, 2.0, 0.0, -2.0]], 'float64')], {}, [], A([[-0.9995003938674927, -0.9995003938674927, 0.9995003938674927, 0.9995003938674927, 0.904369592666626, 0.904369592666626, -0.3014565408229828, -1.5072827339172363]], 'float32')),
    ('GroupNormalizationTest.test_correctness_2d', 'GroupNormalization', [], {'groups': 1, 'axis': -1, 'scale': False, 'center': False}, [A([[[-1.0, -1.0, 2.0, 2.0], [1.0, 1.0, 0.0, -2.0]]], 'float64')], {}, [], A([[[-0.8977948427200317, -0.8977948427200317, 1.2569128274917603, 1.2569128274917603], [0.538676917552948, 0.538676917552948, -0.17955897748470306, -1.6160306930541992]]], 'float32')),
    ('GroupNormalizationTest.test_correctness_2d#2', 'GroupNormalization', [], {'groups': 2, 'axis': 2, 'scale': False, 'center': False}, [A([[[-1.0, -1.0, 2.0, 2.0], [1.0, 1.0, 0.0, -2.0]]], 'float64')], {}, [], A([[[-0.9995003938674927, -0.9995003938674927, 0.904369592666626, 0.904369592666626], [0.9995003938674927, 0.9995003938674927, -0.3014565408229828, -1.5072827339172363]]], 'float32')),
    ('GroupNormalizationTest.test_correctness_instance_norm', 'GroupNormalization', [], {'groups': 4, 'axis': -1, 'scale': False, 'center': False}, [A([[[-1.0, 1.0, 0.0, 2.0], [1.0, 3.0, -4.0, -2.0]]], 'float64')], {}, [], A([[[-0.9995003938674927, -0.9995003938674927, 0.999875009059906, 0.999875009059906], [0.9995003938674927, 0.9995003938674927, -0.999875009059906, -0.999875009059906]]], 'float32')),
    ('GroupNormalizationTest.test_groups_instance_norm', 'GroupNormalization', [], {'groups': -1, 'axis': -1, 'scale': False, 'center': False}, [A([[[-1.0, 1.0, 0.0, 2.0], [1.0, 3.0, -4.0, -2.0]]], 'float64')], {}, [], A([[[-0.9995003938674927, -0.9995003938674927, 0.999875009059906, 0.999875009059906], [0.9995003938674927, 0.9995003938674927, -0.999875009059906, -0.999875009059906]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

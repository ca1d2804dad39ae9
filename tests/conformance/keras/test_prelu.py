"""Port of Keras 3.15's ``keras/src/layers/activations/prelu_test.py`` (eager calls with numeric results).

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
    ('PReLUTest.test_prelu', 'PReLU', [], {'alpha_initializer': 'zeros', 'alpha_regularizer': 'L1', 'alpha_constraint': 'MaxNorm', 'shared_axes': 1}, [A([[[0.5871008634567261, 0.8917533159255981, 1.8245959281921387, 1.002762794494629], [2.1074447631835938, 2.134997844696045, 2.3563148975372314, 0.9362493753433228], [0.9053975343704224, 1.05382239818573, 1.501090407371521, 2.6648030281066895]], [[1.0153931379318237, 1.1471500396728516, 1.059504747390747, 2.928034543991089], [1.3544923067092896, 1.4381994009017944, 0.9159325361251831, 2.903561592102051], [0.7131432294845581, 1.530897617340088, 1.302578330039978, 2.5173134803771973]]], 'float32')], {}, [A([[0.0, 0.0, 0.0, 0.0]], 'float32')], A([[[0.5871008634567261, 0.8917533159255981, 1.8245959281921387, 1.002762794494629], [2.1074447631835938, 2.134997844696045, 2.3563148975372314, 0.9362493753433228], [0.9053975343704224, 1.05382239818573, 1.501090407371521, 2.6648030281066895]], [[1.0153931379318237, 1.1471500396728516, 1.059504747390747, 2.928034543991089], [1.3544923067092896, 1.4381994009017944, 0.9159325361251831, 2.903561592102051], [0.7131432294845581, 1.530897617340088, 1.302578330039978, 2.5173134803771973]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

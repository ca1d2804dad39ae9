"""Port of Keras 3.15's ``keras/src/layers/reshaping/zero_padding1d_test.py`` (eager calls with numeric results).

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
    ('ZeroPadding1DTest.test_zero_padding_1d0', 'ZeroPadding1D', [], {'padding': (1, 2), 'data_format': 'channels_first'}, [A([[[0.5612758668812179, 0.6173297366062648, 0.2815495879544694], [0.3965722149081985, 0.7059114329736308, 0.8311895536388253]]], 'float64')], {}, [], A([[[0.0, 0.561275839805603, 0.6173297166824341, 0.2815496027469635, 0.0, 0.0], [0.0, 0.39657220244407654, 0.7059114575386047, 0.8311895728111267, 0.0, 0.0]]], 'float32')),
    ('ZeroPadding1DTest.test_zero_padding_1d1', 'ZeroPadding1D', [], {'padding': (1, 2), 'data_format': 'channels_last'}, [A([[[0.37491585724352616, 0.3745014271277127, 0.19559446386795099], [0.8802737237605428, 0.6722377324547677, 0.9143801712510328]]], 'float64')], {}, [], A([[[0.0, 0.0, 0.0], [0.37491586804389954, 0.37450143694877625, 0.19559445977210999], [0.880273699760437, 0.672237753868103, 0.9143801927566528], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], 'float32')),
    ('ZeroPadding1DTest.test_zero_padding_1d_with_same_padding_one_int', 'ZeroPadding1D', [], {'padding': 2, 'data_format': 'channels_last'}, [A([[[0.9171546399600221, 0.35559197204371673, 0.7789133056309246], [0.20278747785578444, 0.9836051366530913, 0.8573170336868529]]], 'float64')], {}, [], A([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.9171546697616577, 0.3555919826030731, 0.7789133191108704], [0.20278747379779816, 0.983605146408081, 0.8573170304298401], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], 'float32')),
    ('ZeroPadding1DTest.test_zero_padding_1d_with_same_padding_one_tuple', 'ZeroPadding1D', [], {'padding': (2, 2), 'data_format': 'channels_last'}, [A([[[0.10056486187099822, 0.5152075864072083, 0.8365091255198965], [0.5350913386057394, 0.16067035947265262, 0.8346430817842663]]], 'float64')], {}, [], A([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1005648598074913, 0.5152075886726379, 0.836509108543396], [0.5350913405418396, 0.16067035496234894, 0.8346430659294128], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

"""Port of Keras 3.15's ``keras/src/layers/reshaping/up_sampling2d_test.py`` (eager calls with numeric results).

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
    ('UpSampling2dTest.test_upsampling_2d_correctness', 'UpSampling2D', [], {'size': (1, 2)}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
    ('UpSampling2dTest.test_upsampling_2d_lanczos_interpolation_methods', 'UpSampling2D', [], {'size': (1, 2), 'interpolation': 'lanczos3'}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
    ('UpSampling2dTest.test_upsampling_2d_lanczos_interpolation_methods#2', 'UpSampling2D', [], {'size': (1, 2), 'interpolation': 'lanczos5'}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
    ('UpSampling2dTest.test_upsampling_2d_various_interpolation_methods', 'UpSampling2D', [], {'size': (1, 2), 'interpolation': 'nearest'}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
    ('UpSampling2dTest.test_upsampling_2d_various_interpolation_methods#2', 'UpSampling2D', [], {'size': (1, 2), 'interpolation': 'bilinear'}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
    ('UpSampling2dTest.test_upsampling_2d_various_interpolation_methods#3', 'UpSampling2D', [], {'size': (1, 2), 'interpolation': 'bicubic'}, [A([[[[0, 1, 2]], [[3, 4, 5]]], [[[6, 7, 8]], [[9, 10, 11]]]], 'int64')], {}, [], A([[[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], [[[6, 7, 8], [6, 7, 8]], [[9, 10, 11], [9, 10, 11]]]], 'int64')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

"""Port of Keras 3.15's ``keras/src/layers/core/embedding_test.py`` (eager calls with numeric results).

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
    ('EmbeddingTest.test_correctness', 'Embedding', [], {'input_dim': 3, 'output_dim': 2}, [A([2, 1, 0], 'int64')], {}, [A([[0.0, 0.0], [2.0, 2.0], [3.0, 3.0]], 'float32')], A([[3.0, 3.0], [2.0, 2.0], [0.0, 0.0]], 'float32')),
    ('EmbeddingTest.test_embedding_basics', 'Embedding', [], {'input_dim': 4, 'output_dim': 3}, [A([2, 1], 'int32')], {}, [A([[0.03405747190117836, 0.03863375261425972, -0.029631389304995537], [-0.004645835608243942, -0.015571128576993942, 0.03494219854474068], [0.03980270400643349, -0.00826796144247055, 0.00749429315328598], [0.020508695393800735, -0.010343037545681, 0.040611136704683304]], 'float32')], A([[0.03980270400643349, -0.00826796144247055, 0.00749429315328598], [-0.004645835608243942, -0.015571128576993942, 0.03494219854474068]], 'float32')),
    ('EmbeddingTest.test_embedding_basics#2', 'Embedding', [], {'input_dim': 5, 'output_dim': 4, 'mask_zero': True}, [A([[2, 0, 2], [2, 0, 1]], 'int64')], {}, [A([[-0.0035939104855060577, -0.04529828950762749, -0.04262958839535713, -0.0038222186267375946], [-0.03874274343252182, 0.02915668860077858, 0.006150089204311371, -0.030827319249510765], [-0.00615454837679863, -0.012833915650844574, -0.0070633068680763245, -0.03333938121795654], [0.027293529361486435, -0.024760400876402855, 0.04454127326607704, 0.025936152786016464], [-0.032153189182281494, -0.025549758225679398, -0.0357142798602581, -0.036929916590452194]], 'float32')], A([[[-0.00615454837679863, -0.012833915650844574, -0.0070633068680763245, -0.03333938121795654], [-0.0035939104855060577, -0.04529828950762749, -0.04262958839535713, -0.0038222186267375946], [-0.00615454837679863, -0.012833915650844574, -0.0070633068680763245, -0.03333938121795654]], [[-0.00615454837679863, -0.012833915650844574, -0.0070633068680763245, -0.03333938121795654], [-0.0035939104855060577, -0.04529828950762749, -0.04262958839535713, -0.0038222186267375946], [-0.03874274343252182, 0.02915668860077858, 0.006150089204311371, -0.030827319249510765]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

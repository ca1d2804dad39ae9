"""Port of Keras 3.15's ``keras/src/layers/activations/softmax_test.py`` (eager calls with numeric results).

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
    ('SoftmaxTest.test_softmax', 'Softmax', [], {}, [A([[[0.18982994556427002, 0.5737524032592773, 0.7263590097427368, 2.3175323009490967], [2.266038179397583, 1.3906280994415283, 1.3319213390350342, 2.6891541481018066], [0.5335432291030884, 2.5961930751800537, 0.6992601156234741, 1.1584292650222778]], [[0.9026370048522949, 2.9017443656921387, 1.1503833532333374, 0.649034857749939], [2.7345714569091797, 1.2575258016586304, 0.8372175693511963, 0.533193826675415], [1.0121283531188965, 2.701446056365967, 0.9518433809280396, 2.427443027496338]]], 'float32')], {}, [], A([[[0.07953142374753952, 0.11675462871789932, 0.13600356876850128, 0.6677103638648987], [0.2997300922870636, 0.12489485740661621, 0.11777376383543015, 0.45760130882263184], [0.08392740786075592, 0.660239040851593, 0.09905437380075455, 0.15677915513515472]], [[0.0957891196012497, 0.707159698009491, 0.12271879613399506, 0.07433240860700607], [0.6716247200965881, 0.1533394455909729, 0.10072014480829239, 0.07431568950414658], [0.08714550733566284, 0.47196120023727417, 0.08204715698957443, 0.35884618759155273]]], 'float32')),
    ('SoftmaxTest.test_softmax_correctness', 'Softmax', [], {}, [A([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]], 'float64')], {}, [], A([[0.21194157004356384, 0.5761168599128723, 0.21194157004356384], [0.21194157004356384, 0.5761168599128723, 0.21194157004356384]], 'float32')),
    ('SoftmaxTest.test_softmax_correctness_with_axis', 'Softmax', [], {'axis': 1}, [A([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]], 'float64')], {}, [], A([[0.21194157004356384, 0.5761168599128723, 0.21194157004356384], [0.21194157004356384, 0.5761168599128723, 0.21194157004356384]], 'float32')),
    ('SoftmaxTest.test_softmax_correctness_with_mask', 'Softmax', [], {'axis': (1, 0)}, [A([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]], 'float64')], {'mask': A([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], 'float64')}, [], A([[0.21194154024124146, 0.0, 0.21194154024124146], [0.0, 0.5761168599128723, 0.0]], 'float32')),
    ('SoftmaxTest.test_softmax_mask_broadcastable', 'Softmax', [], {}, [A([[1.0, 2.0, 1.0], [3.0, 4.0, 5.0]], 'float64')], {'mask': A([[1.0, 0.0, 1.0]], 'float64')}, [], A([[0.5, 0.0, 0.5], [0.11920291185379028, 0.0, 0.8807970285415649]], 'float32')),
    ('SoftmaxTest.test_softmax_mask_broadcastable_fewer_dims', 'Softmax', [], {'axis': -1}, [A([[1.0, 2.0, 1.0], [3.0, 4.0, 5.0]], 'float64')], {'mask': A([1.0, 0.0, 1.0], 'float64')}, [], A([[0.5, 0.0, 0.5], [0.11920291185379028, 0.0, 0.8807970285415649]], 'float32')),
    ('SoftmaxTest.test_softmax_masked_values_are_zero_including_fully_masked', 'Softmax', [], {}, [A([[1.0, 2.0, 5.0, 1.0], [1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 2.0, 4.0]], 'float32')], {'mask': A([[True, True, False, False], [False, False, False, False], [True, True, True, True]], 'bool')}, [], A([[0.2689414322376251, 0.7310585379600525, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.23688283562660217, 0.03205860033631325, 0.08714431524276733, 0.6439142227172852]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

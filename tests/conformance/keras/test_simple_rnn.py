"""Port of Keras 3.15's ``keras/src/layers/rnn/simple_rnn_test.py`` (eager calls with numeric results).

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
    ('SimpleRNNTest.test_basics', 'SimpleRNN', [], {'units': 3, 'return_sequences': True, 'bias_regularizer': 'l1', 'kernel_regularizer': 'l2', 'recurrent_regularizer': 'l2'}, [A([[[2.426640510559082, 1.0490155220031738, 2.1789536476135254, 1.1345736980438232], [0.6264324188232422, 2.163252353668213, 1.8847306966781616, 1.9652177095413208]], [[0.9335085153579712, 0.4987313747406006, 2.4868905544281006, 0.7290068864822388], [0.589067816734314, 0.2828543186187744, 0.13559532165527344, 0.41497886180877686]], [[2.3102266788482666, 2.4000728130340576, 0.0781170129776001, 2.0631818771362305], [2.90071964263916, 2.0649213790893555, 2.038390636444092, 1.7939722537994385]]], 'float32')], {}, [A([[0.44648468494415283, -0.08189821243286133, 0.38386476039886475], [-0.8077349662780762, 0.18539869785308838, 0.40836942195892334], [-0.39936089515686035, -0.602454662322998, 0.810937762260437], [-0.1551978588104248, 0.36490190029144287, -0.06437981128692627]], 'float32'), A([[-0.08038616180419922, -0.38842734694480896, 0.9179664850234985], [0.37246814370155334, -0.8659377694129944, -0.3337951600551605], [0.9245570302009583, 0.3150807023048401, 0.21428608894348145]], 'float32'), A([0.0, 0.0, 0.0], 'float32')], A([[[-0.6696680188179016, -0.7177380919456482, 0.995558500289917], [-0.948676586151123, 0.8098945617675781, 0.9824641942977905]], [[-0.7977352738380432, -0.8385329842567444, 0.987433671951294], [0.5231899619102478, 0.889814555644989, 0.18202069401741028]], [[-0.8506612181663513, 0.7449736595153809, 0.9465414881706238], [-0.2395196557044983, -0.4174400866031647, 0.9904069304466248]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

"""Port of Keras 3.15's ``keras/src/layers/core/dense_test.py`` (eager calls with numeric results).

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
    ('DenseTest.test_dense_basics', 'Dense', [], {'units': 4, 'activation': 'relu', 'kernel_initializer': 'random_uniform', 'bias_initializer': 'ones', 'use_bias': False}, [A([[2.259273052215576, 2.004676580429077, 0.5958570241928101], [0.5206754207611084, 0.32422971725463867, 0.6976096630096436]], 'float32')], {}, [A([[-0.0023278482258319855, -0.022842908278107643, -0.027780819684267044, -0.017680920660495758], [0.028611373156309128, 0.03066866472363472, 0.0036254040896892548, 0.011307500302791595], [-0.02200639247894287, -0.04861736297607422, 0.04018285498023033, 0.008066438138484955]], 'float32')], A([[0.038984641432762146, 0.0, 0.0, 0.0], [0.0, 0.0, 0.014742622151970863, 8.743166836211458e-05]], 'float32')),
    ('DenseTest.test_dense_basics#2', 'Dense', [], {'units': 5, 'activation': 'sigmoid', 'kernel_regularizer': 'l2', 'bias_regularizer': 'l2'}, [A([[[1.5276821851730347, 0.3320024013519287, 1.1614680290222168, 2.9839863777160645], [1.9266668558120728, 0.5487971305847168, 2.1964211463928223, 1.3855676651000977], [2.488874673843384, 1.3759667873382568, 2.2291524410247803, 1.975716233253479]], [[1.6036666631698608, 0.2394343614578247, 1.3533761501312256, 1.3420929908752441], [2.539755344390869, 0.0805964469909668, 0.29204750061035156, 0.6445401906967163], [0.19575440883636475, 0.8781791925430298, 1.4725931882858276, 1.8821851015090942]]], 'float32')], {}, [A([[0.1299980878829956, -0.0388789176940918, 0.21478283405303955, 0.7926170825958252, 0.3474522829055786], [0.8117580413818359, 0.4058264493942261, -0.7124205231666565, 0.42958521842956543, 0.5548732280731201], [0.08646023273468018, 0.09961336851119995, 0.4835376739501953, -0.5053046941757202, 0.7686861753463745], [0.2476412057876587, 0.514554500579834, -0.35626769065856934, 0.70894455909729, 0.11595535278320312]], 'float32'), A([0.0, 0.0, 0.0, 0.0, 0.0], 'float32')], A([[[0.7870911955833435, 0.8489593267440796, 0.39893853664398193, 0.9469532370567322, 0.8758636713027954], [0.7736400365829468, 0.7464092969894409, 0.6436542272567749, 0.8368933796882629, 0.9439040422439575], [0.893071174621582, 0.845574676990509, 0.48208165168762207, 0.9446998834609985, 0.9726382493972778]], [[0.7010299563407898, 0.702705442905426, 0.586648166179657, 0.8377461433410645, 0.8682985305786133], [0.6411718130111694, 0.5731483697891235, 0.5986069440841675, 0.9134926795959473, 0.7731871008872986], [0.7911290526390076, 0.8121367692947388, 0.3677002191543579, 0.7544832229614258, 0.8705133199691772]]], 'float32')),
    ('DenseTest.test_dense_correctness', 'Dense', [], {'units': 2, 'activation': 'relu'}, [A([[-1.0, 2.0]], 'float64')], {}, [A([[1.0, -2.0], [3.0, -4.0]], 'float32'), A([5.0, -6.0], 'float32')], A([[10.0, 0.0]], 'float32')),
    ('DenseTest.test_dense_correctness#2', 'Dense', [], {'units': 2, 'use_bias': False}, [A([[-1.0, 2.0]], 'float64')], {}, [A([[1.0, -2.0], [3.0, -4.0]], 'float32')], A([[5.0, -6.0]], 'float32')),
    ('DenseTest.test_dense_no_activation', 'Dense', [], {'units': 2, 'use_bias': False, 'activation': None}, [A([[-1.0, 2.0]], 'float64')], {}, [A([[1.0, -2.0], [3.0, -4.0]], 'float32')], A([[5.0, -6.0]], 'float32')),
    ('DenseTest.test_dense_with_activation', 'Dense', [], {'units': 2, 'use_bias': False, 'activation': 'relu'}, [A([[-1.0, 2.0]], 'float64')], {}, [A([[1.0, -2.0], [3.0, -4.0]], 'float32')], A([[5.0, 0.0]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

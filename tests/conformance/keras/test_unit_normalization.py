"""Port of Keras 3.15's ``keras/src/layers/normalization/unit_normalization_test.py`` (eager calls with numeric results).

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
    ('UnitNormalizationTest.test_correctness', 'UnitNormalization', [], {'axis': -1}, [A([[-1.4448842407701152, -0.43196038818260096, 0.913062363485388], [-1.2684668166848851, 0.09714703800685753, 0.07955495899710895]], 'float64')], {}, [], A([[-0.8195871114730835, -0.2450225055217743, 0.5179197788238525], [-0.9951362609863281, 0.07621369510889053, 0.06241237372159958]], 'float32')),
    ('UnitNormalizationTest.test_correctness#2', 'UnitNormalization', [], {'axis': (1, 2)}, [A([[[1.099082587788685, -0.4925429492666883, 1.1510716147393358], [1.2302366416972408, 0.12351665390496955, 1.2270126289668217], [1.1395121129218266, 2.264618471686245, 1.4705501930964369]], [[-0.1320360376518376, 0.36054682702511043, 1.9002347906591557], [-1.0598649243150515, -1.4394554054075084, -0.5912156406168421], [0.913502979957031, 0.011906599861556025, -1.5808965747717914]]], 'float64')], {}, [], A([[[0.28964027762413025, -0.12979941070079803, 0.3033409118652344], [0.3242031931877136, 0.03255023434758186, 0.3233535587787628], [0.3002946078777313, 0.5967928767204285, 0.3875328004360199]], [[-0.040483828634023666, 0.1105479747056961, 0.5826347470283508], [-0.32496726512908936, -0.44135427474975586, -0.18127380311489105], [0.28009095788002014, 0.003650706261396408, -0.484721839427948]]], 'float32')),
    ('UnitNormalizationTest.test_correctness#3', 'UnitNormalization', [], {'axis': 1}, [A([[[1.536874840231844, 0.6807623559063043], [-2.530451774440455, -0.09650284885755873], [-1.376387224823061, -0.13502741824663766]], [[-2.9960429388905885, -0.362604468545357], [-1.0081960582594003, -0.743738891063752], [0.4130869818971724, 2.0162218572964976]]], 'float64')], {}, [], A([[[0.4707255959510803, 0.971544086933136], [-0.7750458121299744, -0.13772320747375488], [-0.4215702414512634, -0.1927032172679901]], [[-0.9397862553596497, -0.1663782000541687], [-0.31624674797058105, -0.341258704662323], [0.12957540154457092, 0.9251274466514587]]], 'float32')),
    ('UnitNormalizationTest.test_un_basics', 'UnitNormalization', [], {'axis': -1}, [A([[2.6624341011047363, 0.8301862478256226, 2.1477198600769043], [0.6868572235107422, 2.437303304672241, 1.0891560316085815]], 'float32')], {}, [], A([[0.7563713192939758, 0.23584774136543274, 0.6101461052894592], [0.24917422235012054, 0.8841912746429443, 0.39511793851852417]], 'float32')),
    ('UnitNormalizationTest.test_un_basics#2', 'UnitNormalization', [], {'axis': (1, 2)}, [A([[[1.0151857137680054, 2.814868927001953, 2.967503547668457], [0.059758543968200684, 0.5345320701599121, 1.4097282886505127], [1.12498140335083, 2.1613950729370117, 1.2946776151657104]]], 'float32')], {}, [], A([[[0.19306179881095886, 0.5353145599365234, 0.56434166431427], [0.011364514008164406, 0.1016540378332138, 0.2680934965610504], [0.21394208073616028, 0.41104087233543396, 0.2462138682603836]]], 'float32')),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, call_args, call_kwargs, weights, expected", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, call_args, call_kwargs, weights, expected):
    replay_layer(getattr(ef.layers, name), args, kwargs, call_args, call_kwargs, weights, expected)

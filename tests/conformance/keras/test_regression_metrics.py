"""Port of Keras 3.15's ``keras/src/metrics/regression_metrics_test.py``.

Every metric those tests build and call was recorded by running them under Keras 3.15
(TensorFlow 2.21 backend, CPU): constructor arguments, each ``update_state`` / ``result`` /
``reset_state`` / call with its inputs, and the value Keras returned are the literals
below, replayed in order on the eagerflow metric of the same name.
"""
# ruff: noqa: E501  (the case table holds recorded literals, one call per line)

import pytest

import eagerflow as ef
from tests.conformance.keras._replay import A, replay

nan = float("nan")
INF = inf = float("inf")

# (Keras test, class, constructor args, constructor kwargs, [(method, args, kwargs, Keras's result)])
CASES = [
    ('MeanSquaredErrorTest.test_unweighted', 'MeanSquaredError', [], {}, [
        ('update_state', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {}, None),
        ('result', [], {}, A(0.5, 'float32'))]),
    ('MeanSquaredErrorTest.test_weighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {'sample_weight': A([1.0, 1.5, 2.0, 2.5], 'float64')}, A(0.5428571105003357, 'float32'))]),
    ('CosineSimilarityTest.test_axis', 'CosineSimilarity', [], {'axis': 1}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(0.1872190535068512, 'float32'))]),
    ('CosineSimilarityTest.test_unweighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(0.1872190535068512, 'float32'))]),
    ('CosineSimilarityTest.test_weighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([1.2, 3.4], 'float64')}, A(-0.06782262027263641, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_unweighted', 'MeanAbsoluteError', [], {}, [
        ('update_state', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {}, None),
        ('result', [], {}, A(0.5, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_weighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {'sample_weight': A([1.0, 1.5, 2.0, 2.5], 'float64')}, A(0.5428571105003357, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_unweighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]], 'float32')], {}, A(350000000.0, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_weighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]], 'float32')], {'sample_weight': A([1.0, 1.5, 2.0, 2.5], 'float64')}, A(400000000.0, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_unweighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('update_state', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {}, None),
        ('result', [], {}, A(0.24022643268108368, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_weighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[0, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 1, 1, 0], [0, 0, 0, 0, 1]], 'int64'), A([[0, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]], 'int64')], {'sample_weight': A([1.0, 1.5, 2.0, 2.5], 'float64')}, A(0.2608172595500946, 'float32'))]),
    ('RootMeanSquaredErrorTest.test_unweighted', 'RootMeanSquaredError', [], {}, [
        ('update_state', [A([2, 4, 6], 'int64'), A([1, 3, 2], 'int64')], {}, None),
        ('result', [], {}, A(2.4494898319244385, 'float32'))]),
    ('RootMeanSquaredErrorTest.test_weighted', 'RootMeanSquaredError', [], {}, [
        ('__call__', [A([2, 4, 6, 8], 'int64'), A([1, 3, 2, 3], 'int64')], {'sample_weight': A([0, 1, 0, 1], 'int64')}, A(3.605551242828369, 'float32'))]),
    ('LogCoshErrorTest.test_unweighted', 'LogCoshError', [], {}, [
        ('update_state', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, None),
        ('result', [], {}, A(4.829245090484619, 'float32'))]),
    ('LogCoshErrorTest.test_weighted', 'LogCoshError', [], {'dtype': 'float32'}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(5.217875003814697, 'float32'))]),
    ('R2ScoreTest.test_errors', 'R2Score', [], {}, [
        ('update_state', [[0.0, 1.0], [0.0, 1.0]], {}, ('raises', 'ValueError'))]),
    ('R2ScoreTest.test_r2_sklearn_comparison0', 'R2Score', [None, 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.5, 0.6], [0.1, 0.2, 0.3], [0.5, 0.8, 0.2]], None], {}, None),
        ('result', [], {}, A([0.3699999451637268, -1.2950003147125244, 0.5649999976158142], 'float32'))]),
    ('R2ScoreTest.test_r2_sklearn_comparison1', 'R2Score', ['uniform_average', 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.5, 0.6], [0.1, 0.2, 0.3], [0.5, 0.8, 0.2]], None], {}, None),
        ('result', [], {}, A(-0.12000012397766113, 'float32'))]),
    ('R2ScoreTest.test_r2_sklearn_comparison2', 'R2Score', ['variance_weighted_average', 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.5, 0.6], [0.1, 0.2, 0.3], [0.5, 0.8, 0.2]], None], {}, None),
        ('result', [], {}, A(-0.12000011652708054, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison0', 'R2Score', [None, 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A([0.17305558919906616, -8.836666107177734, -0.5210000276565552], 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison1', 'R2Score', [None, 1], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A([0.05492067337036133, -10.241904258728027, -0.7382857799530029], 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison2', 'R2Score', [None, 2], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A([-0.1025925874710083, -12.115554809570312, -1.0280001163482666], 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison3', 'R2Score', ['uniform_average', 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-3.0615367889404297, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison4', 'R2Score', ['uniform_average', 1], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-3.641756534576416, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison5', 'R2Score', ['uniform_average', 2], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-4.415382385253906, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison6', 'R2Score', ['variance_weighted_average', 0], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-1.3710224628448486, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison7', 'R2Score', ['variance_weighted_average', 1], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-1.7097399234771729, 'float32'))]),
    ('R2ScoreTest.test_r2_tfa_comparison8', 'R2Score', ['variance_weighted_average', 2], {'dtype': 'float32'}, [
        ('update_state', [[[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.4, 0.9, 1.6], [0.1, 1.2, 0.6], [1.5, 0.8, 0.6]], [0.8, 0.1, 0.4]], {}, None),
        ('result', [], {}, A(-2.161363363265991, 'float32'))]),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

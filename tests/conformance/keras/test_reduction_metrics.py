"""Port of Keras 3.15's ``keras/src/metrics/reduction_metrics_test.py``.

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
    ('SumTest.test_unweighted', 'Sum', [], {'name': 'sum', 'dtype': 'float32'}, [
        ('update_state', [[1, 3, 5, 7]], {}, None),
        ('result', [], {}, A(16.0, 'float32'))]),
    ('SumTest.test_weighted', 'Sum', [], {'name': 'sum', 'dtype': 'float32'}, [
        ('update_state', [[1, 3, 5, 7]], {'sample_weight': [1, 1, 0, 0]}, None),
        ('result', [], {}, A(4.0, 'float32'))]),
    ('SumTest.test_weighted_nd', 'Sum', [], {'name': 'sum', 'dtype': 'float32'}, [
        ('update_state', [[[1, 3], [5, 7]]], {'sample_weight': [[1, 1], [1, 0]]}, None),
        ('result', [], {}, A(9.0, 'float32'))]),
    ('SumTest.test_weighted_nd_broadcast', 'Sum', [], {'name': 'sum', 'dtype': 'float32'}, [
        ('update_state', [[[1, 3], [5, 7]]], {'sample_weight': [[1, 0]]}, None),
        ('result', [], {}, A(6.0, 'float32'))]),
    ('MeanTest.test_unweighted', 'Mean', [], {'name': 'mean', 'dtype': 'float32'}, [
        ('update_state', [[1, 3, 5, 7]], {}, None),
        ('result', [], {}, A(4.0, 'float32'))]),
    ('MeanTest.test_weighted', 'Mean', [], {'name': 'mean', 'dtype': 'float32'}, [
        ('update_state', [[1, 3, 5, 7]], {'sample_weight': [1, 1, 0, 0]}, None),
        ('result', [], {}, A(2.0, 'float32'))]),
    ('MeanTest.test_weighted_nd', 'Mean', [], {'name': 'mean', 'dtype': 'float32'}, [
        ('update_state', [[[1, 3], [5, 7]]], {'sample_weight': [[1, 1], [1, 0]]}, None),
        ('result', [], {}, A(3.0, 'float32'))]),
    ('MeanTest.test_weighted_nd_broadcast', 'Mean', [], {'name': 'mean', 'dtype': 'float32'}, [
        ('update_state', [[[1, 3], [5, 7]]], {'sample_weight': [[1, 0]]}, None),
        ('result', [], {}, A(3.0, 'float32'))]),
    ('MeanTest.test_weighted_negative_weights', 'Mean', [], {'name': 'mean', 'dtype': 'float32'}, [
        ('update_state', [[1, 3, 5, 7]], {'sample_weight': [-1, -1, 0, 0]}, None),
        ('result', [], {}, A(2.0, 'float32'))]),
    ('MetricWrapperTest.test_binary_accuracy_with_boolean_inputs', 'BinaryAccuracy', [], {}, [
        ('update_state', [A([[True], [True], [False], [False], [False], [True], [True], [True], [False], [True], [True], [False], [True], [False], [False], [True], [False], [True], [False], [True], [True], [True], [True], [False], [True], [True], [False], [True], [False], [False], [False], [True]], 'bool'), A([[True], [True], [False], [False], [False], [True], [True], [True], [False], [True], [True], [False], [True], [False], [False], [True], [False], [True], [False], [True], [True], [True], [True], [False], [True], [True], [False], [True], [False], [False], [False], [True]], 'bool')], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

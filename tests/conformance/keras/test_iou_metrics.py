"""Port of Keras 3.15's ``keras/src/metrics/iou_metrics_test.py``.

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
    ('IoUTest.test_absent_class_contributes_zero', 'IoU', [], {'num_classes': 4, 'target_class_ids': [0, 1, 2, 3]}, [
        ('__call__', [[0, 0, 1, 1], [0, 1, 0, 1]], {}, A(0.3333333432674408, 'float32'))]),
    ('IoUTest.test_multi_dim_input', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1], 'dtype': 'float32'}, [
        ('__call__', [A([[0, 0], [1, 1]], 'int64'), A([[0.0, 1.0], [0.0, 1.0]], 'float32')], {'sample_weight': A([[0.2, 0.3], [0.4, 0.1]], 'float64')}, A(0.1736110895872116, 'float32'))]),
    ('IoUTest.test_negative_y_pred_ignored', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('update_state', [[0, 1], [-1, 1]], {}, A([[0, 0], [0, 1]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('IoUTest.test_negative_y_true_ignored', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('update_state', [[-1, 0], [0, 0]], {}, A([[1, 0], [0, 0]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('IoUTest.test_out_of_range_y_pred_ignored', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('update_state', [[0, 1], [0, 2]], {}, A([[1, 0], [0, 0]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('IoUTest.test_out_of_range_y_true_ignored', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('update_state', [[0, 2], [0, 1]], {}, A([[1, 0], [0, 0]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('IoUTest.test_unweighted', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('__call__', [[0, 0, 1, 1], [0, 1, 0, 1]], {}, A(0.3333333432674408, 'float32'))]),
    ('IoUTest.test_weighted', 'IoU', [], {'num_classes': 2, 'target_class_ids': [1, 0], 'dtype': 'float32'}, [
        ('__call__', [A([0, 0, 1, 1], 'int64'), A([0.0, 1.0, 0.0, 1.0], 'float32')], {'sample_weight': A([0.2, 0.3, 0.4, 0.1], 'float64')}, A(0.1736110895872116, 'float32'))]),
    ('IoUTest.test_zero_and_non_zero_entries', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('__call__', [A([1], 'int64'), A([1.0], 'float32')], {}, A(0.9999997615814209, 'float32'))]),
    ('IoUTest.test_zero_valid_entries', 'IoU', [], {'num_classes': 2, 'target_class_ids': [0, 1]}, [
        ('result', [], {}, A(0.0, 'float32'))]),
    ('BinaryIoUTest.test_different_thresholds_unweighted', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.3}, [
        ('__call__', [[0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]], {}, A(0.3333333432674408, 'float32'))]),
    ('BinaryIoUTest.test_different_thresholds_unweighted#2', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.5}, [
        ('__call__', [[0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]], {}, A(0.5833333730697632, 'float32'))]),
    ('BinaryIoUTest.test_different_thresholds_weighted', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.3, 'dtype': 'float32'}, [
        ('__call__', [[0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]], {'sample_weight': A([0.2, 0.3, 0.4, 0.1], 'float64')}, A(0.1736110895872116, 'float32'))]),
    ('BinaryIoUTest.test_different_thresholds_weighted#2', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.5, 'dtype': 'float32'}, [
        ('__call__', [[0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]], {'sample_weight': A([0.1, 0.2, 0.4, 0.3], 'float64')}, A(0.6571427583694458, 'float32'))]),
    ('BinaryIoUTest.test_multi_dim_input', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.4, 'dtype': 'float32'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 1.0]], 'float32'), A([[0.1, 0.7], [0.9, 0.3]], 'float64')], {'sample_weight': A([[0.2, 0.3], [0.4, 0.1]], 'float64')}, A(0.33035707473754883, 'float32'))]),
    ('BinaryIoUTest.test_zero_and_non_zero_entries', 'BinaryIoU', [], {'target_class_ids': [0, 1], 'threshold': 0.5}, [
        ('__call__', [A([1], 'int64'), A([0.6000000238418579], 'float32')], {}, A(0.9999997615814209, 'float32'))]),
    ('BinaryIoUTest.test_zero_valid_entries', 'BinaryIoU', [], {'target_class_ids': [0, 1]}, [
        ('result', [], {}, A(0.0, 'float32'))]),
    ('MeanIoUTest.test_absent_class_contributes_zero', 'MeanIoU', [], {'num_classes': 3}, [
        ('__call__', [[0, 0, 0, 0], [0, 0, 0, 0]], {}, A(0.9999998807907104, 'float32'))]),
    ('MeanIoUTest.test_multi_dim_input', 'MeanIoU', [], {'num_classes': 2, 'dtype': 'float32'}, [
        ('__call__', [A([[0, 0], [1, 1]], 'int64'), A([[0.0, 1.0], [0.0, 1.0]], 'float32')], {'sample_weight': A([[0.2, 0.3], [0.4, 0.1]], 'float64')}, A(0.1736110895872116, 'float32'))]),
    ('MeanIoUTest.test_negative_ignored', 'MeanIoU', [], {'num_classes': 2}, [
        ('update_state', [[0, -1], [0, 1]], {}, A([[1, 0], [0, 0]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('MeanIoUTest.test_out_of_range_ignored', 'MeanIoU', [], {'num_classes': 2}, [
        ('update_state', [[0, 3], [0, 1]], {}, A([[1, 0], [0, 0]], 'int64')),
        ('result', [], {}, A(0.9999997615814209, 'float32'))]),
    ('MeanIoUTest.test_unweighted', 'MeanIoU', [], {'num_classes': 2}, [
        ('__call__', [[0, 0, 1, 1], [0, 1, 0, 1]], {}, A(0.3333333432674408, 'float32'))]),
    ('MeanIoUTest.test_unweighted_ignore_class_1', 'MeanIoU', [], {'num_classes': 3, 'ignore_class': -1}, [
        ('__call__', [[0, 1, 2, -1], [0, 1, 1, 1]], {}, A(0.4999999701976776, 'float32'))]),
    ('MeanIoUTest.test_unweighted_ignore_class_255', 'MeanIoU', [], {'num_classes': 3, 'ignore_class': 255}, [
        ('__call__', [[0, 1, 2, 255], [0, 1, 1, 1]], {}, A(0.4999999701976776, 'float32'))]),
    ('MeanIoUTest.test_user_warning_float_weight', 'MeanIoU', [], {'num_classes': 3}, [
        ('__call__', [[0, 1, 1, 0], [0, 1, 1, 1]], {'sample_weight': A([0.2, 0.3, 0.4, 0.1], 'float64')}, A(0.0, 'float32'))]),
    ('MeanIoUTest.test_weighted', 'MeanIoU', [], {'num_classes': 2, 'dtype': 'float32'}, [
        ('__call__', [A([0, 0, 1, 1], 'int64'), A([0.0, 1.0, 0.0, 1.0], 'float32')], {'sample_weight': A([0.2, 0.3, 0.4, 0.1], 'float64')}, A(0.1736110895872116, 'float32'))]),
    ('MeanIoUTest.test_weighted_ignore_class_1', 'MeanIoU', [], {'num_classes': 2, 'ignore_class': -1, 'dtype': 'float32'}, [
        ('__call__', [A([0, 0, 1, -1], 'int64'), A([0.0, 1.0, 0.0, 1.0], 'float32')], {'sample_weight': A([0.2, 0.3, 0.4, 0.1], 'float64')}, A(0.1111110970377922, 'float32'))]),
    ('MeanIoUTest.test_zero_and_non_zero_entries', 'MeanIoU', [], {'num_classes': 2}, [
        ('__call__', [A([1], 'int64'), A([1.0], 'float32')], {}, A(0.9999997615814209, 'float32'))]),
    ('MeanIoUTest.test_zero_valid_entries', 'MeanIoU', [], {'num_classes': 2}, [
        ('result', [], {}, A(0.0, 'float32'))]),
    ('OneHotIoUTest.test_unweighted', 'OneHotIoU', [], {'num_classes': 3, 'target_class_ids': [0, 2]}, [
        ('__call__', [A([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]], 'int64'), A([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]], 'float64')], {}, A(0.1666666716337204, 'float32'))]),
    ('OneHotIoUTest.test_weighted', 'OneHotIoU', [], {'num_classes': 3, 'target_class_ids': [0, 2], 'dtype': 'float32'}, [
        ('__call__', [A([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]], 'int64'), A([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]], 'float64')], {'sample_weight': [0.1, 0.2, 0.3, 0.4]}, A(0.07142855226993561, 'float32'))]),
    ('OneHotMeanIoUTest.test_unweighted', 'OneHotMeanIoU', [], {'num_classes': 3}, [
        ('__call__', [A([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]], 'int64'), A([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]], 'float64')], {}, A(0.1111111119389534, 'float32'))]),
    ('OneHotMeanIoUTest.test_weighted', 'OneHotMeanIoU', [], {'num_classes': 3, 'dtype': 'float32'}, [
        ('__call__', [A([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 0]], 'int64'), A([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5], [0.6, 0.2, 0.2]], 'float64')], {'sample_weight': [0.1, 0.2, 0.3, 0.3, 0.1]}, A(0.09259257465600967, 'float32'))]),
    ('OneHotMeanIoUTest.test_weighted#2', 'OneHotMeanIoU', [], {'num_classes': 3}, [
        ('__call__', [A([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 0]], 'int64'), A([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5], [0.6, 0.2, 0.2]], 'float64')], {'sample_weight': [1, 2, 3, 3, 1]}, A(0.09259259700775146, 'float32'))]),
]

MARKS: dict = {
    # Keras 3.15 keeps an IoU's confusion matrix in int64 unless dtype= is given, so fractional
    # weights truncate to 0 (it warns); eagerflow counts weights as given (compatibility guide).
    "MeanIoUTest.test_user_warning_float_weight": pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason="on purpose: fractional sample weights count as given (Keras truncates them to 0)"),
}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

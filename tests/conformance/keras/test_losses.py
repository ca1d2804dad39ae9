"""Port of Keras 3.15's ``keras/src/losses/losses_test.py``.

Every loss call those tests make was recorded by running them under Keras 3.15
(TensorFlow 2.21 backend, CPU): constructor arguments, inputs and the value Keras returned
are the literals below, replayed on the eagerflow loss of the same name. The
cross-entropy cases ported in ``test_losses_from_logits.py`` are not repeated here; ``CTC``
and ``Circle`` are not in eagerflow (see docs/guides/keras-compatibility.md).
"""
# ruff: noqa: E501  (the case table holds recorded literals, one call per line)

import pytest

import eagerflow as ef
from tests.conformance.keras._replay import A, replay

nan = float("nan")
INF = inf = float("inf")

# (Keras test, class, constructor args, constructor kwargs, [(method, args, kwargs, Keras's result)])
CASES = [
    ('MeanSquaredErrorTest.test_all_correct_unweighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[4, 8, 12], [8, 1, 3]], 'int64'), A([[4, 8, 12], [8, 1, 3]], 'int64')], {}, A(0.0, 'float32'))]),
    ('MeanSquaredErrorTest.test_dtype_arg', 'MeanSquaredError', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(49.5, 'bfloat16'))]),
    ('MeanSquaredErrorTest.test_mean_with_sample_weight_reduction', 'MeanSquaredError', [], {'reduction': 'mean_with_sample_weight'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(55.63767623901367, 'float32'))]),
    ('MeanSquaredErrorTest.test_no_reduction', 'MeanSquaredError', [], {'reduction': None}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A([84.33333587646484, 143.3666534423828], 'float32'))]),
    ('MeanSquaredErrorTest.test_sample_weighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(127.96666717529297, 'float32'))]),
    ('MeanSquaredErrorTest.test_scalar_weighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(113.84999084472656, 'float32'))]),
    ('MeanSquaredErrorTest.test_sum_reduction', 'MeanSquaredError', [], {'reduction': 'sum'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(227.69998168945312, 'float32'))]),
    ('MeanSquaredErrorTest.test_timestep_weighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[[1], [9], [2]], [[-5], [-2], [6]]], 'int64'), A([[[4], [8], [12]], [[8], [1], [3]]], 'int64')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(97.83333587646484, 'float32'))]),
    ('MeanSquaredErrorTest.test_unweighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(49.5, 'float32'))]),
    ('MeanSquaredErrorTest.test_zero_weighted', 'MeanSquaredError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_all_correct_unweighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[4, 8, 12], [8, 1, 3]], 'int64'), A([[4, 8, 12], [8, 1, 3]], 'int64')], {}, A(0.0, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_dtype_arg', 'MeanAbsoluteError', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(5.5, 'bfloat16'))]),
    ('MeanAbsoluteErrorTest.test_mean_with_sample_weight_reduction', 'MeanAbsoluteError', [], {'reduction': 'mean_with_sample_weight'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(5.898550510406494, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_no_reduction', 'MeanAbsoluteError', [], {'reduction': None}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A([10.733332633972168, 14.566666603088379], 'float32'))]),
    ('MeanAbsoluteErrorTest.test_sample_weighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(13.566667556762695, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_scalar_weighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(12.649999618530273, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_sum_reduction', 'MeanAbsoluteError', [], {'reduction': 'sum'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(25.299999237060547, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_timestep_weighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[[1], [9], [2]], [[-5], [-2], [6]]], 'int64'), A([[[4], [8], [12]], [[8], [1], [3]]], 'int64')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(13.833333015441895, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_unweighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(5.5, 'float32'))]),
    ('MeanAbsoluteErrorTest.test_zero_weighted', 'MeanAbsoluteError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_all_correct_unweighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[4, 8, 12], [8, 1, 3]], 'int64'), A([[4, 8, 12], [8, 1, 3]], 'int64')], {}, A(0.0, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_dtype_arg', 'MeanAbsolutePercentageError', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(212.0, 'bfloat16'))]),
    ('MeanAbsolutePercentageErrorTest.test_mean_with_sample_weight_reduction', 'MeanAbsolutePercentageError', [], {'reduction': 'mean_with_sample_weight'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(183.86471557617188, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_no_reduction', 'MeanAbsolutePercentageError', [], {'reduction': None}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A([621.851806640625, 352.6666564941406], 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_sample_weighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(422.8888854980469, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_scalar_weighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(487.25921630859375, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_timestep_weighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[[1], [9], [2]], [[-5], [-2], [6]]], 'int64'), A([[[4], [8], [12]], [[8], [1], [3]]], 'int64')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(694.4445190429688, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_unweighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(211.85183715820312, 'float32'))]),
    ('MeanAbsolutePercentageErrorTest.test_zero_weighted', 'MeanAbsolutePercentageError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_dtype_arg', 'MeanSquaredLogarithmicError', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(3.3125, 'bfloat16'))]),
    ('MeanSquaredLogarithmicErrorTest.test_mean_with_sample_weight_reduction', 'MeanSquaredLogarithmicError', [], {'reduction': 'mean_with_sample_weight'}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(1.645929217338562, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_sample_weighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(3.785637617111206, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_scalar_weighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(3.305196762084961, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_timestep_weighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[[1], [9], [2]], [[-5], [-2], [6]]], 'int64'), A([[[4], [8], [12]], [[8], [1], [3]]], 'int64')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(2.647373914718628, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_unweighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(1.4370421171188354, 'float32'))]),
    ('MeanSquaredLogarithmicErrorTest.test_zero_weighted', 'MeanSquaredLogarithmicError', [], {}, [
        ('__call__', [A([[1, 9, 2], [-5, -2, 6]], 'int64'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('HingeTest.test_dtype_arg', 'Hinge', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.296875, 'bfloat16'))]),
    ('HingeTest.test_unweighted', 'Hinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.2999999523162842, 'float32'))]),
    ('HingeTest.test_unweighted#2', 'Hinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(2.5999999046325684, 'float32'))]),
    ('HingeTest.test_unweighted#3', 'Hinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A([1.100000023841858, 1.5], 'float32'))]),
    ('HingeTest.test_weighted', 'Hinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(0.550000011920929, 'float32'))]),
    ('HingeTest.test_weighted#2', 'Hinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(1.100000023841858, 'float32'))]),
    ('HingeTest.test_weighted#3', 'Hinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A([1.100000023841858, 0.0], 'float32'))]),
    ('HingeTest.test_zero_weighted', 'Hinge', [], {}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': 0.0}, A(0.0, 'float32'))]),
    ('SquaredHingeTest.test_dtype_arg', 'SquaredHinge', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.859375, 'bfloat16'))]),
    ('SquaredHingeTest.test_unweighted', 'SquaredHinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.8600000143051147, 'float32'))]),
    ('SquaredHingeTest.test_unweighted#2', 'SquaredHinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(3.7200000286102295, 'float32'))]),
    ('SquaredHingeTest.test_unweighted#3', 'SquaredHinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A([1.4600000381469727, 2.259999990463257], 'float32'))]),
    ('SquaredHingeTest.test_weighted', 'SquaredHinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(0.7300000190734863, 'float32'))]),
    ('SquaredHingeTest.test_weighted#2', 'SquaredHinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(1.4600000381469727, 'float32'))]),
    ('SquaredHingeTest.test_weighted#3', 'SquaredHinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A([1.4600000381469727, 0.0], 'float32'))]),
    ('SquaredHingeTest.test_zero_weighted', 'SquaredHinge', [], {}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': 0.0}, A(0.0, 'float32'))]),
    ('CategoricalHingeTest.test_dtype_arg', 'CategoricalHinge', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.40625, 'bfloat16'))]),
    ('CategoricalHingeTest.test_unweighted', 'CategoricalHinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(1.4000000953674316, 'float32'))]),
    ('CategoricalHingeTest.test_unweighted#2', 'CategoricalHinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(2.8000001907348633, 'float32'))]),
    ('CategoricalHingeTest.test_unweighted#3', 'CategoricalHinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A([1.2000000476837158, 1.600000023841858], 'float32'))]),
    ('CategoricalHingeTest.test_weighted', 'CategoricalHinge', [], {'reduction': 'sum_over_batch_size'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(0.6000000238418579, 'float32'))]),
    ('CategoricalHingeTest.test_weighted#2', 'CategoricalHinge', [], {'reduction': 'sum'}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A(1.2000000476837158, 'float32'))]),
    ('CategoricalHingeTest.test_weighted#3', 'CategoricalHinge', [], {'reduction': None}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': [1, 0]}, A([1.2000000476837158, 0.0], 'float32'))]),
    ('CategoricalHingeTest.test_zero_weighted', 'CategoricalHinge', [], {}, [
        ('__call__', [A([[0.0, 1.0], [0.0, 0.0]], 'float64'), A([[0.6, 0.4], [0.4, 0.6]], 'float64')], {'sample_weight': 0.0}, A(0.0, 'float32'))]),
    ('CosineSimilarityTest.test_axis', 'CosineSimilarity', [], {'axis': 1}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(-0.1872190535068512, 'float32'))]),
    ('CosineSimilarityTest.test_dtype_arg', 'CosineSimilarity', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(-0.1884765625, 'bfloat16'))]),
    ('CosineSimilarityTest.test_sample_weighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([1.2, 3.4], 'float64')}, A(0.1559920310974121, 'float32'))]),
    ('CosineSimilarityTest.test_scalar_weighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(-0.4306038022041321, 'float32'))]),
    ('CosineSimilarityTest.test_timestep_weighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[[1.0], [9.0], [2.0]], [[-5.0], [-2.0], [6.0]]], 'float32'), A([[[4.0], [8.0], [12.0]], [[8.0], [1.0], [3.0]]], 'float32')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(-2.0, 'float32'))]),
    ('CosineSimilarityTest.test_unweighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(-0.1872190535068512, 'float32'))]),
    ('CosineSimilarityTest.test_zero_weighted', 'CosineSimilarity', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('HuberLossTest.test_all_correct', 'Huber', [], {}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64')], {}, A(0.0, 'float32'))]),
    ('HuberLossTest.test_dtype_arg', 'Huber', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {}, A(0.1044921875, 'bfloat16'))]),
    ('HuberLossTest.test_non_default_delta', 'Huber', [], {'delta': 0.8}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {'sample_weight': 2.3}, A(0.2395833432674408, 'float32'))]),
    ('HuberLossTest.test_sample_weighted', 'Huber', [], {}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(0.2276666760444641, 'float32'))]),
    ('HuberLossTest.test_scalar_weighted', 'Huber', [], {}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {'sample_weight': 2.3}, A(0.2395833432674408, 'float32')),
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {'sample_weight': 2.3}, A(0.2395833432674408, 'float32'))]),
    ('HuberLossTest.test_timestep_weighted', 'Huber', [], {}, [
        ('__call__', [A([[[1.0], [0.0], [1.0]], [[1.0], [0.0], [0.0]]], 'float64'), A([[[0.9], [0.2], [0.2]], [[0.8], [0.4], [0.6]]], 'float64')], {'sample_weight': A([[[3], [6], [5]], [[0], [4], [2]]], 'int64')}, A(0.4025000035762787, 'float32'))]),
    ('HuberLossTest.test_unweighted', 'Huber', [], {}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {}, A(0.1041666716337204, 'float32'))]),
    ('HuberLossTest.test_zero_weighted', 'Huber', [], {}, [
        ('__call__', [A([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], 'float64'), A([[0.9, 0.2, 0.2], [0.8, 0.4, 0.6]], 'float64')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('LogCoshTest.test_dtype_arg', 'LogCosh', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(4.84375, 'bfloat16'))]),
    ('LogCoshTest.test_sample_weighted', 'LogCosh', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': A([1.2, 3.4], 'float64')}, A(12.001113891601562, 'float32'))]),
    ('LogCoshTest.test_scalar_weighted', 'LogCosh', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(11.107263565063477, 'float32')),
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 2.3}, A(11.107263565063477, 'float32'))]),
    ('LogCoshTest.test_timestep_weighted', 'LogCosh', [], {}, [
        ('__call__', [A([[[1], [9], [2]], [[-5], [-2], [6]]], 'int64'), A([[[4], [8], [12]], [[8], [1], [3]]], 'int64')], {'sample_weight': A([[[3], [6], [5]], [[0], [4], [2]]], 'int64')}, A(11.653484344482422, 'float32'))]),
    ('LogCoshTest.test_unweighted', 'LogCosh', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {}, A(4.829245090484619, 'float32'))]),
    ('LogCoshTest.test_zero_weighted', 'LogCosh', [], {}, [
        ('__call__', [A([[1.0, 9.0, 2.0], [-5.0, -2.0, 6.0]], 'float32'), A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('KLDivergenceTest.test_dtype_arg', 'KLDivergence', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {}, A(0.59375, 'bfloat16'))]),
    ('KLDivergenceTest.test_sample_weighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {'sample_weight': A([[1.2000000476837158], [3.4000000953674316]], 'float32')}, A(2.007571220397949, 'float32'))]),
    ('KLDivergenceTest.test_scalar_weighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {'sample_weight': 2.3}, A(1.3709697723388672, 'float32')),
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {'sample_weight': 2.3}, A(1.3709697723388672, 'float32'))]),
    ('KLDivergenceTest.test_timestep_weighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[[0.5], [0.800000011920929], [0.11999999731779099]], [[0.699999988079071], [0.4300000071525574], [0.800000011920929]]], 'float32'), A([[[0.4000000059604645], [0.8999999761581421], [0.11999999731779099]], [[0.36000001430511475], [0.30000001192092896], [0.4000000059604645]]], 'float32')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(0.24959953129291534, 'float32'))]),
    ('KLDivergenceTest.test_unweighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {}, A(0.5960738658905029, 'float32'))]),
    ('KLDivergenceTest.test_zero_weighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('PoissonTest.test_dtype_arg', 'Poisson', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {}, A(-3.3125, 'bfloat16'))]),
    ('PoissonTest.test_sample_weighted', 'Poisson', [], {}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(-6.147339820861816, 'float32'))]),
    ('PoissonTest.test_scalar_weighted', 'Poisson', [], {}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {'sample_weight': 2.3}, A(-7.605138778686523, 'float32')),
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {'sample_weight': 2.3}, A(-7.605138778686523, 'float32'))]),
    ('PoissonTest.test_timestep_weighted', 'Poisson', [], {}, [
        ('__call__', [A([[[4.0], [8.0], [12.0]], [[8.0], [1.0], [3.0]]], 'float32'), A([[[1.0], [9.0], [2.0]], [[5.0], [2.0], [6.0]]], 'float32')], {'sample_weight': A([[3, 6, 5], [0, 4, 2]], 'int64')}, A(-12.263126373291016, 'float32'))]),
    ('PoissonTest.test_unweighted', 'Poisson', [], {}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {}, A(-3.30658221244812, 'float32'))]),
    ('PoissonTest.test_zero_weighted', 'Poisson', [], {}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {'sample_weight': 0}, A(0.0, 'float32'))]),
    ('BinaryCrossentropyTest.test_all_correct_unweighted', 'BinaryCrossentropy', [], {}, [
        ('__call__', [A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(1.1920930376163597e-07, 'float32'))]),
    ('BinaryCrossentropyTest.test_all_correct_unweighted#2', 'BinaryCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32'), A([[10.0, -10.0, -10.0], [-10.0, 10.0, -10.0], [-10.0, -10.0, 10.0]], 'float64')], {}, A(4.5398901420412585e-05, 'float32'))]),
    ('BinaryCrossentropyTest.test_dtype_arg', 'BinaryCrossentropy', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32'), A([[0.8999999761581421, 0.10000000149011612, 0.20000000298023224], [0.30000001192092896, 0.800000011920929, 0.10000000149011612], [0.10000000149011612, 0.20000000298023224, 0.699999988079071]], 'float32')], {}, A(0.2001953125, 'bfloat16'))]),
    ('BinaryCrossentropyTest.test_shape_mismatch', 'BinaryCrossentropy', [], {}, [
        ('__call__', [A([[0], [1], [2]], 'int64'), A([[0.9, 0.05, 0.05], [0.5, 0.89, 0.6], [0.05, 0.01, 0.94]], 'float64')], {}, ('raises', 'ValueError'))]),
    ('CategoricalCrossentropyTest.test_all_correct_unweighted', 'CategoricalCrossentropy', [], {}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(1.1920930376163597e-07, 'float32'))]),
    ('CategoricalCrossentropyTest.test_all_correct_unweighted#2', 'CategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]], 'float64')], {}, A(9.083335316972807e-05, 'float32'))]),
    ('CategoricalCrossentropyTest.test_dtype_arg', 'CategoricalCrossentropy', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(0.0, 'bfloat16'))]),
    ('CategoricalCrossentropyTest.test_label_smoothing_ndarray', 'CategoricalCrossentropy', [], {'from_logits': True, 'label_smoothing': 0.1}, [
        ('__call__', [A([[1, 0, 0]], 'int64'), A([[100.0, -100.0, -100.0]], 'float64')], {}, A(13.333333969116211, 'float32'))]),
    ('CategoricalCrossentropyTest.test_shape_mismatch', 'CategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0], [1], [2]], 'int64'), A([[0.9, 0.05, 0.05], [0.5, 0.89, 0.6], [0.05, 0.01, 0.94]], 'float64')], {}, ('raises', 'ValueError'))]),
    ('SparseCategoricalCrossentropyTest.test_all_correct_unweighted', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0], [1], [2]], 'int64'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(2.3841853646899835e-07, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_all_correct_unweighted#2', 'SparseCategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[0], [1], [2]], 'int64'), A([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]], 'float64')], {}, A(9.083335316972807e-05, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_binary_segmentation', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]], 'float64')], {}, A(1.1920928244535389e-07, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_binary_segmentation#2', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.2, 0.8]], [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.4]]], 'float64')], {}, A(0.15785814821720123, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_binary_segmentation_different_axis', 'SparseCategoricalCrossentropy', [], {'axis': 0}, [
        ('__call__', [A([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]], [[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]]], 'float64')], {}, ('raises', 'ValueError'))]),
    ('SparseCategoricalCrossentropyTest.test_dtype_arg', 'SparseCategoricalCrossentropy', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[0], [1], [2]], 'int64'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(0.0, 'bfloat16'))]),
    ('SparseCategoricalCrossentropyTest.test_ignore_class', 'SparseCategoricalCrossentropy', [], {'from_logits': True, 'ignore_class': -1, 'reduction': None}, [
        ('__call__', [A([[-1, 2]], 'int64'), A([[[0.854, 0.698, 0.598], [0.088, 0.86, 0.018]]], 'float64')], {}, A([[0.0, 1.4801290035247803]], 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_ignore_class#2', 'SparseCategoricalCrossentropy', [], {'from_logits': True, 'ignore_class': -1, 'reduction': None}, [
        ('__call__', [A([[[-1], [2]]], 'int64'), A([[[0.854, 0.698, 0.598], [0.088, 0.86, 0.018]]], 'float64')], {}, A([[0.0, 1.4801290035247803]], 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_multi_class_segmentation', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 2, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], 'float64')], {}, A(2.3841855067985307e-07, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_multi_class_segmentation#2', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 2, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.0, 0.8]], [[0.7, 0.3, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]], 'float64')], {}, A(0.2191600799560547, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_multi_class_segmentation_different_axis', 'SparseCategoricalCrossentropy', [], {'axis': 0}, [
        ('__call__', [A([[0, 1, 2, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]], [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]], 'float64')], {}, ('raises', 'ValueError'))]),
    ('BinaryFocalCrossentropyTest.test_all_correct_unweighted', 'BinaryFocalCrossentropy', [], {'gamma': 1.5}, [
        ('__call__', [A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(0.0, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_all_correct_unweighted#2', 'BinaryFocalCrossentropy', [], {'gamma': 2.0, 'from_logits': True}, [
        ('__call__', [A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32'), A([[100.0, -100.0, -100.0], [-100.0, 100.0, -100.0], [-100.0, -100.0, 100.0]], 'float64')], {}, A(0.0, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_dtype_arg', 'BinaryFocalCrossentropy', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[0.8999999761581421, 0.800000011920929], [0.699999988079071, 0.20000000298023224]], 'float32')], {}, A(0.26953125, 'bfloat16'))]),
    ('BinaryFocalCrossentropyTest.test_no_reduction', 'BinaryFocalCrossentropy', [], {'gamma': 2.0, 'reduction': None}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[0.8999999761581421, 0.800000011920929], [0.699999988079071, 0.20000000298023224]], 'float32')], {}, A([0.515546977519989, 0.020513243973255157], 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_sample_weighted', 'BinaryFocalCrossentropy', [], {'gamma': 2.0}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[0.8999999761581421, 0.800000011920929], [0.699999988079071, 0.20000000298023224]], 'float32')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(0.3442007303237915, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_sample_weighted#2', 'BinaryFocalCrossentropy', [], {'gamma': 3.0, 'from_logits': True}, [
        ('__call__', [A([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], 'float32'), A([[1.5, -2.7, 2.9], [-3.8, 1.2, -4.5]], 'float64')], {'sample_weight': A([[1.2], [3.4]], 'float64')}, A(0.9600960612297058, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_scalar_weighted', 'BinaryFocalCrossentropy', [], {'gamma': 2.0}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[0.8999999761581421, 0.800000011920929], [0.699999988079071, 0.20000000298023224]], 'float32')], {'sample_weight': 1.23}, A(0.3296770453453064, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_scalar_weighted#2', 'BinaryFocalCrossentropy', [], {'gamma': 3.0, 'from_logits': True}, [
        ('__call__', [A([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], 'float32'), A([[1.5, -2.7, 2.9], [-3.8, 1.2, -4.5]], 'float64')], {'sample_weight': 3.21}, A(2.565053939819336, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_unweighted', 'BinaryFocalCrossentropy', [], {'gamma': 2.0}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[0.8999999761581421, 0.800000011920929], [0.699999988079071, 0.20000000298023224]], 'float32')], {}, A(0.2680301070213318, 'float32'))]),
    ('BinaryFocalCrossentropyTest.test_unweighted#2', 'BinaryFocalCrossentropy', [], {'gamma': 3.0, 'from_logits': True}, [
        ('__call__', [A([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], 'float32'), A([[1.5, -2.7, 2.9], [-3.8, 1.2, -4.5]], 'float64')], {}, A(0.7990821599960327, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_all_correct_unweighted', 'CategoricalFocalCrossentropy', [], {'alpha': 0.25, 'gamma': 2.0}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32')], {}, A(4.235165241142481e-22, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_all_correct_unweighted#2', 'CategoricalFocalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]], 'float64')], {}, A(1.8727078535899638e-13, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_dtype_arg', 'CategoricalFocalCrossentropy', [], {'from_logits': True, 'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 0, 0]], 'int64'), A([[4.9, -0.5, 2.05]], 'float64')], {}, A(5.173683166503906e-05, 'bfloat16'))]),
    ('CategoricalFocalCrossentropyTest.test_label_smoothing', 'CategoricalFocalCrossentropy', [], {'from_logits': True, 'label_smoothing': 0.1}, [
        ('__call__', [A([[1, 0, 0]], 'int64'), A([[4.9, -0.5, 2.05]], 'float64')], {}, A(0.06685145944356918, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_no_reduction', 'CategoricalFocalCrossentropy', [], {'from_logits': True, 'reduction': None}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]], 'float64')], {}, A([1.5096224270649827e-09, 2.413654692778877e-11, 0.0010360637679696083], 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_sample_weighted', 'CategoricalFocalCrossentropy', [], {}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[0.8999999761581421, 0.05000000074505806, 0.05000000074505806], [0.5, 0.8899999856948853, 0.6000000238418579], [0.05000000074505806, 0.009999999776482582, 0.9399999976158142]], 'float32')], {'sample_weight': A([[1.2], [3.4], [5.6]], 'float64')}, A(0.0698709711432457, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_sample_weighted#2', 'CategoricalFocalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]], 'float64')], {'sample_weight': A([[1.2], [3.4], [5.6]], 'float64')}, A(0.001933986321091652, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_scalar_weighted', 'CategoricalFocalCrossentropy', [], {}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[0.8999999761581421, 0.05000000074505806, 0.05000000074505806], [0.5, 0.8899999856948853, 0.6000000238418579], [0.05000000074505806, 0.009999999776482582, 0.9399999976158142]], 'float32')], {'sample_weight': 2.3}, A(0.047368694096803665, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_scalar_weighted#2', 'CategoricalFocalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]], 'float64')], {'sample_weight': 2.3}, A(0.000794316700194031, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_unweighted', 'CategoricalFocalCrossentropy', [], {}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[0.8999999761581421, 0.05000000074505806, 0.05000000074505806], [0.5, 0.8899999856948853, 0.6000000238418579], [0.05000000074505806, 0.009999999776482582, 0.9399999976158142]], 'float32')], {}, A(0.020595086738467216, 'float32'))]),
    ('CategoricalFocalCrossentropyTest.test_unweighted#2', 'CategoricalFocalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int64'), A([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]], 'float64')], {}, A(0.00034535510349087417, 'float32'))]),
    ('DiceTest.test_binary_segmentation', 'Dice', [], {}, [
        ('__call__', [A([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]], 'int64'), A([[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]], 'int64')], {}, A(0.7777777910232544, 'float32'))]),
    ('DiceTest.test_binary_segmentation_with_axis', 'Dice', [], {'axis': (1, 2, 3), 'reduction': None}, [
        ('__call__', [A([[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]], 'float64'), A([[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]], 'float64')], {}, A([0.5, 0.7575757503509521], 'float32'))]),
    ('DiceTest.test_correctness', 'Dice', [], {}, [
        ('__call__', [A([[1, 2], [1, 2]], 'int64'), A([[4, 1], [6, 1]], 'int64')], {}, A(-0.5555555820465088, 'float32'))]),
    ('DiceTest.test_dtype_arg', 'Dice', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 2], [1, 2]], 'int64'), A([[4, 1], [6, 1]], 'int64')], {}, A(-0.5546875, 'bfloat16'))]),
    ('TverskyTest.test_binary_segmentation', 'Tversky', [], {}, [
        ('__call__', [A([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]], 'int64'), A([[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]], 'int64')], {}, A(0.7777777910232544, 'float32'))]),
    ('TverskyTest.test_binary_segmentation_custom_coefficients', 'Tversky', [], {'alpha': 0.2, 'beta': 0.8}, [
        ('__call__', [A([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]], 'int64'), A([[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]], 'int64')], {}, A(0.7916666865348816, 'float32'))]),
    ('TverskyTest.test_binary_segmentation_custom_coefficients_with_axis', 'Tversky', [], {'alpha': 0.2, 'beta': 0.8, 'axis': (1, 2, 3), 'reduction': None}, [
        ('__call__', [A([[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]], 'float64'), A([[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]], 'float64')], {}, A([0.5, 0.7222222089767456], 'float32'))]),
    ('TverskyTest.test_binary_segmentation_with_axis', 'Tversky', [], {'axis': (1, 2, 3), 'reduction': None}, [
        ('__call__', [A([[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]], 'float64'), A([[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]], 'float64')], {}, A([0.5, 0.7575757503509521], 'float32'))]),
    ('TverskyTest.test_correctness', 'Tversky', [], {}, [
        ('__call__', [A([[1, 2], [1, 2]], 'int64'), A([[4, 1], [6, 1]], 'int64')], {}, A(-0.5555555820465088, 'float32'))]),
    ('TverskyTest.test_correctness_custom_coefficients', 'Tversky', [], {'alpha': 0.2, 'beta': 0.8}, [
        ('__call__', [A([[1, 2], [1, 2]], 'int64'), A([[4, 1], [6, 1]], 'int64')], {}, A(-0.2962963581085205, 'float32'))]),
    ('TverskyTest.test_dtype_arg', 'Tversky', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([[1, 2], [1, 2]], 'int64'), A([[4, 1], [6, 1]], 'int64')], {}, A(-0.5546875, 'bfloat16'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_basic_correctness_for_binary', 'CategoricalGeneralizedCrossEntropy', [], {}, [
        ('__call__', [A([0, 1, 0, 1], 'int64'), A([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(0.3598597049713135, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_basic_correctness_for_binary#2', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.8}, [
        ('__call__', [A([0, 1, 0, 1], 'int64'), A([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(0.33832812309265137, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_basic_correctness_for_multi_class', 'CategoricalGeneralizedCrossEntropy', [], {}, [
        ('__call__', [A([0, 1, 0, 1], 'int64'), A([[0.7, 0.3, 0.0], [0.2, 0.2, 0.6], [0.6, 0.4, 0.0], [0.2, 0.2, 0.6]], 'float64')], {}, A(0.7471580505371094, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_basic_correctness_for_multi_class#2', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.8}, [
        ('__call__', [A([0, 1, 0, 1], 'int64'), A([[0.7, 0.3, 0.0], [0.2, 0.2, 0.6], [0.6, 0.4, 0.0], [0.2, 0.2, 0.6]], 'float64')], {}, A(0.6349405646324158, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_binary_segmentation', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.5}, [
        ('__call__', [A([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]], 'float64')], {}, A(0.0, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_binary_segmentation#2', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.5}, [
        ('__call__', [A([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.2, 0.8]], [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.4]]], 'float64')], {}, A(0.11504136025905609, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_dtype_arg', 'CategoricalGeneralizedCrossEntropy', [], {'dtype': 'bfloat16'}, [
        ('__call__', [A([0, 1, 0, 1], 'int64'), A([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]], 'float64')], {}, A(0.357421875, 'bfloat16'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_multi_class_segmentation', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.5}, [
        ('__call__', [A([[0, 1, 2, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], 'float64')], {}, A(0.0, 'float32'))]),
    ('CategoricalGeneralizedCrossEntropyTest.test_multi_class_segmentation#2', 'CategoricalGeneralizedCrossEntropy', [], {'q': 0.5}, [
        ('__call__', [A([[0, 1, 2, 0], [1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 1]], 'int64'), A([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.0, 0.8]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]]], 'float64')], {}, A(0.23070994019508362, 'float32'))]),
]

_NO_DTYPE = pytest.mark.xfail(strict=True, raises=TypeError, reason="bfloat16 has no NumPy dtype: Loss(dtype='bfloat16') raises a TypeError naming the dtypes eagerflow has (Loss(dtype=) itself is tested in tests/losses/test_loss_dtype.py)")
MARKS: dict = {case[0]: _NO_DTYPE for case in CASES if "dtype" in case[3]}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.losses, name), args, kwargs, calls)

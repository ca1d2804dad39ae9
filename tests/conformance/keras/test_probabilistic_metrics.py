"""Port of Keras 3.15's ``keras/src/metrics/probabilistic_metrics_test.py``.

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
    ('KLDivergenceTest.test_unweighted', 'KLDivergence', [], {}, [
        ('update_state', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {}, None),
        ('result', [], {}, A(0.5960738658905029, 'float32'))]),
    ('KLDivergenceTest.test_weighted', 'KLDivergence', [], {}, [
        ('__call__', [A([[0.5, 0.800000011920929, 0.11999999731779099], [0.699999988079071, 0.4300000071525574, 0.800000011920929]], 'float32'), A([[0.4000000059604645, 0.8999999761581421, 0.11999999731779099], [0.36000001430511475, 0.30000001192092896, 0.4000000059604645]], 'float32')], {'sample_weight': A([[1.2000000476837158], [3.4000000953674316]], 'float32')}, A(0.8728569746017456, 'float32'))]),
    ('PoissonTest.test_unweighted', 'Poisson', [], {}, [
        ('update_state', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {}, None),
        ('result', [], {}, A(-3.30658221244812, 'float32'))]),
    ('PoissonTest.test_weighted', 'Poisson', [], {}, [
        ('__call__', [A([[4.0, 8.0, 12.0], [8.0, 1.0, 3.0]], 'float32'), A([[1.0, 9.0, 2.0], [5.0, 2.0, 6.0]], 'float32')], {'sample_weight': A([[1.2000000476837158], [3.4000000953674316]], 'float32')}, A(-2.6727561950683594, 'float32'))]),
    ('BinaryCrossentropyTest.test_label_smoothing', 'BinaryCrossentropy', [], {'from_logits': True, 'label_smoothing': 0.1}, [
        ('__call__', [A([1, 0, 1], 'int64'), A([10.0, -10.0, -10.0], 'float64')], {}, A(3.5000452995300293, 'float32'))]),
    ('BinaryCrossentropyTest.test_unweighted', 'BinaryCrossentropy', [], {}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[1.0, 1.0], [1.0, 0.0]], 'float32')], {}, A(3.985596179962158, 'float32'))]),
    ('BinaryCrossentropyTest.test_unweighted_with_logits', 'BinaryCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 1], [0, 1, 1]], 'int64'), A([[10.0, -10.0, 10.0], [10.0, 10.0, -10.0]], 'float64')], {}, A(3.333378791809082, 'float32'))]),
    ('BinaryCrossentropyTest.test_weighted', 'BinaryCrossentropy', [], {}, [
        ('__call__', [A([[1, 0], [1, 0]], 'int64'), A([[1.0, 1.0], [1.0, 0.0]], 'float32')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(3.4162254333496094, 'float32'))]),
    ('BinaryCrossentropyTest.test_weighted_from_logits', 'BinaryCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[1, 0, 1], [0, 1, 1]], 'int64'), A([[10.0, -10.0, 10.0], [10.0, 10.0, -10.0]], 'float64')], {'sample_weight': A([2.0, 2.5], 'float64')}, A(3.703749418258667, 'float32'))]),
    ('CategoricalCrossentropyTest.test_label_smoothing', 'CategoricalCrossentropy', [], {'from_logits': True, 'label_smoothing': 0.1}, [
        ('__call__', [A([[0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {}, A(3.66780686378479, 'float32'))]),
    ('CategoricalCrossentropyTest.test_unweighted', 'CategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 0], [0, 0, 1]], 'int64'), A([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {}, A(1.1769392490386963, 'float32'))]),
    ('CategoricalCrossentropyTest.test_unweighted_from_logits', 'CategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {}, A(3.5011403560638428, 'float32'))]),
    ('CategoricalCrossentropyTest.test_weighted', 'CategoricalCrossentropy', [], {}, [
        ('__call__', [A([[0, 1, 0], [0, 0, 1]], 'int64'), A([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(1.3377457857131958, 'float32'))]),
    ('CategoricalCrossentropyTest.test_weighted_from_logits', 'CategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([[0, 1, 0], [0, 0, 1]], 'int64'), A([[1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(4.001237869262695, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_ignore_class', 'SparseCategoricalCrossentropy', [], {'ignore_class': 0}, [
        ('__call__', [A([0, 1, 2], 'int64'), A([[0.8, 0.1, 0.1], [0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {}, A(0.7846261858940125, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_ignore_class_from_logits', 'SparseCategoricalCrossentropy', [], {'from_logits': True, 'ignore_class': 0}, [
        ('__call__', [A([0, 1, 2], 'int64'), A([[10.0, 1.0, 1.0], [1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {}, A(2.3340935707092285, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_ignore_class_weighted', 'SparseCategoricalCrossentropy', [], {'ignore_class': 0}, [
        ('__call__', [A([0, 1, 2], 'int64'), A([[0.8, 0.1, 0.1], [0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {'sample_weight': A([0.5, 1.5, 2.0], 'float64')}, A(1.3377457857131958, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_unweighted', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([1, 2], 'int64'), A([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {}, A(1.1769392490386963, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_unweighted_from_logits', 'SparseCategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([1, 2], 'int64'), A([[1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {}, A(3.5011403560638428, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_weighted', 'SparseCategoricalCrossentropy', [], {}, [
        ('__call__', [A([1, 2], 'int64'), A([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]], 'float64')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(1.3377457857131958, 'float32'))]),
    ('SparseCategoricalCrossentropyTest.test_weighted_from_logits', 'SparseCategoricalCrossentropy', [], {'from_logits': True}, [
        ('__call__', [A([1, 2], 'int64'), A([[1.0, 9.0, 0.0], [1.0, 8.0, 1.0]], 'float32')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(4.001237869262695, 'float32'))]),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

"""Port of Keras 3.15's ``keras/src/metrics/hinge_metrics_test.py``.

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
    ('HingeTest.test_unweighted', 'Hinge', [], {}, [
        ('update_state', [A([[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]], 'float64'), A([[-0.3, 0.2, -0.1, 1.6], [-0.25, -1.0, 0.5, 0.6]], 'float64')], {}, None),
        ('result', [], {}, A(0.5062500238418579, 'float32'))]),
    ('HingeTest.test_weighted', 'Hinge', [], {}, [
        ('__call__', [A([[-1, 1, -1, 1], [-1, -1, 1, 1]], 'int64'), A([[-0.3, 0.2, -0.1, 1.6], [-0.25, -1.0, 0.5, 0.6]], 'float64')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(0.4928571581840515, 'float32'))]),
    ('SquaredHingeTest.test_unweighted', 'SquaredHinge', [], {}, [
        ('update_state', [A([[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]], 'float32'), A([[-0.3, 0.2, -0.1, 1.6], [-0.25, -1.0, 0.5, 0.6]], 'float64')], {}, None),
        ('result', [], {}, A(0.36406251788139343, 'float32'))]),
    ('SquaredHingeTest.test_weighted', 'SquaredHinge', [], {}, [
        ('__call__', [A([[-1.0, 1.0, -1.0, 1.0], [-1.0, -1.0, 1.0, 1.0]], 'float32'), A([[-0.3, 0.2, -0.1, 1.6], [-0.25, -1.0, 0.5, 0.6]], 'float64')], {'sample_weight': A([1.5, 2.0], 'float64')}, A(0.3467857241630554, 'float32'))]),
    ('CategoricalHingeTest.test_unweighted', 'CategoricalHinge', [], {}, [
        ('update_state', [A([[0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]], 'float32'), A([[0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]], 'float32')], {}, None),
        ('result', [], {}, A(0.5, 'float32'))]),
    ('CategoricalHingeTest.test_weighted', 'CategoricalHinge', [], {}, [
        ('__call__', [A([[0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]], 'float32'), A([[0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]], 'float32')], {'sample_weight': A([1.0, 1.5, 2.0, 2.5], 'float64')}, A(0.5, 'float32'))]),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

"""Port of Keras 3.15's ``keras/src/metrics/f_score_metrics_test.py``.

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
    ('FBetaScoreTest.test_fbeta_perfect_score0', 'FBetaScore', ['micro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.9999999403953552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score1', 'FBetaScore', ['micro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score2', 'FBetaScore', ['micro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score3', 'FBetaScore', ['macro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.9999998211860657, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score4', 'FBetaScore', ['macro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.9999999403953552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score5', 'FBetaScore', ['macro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score6', 'FBetaScore', ['weighted', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.9999998807907104, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score7', 'FBetaScore', ['weighted', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_perfect_score8', 'FBetaScore', ['weighted', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[1, 1, 1], [1, 0, 0], [1, 1, 0]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score0', 'FBetaScore', [None, 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A([0.714285671710968, 0.49999988079071045, 0.8333331346511841], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score1', 'FBetaScore', [None, 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A([0.7999999523162842, 0.4999999403953552, 0.666666567325592], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score10', 'FBetaScore', ['weighted', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6555554866790771, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score11', 'FBetaScore', ['weighted', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6548821926116943, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score2', 'FBetaScore', [None, 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A([0.9090909361839294, 0.5, 0.5555555820465088], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score3', 'FBetaScore', ['micro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.666666567325592, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score4', 'FBetaScore', ['micro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6666666269302368, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score5', 'FBetaScore', ['micro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6666666865348816, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score6', 'FBetaScore', ['macro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6825396418571472, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score7', 'FBetaScore', ['macro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6555554866790771, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score8', 'FBetaScore', ['macro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6548821926116943, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score9', 'FBetaScore', ['weighted', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 1], [1, 1, 0], [1, 1, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.6825395822525024, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none0', 'FBetaScore', [None, 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A([0.9090907573699951, 0.5555554628372192, 0.9999999403953552], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none1', 'FBetaScore', [None, 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A([0.7999999523162842, 0.666666567325592, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none10', 'FBetaScore', ['weighted', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8444443941116333, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none11', 'FBetaScore', ['weighted', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.829365074634552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none2', 'FBetaScore', [None, 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A([0.7142857313156128, 0.8333331942558289, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none3', 'FBetaScore', ['micro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8333331942558289, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none4', 'FBetaScore', ['micro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8333332538604736, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none5', 'FBetaScore', ['micro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8333333730697632, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none6', 'FBetaScore', ['macro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8215487003326416, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none7', 'FBetaScore', ['macro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8222221732139587, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none8', 'FBetaScore', ['macro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.849206268787384, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_random_score_none9', 'FBetaScore', ['weighted', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], None], {}, None),
        ('result', [], {}, A(0.8804712891578674, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none0', 'FBetaScore', [None, 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A([0.9090907573699951, 0.5555554628372192, 0.9999999403953552], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none1', 'FBetaScore', [None, 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A([0.9999999403953552, 0.0, 0.9999999403953552], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none10', 'FBetaScore', ['micro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(0.9999999403953552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none11', 'FBetaScore', ['micro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8999997973442078, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none12', 'FBetaScore', ['micro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8333332538604736, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none13', 'FBetaScore', ['micro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none14', 'FBetaScore', ['micro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8999999165534973, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none15', 'FBetaScore', ['micro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8333333730697632, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none16', 'FBetaScore', ['micro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none17', 'FBetaScore', ['micro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8999999761581421, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none18', 'FBetaScore', ['macro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8215487003326416, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none19', 'FBetaScore', ['macro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(0.6666666269302368, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none2', 'FBetaScore', [None, 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A([0.9374998807907104, 0.7142856121063232, 0.9999999403953552], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none20', 'FBetaScore', ['macro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8839284777641296, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none21', 'FBetaScore', ['macro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8222221732139587, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none22', 'FBetaScore', ['macro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(0.6666666865348816, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none23', 'FBetaScore', ['macro', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8857142329216003, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none24', 'FBetaScore', ['macro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.849206268787384, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none25', 'FBetaScore', ['macro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(0.6666666865348816, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none26', 'FBetaScore', ['macro', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.89952152967453, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none27', 'FBetaScore', ['weighted', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8804712891578674, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none28', 'FBetaScore', ['weighted', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(0.9999999403953552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none29', 'FBetaScore', ['weighted', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.9178570508956909, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none3', 'FBetaScore', [None, 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A([0.7999999523162842, 0.666666567325592, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none30', 'FBetaScore', ['weighted', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8444443941116333, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none31', 'FBetaScore', ['weighted', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none32', 'FBetaScore', ['weighted', 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.9028570652008057, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none33', 'FBetaScore', ['weighted', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.829365074634552, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none34', 'FBetaScore', ['weighted', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A(1.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none35', 'FBetaScore', ['weighted', 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A(0.8976076245307922, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none4', 'FBetaScore', [None, 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A([1.0, 0.0, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none5', 'FBetaScore', [None, 1.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A([0.8571427464485168, 0.7999998927116394, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none6', 'FBetaScore', [None, 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A([0.7142857313156128, 0.8333331942558289, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none7', 'FBetaScore', [None, 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]], {}, None),
        ('result', [], {}, A([1.0, 0.0, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none8', 'FBetaScore', [None, 2.0, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]], {}, None),
        ('result', [], {}, A([0.7894736528396606, 0.9090907573699951, 1.0], 'float32'))]),
    ('FBetaScoreTest.test_fbeta_weighted_random_score_none9', 'FBetaScore', ['micro', 0.5, None], {'dtype': 'float32'}, [
        ('update_state', [[[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], {}, None),
        ('result', [], {}, A(0.8333331942558289, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score0', 'FBetaScore', ['micro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score1', 'FBetaScore', ['micro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score2', 'FBetaScore', ['micro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score3', 'FBetaScore', ['macro', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score4', 'FBetaScore', ['macro', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score5', 'FBetaScore', ['macro', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score6', 'FBetaScore', ['weighted', 0.5, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score7', 'FBetaScore', ['weighted', 1.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('FBetaScoreTest.test_fbeta_worst_score8', 'FBetaScore', ['weighted', 2.0, 0.66], {'dtype': 'float32'}, [
        ('update_state', [[[0, 0, 0], [0, 1, 0], [0, 0, 1]], [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]], None], {}, None),
        ('result', [], {}, A(0.0, 'float32'))]),
    ('F1ScoreTest.test_correctness', 'F1Score', [], {}, [
        ('update_state', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], 'int64'), A([[0.9, 0.1, 0.0], [0.2, 0.6, 0.2], [0.0, 0.0, 1.0], [0.4, 0.3, 0.3], [0.0, 0.9, 0.1], [0.0, 0.0, 1.0]], 'float64')], {}, None),
        ('result', [], {}, A([0.7999999523162842, 0.666666567325592, 1.0], 'float32'))]),
    ('F1ScoreTest.test_correctness#2', 'FBetaScore', [], {'beta': 1.0}, [
        ('update_state', [A([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]], 'int64'), A([[0.9, 0.1, 0.0], [0.2, 0.6, 0.2], [0.0, 0.0, 1.0], [0.4, 0.3, 0.3], [0.0, 0.9, 0.1], [0.0, 0.0, 1.0]], 'float64')], {}, None),
        ('result', [], {}, A([0.7999999523162842, 0.666666567325592, 1.0], 'float32'))]),
]

MARKS: dict = {}


@pytest.mark.parametrize("test, name, args, kwargs, calls", [
    pytest.param(*case, id=case[0], marks=MARKS.get(case[0], ())) for case in CASES
])
def test_matches_keras(test, name, args, kwargs, calls):
    replay(getattr(ef.metrics, name), args, kwargs, calls)

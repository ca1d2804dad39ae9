"""compile's loss/metric mapping: outputs, weights, accuracy resolution, target checks."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import InvalidArgumentError
from eagerflow.models import compile_utils


def _t(values, dtype="float32"):
    return ef.constant(np.asarray(values, dtype))


def test_output_names():
    assert compile_utils.output_names_of(None, _t([1.0])) is None
    assert compile_utils.output_names_of(None, {"b": 1, "a": 2}) == ["a", "b"]
    assert compile_utils.output_names_of(None, [1, 2]) == ["output_1", "output_2"]

    class Named:
        output_names = ["cls", "reg"]

    assert compile_utils.output_names_of(Named(), [1, 2]) == ["cls", "reg"]


def test_single_loss_and_regularization():
    loss = compile_utils.CompiledLoss("mse")
    total, parts = loss(_t([[1.0], [3.0]]), _t([[0.0], [0.0]]),
                        regularization_losses=[_t(0.5)])
    assert float(total) == pytest.approx(5.5) and float(parts[0]) == pytest.approx(5.0)


def test_one_loss_for_every_output_with_weights_by_name():
    loss = compile_utils.CompiledLoss("mae", {"a": 1.0, "b": 0.5}, ["a", "b"])
    total, parts = loss({"a": _t([[1.0]]), "b": _t([[4.0]])}, [_t([[0.0]]), _t([[0.0]])])
    assert [float(p) for p in parts] == [1.0, 4.0]
    assert float(total) == 3.0


def test_list_of_losses_and_an_output_without_loss():
    loss = compile_utils.CompiledLoss([None, "mse"], None, ["a", "b"])
    total, parts = loss([None, _t([[2.0]])], [_t([[5.0]]), _t([[0.0]])])
    assert parts[0] is None and float(total) == 4.0


def test_sample_weight_per_output():
    loss = compile_utils.CompiledLoss("mse", None, ["a", "b"])
    y = [_t([[1.0], [1.0]]), _t([[1.0], [1.0]])]
    pred = [_t([[0.0], [0.0]]), _t([[0.0], [0.0]])]
    total, parts = loss(y, pred, sample_weight={"a": np.array([1.0, 0.0]), "b": None})
    assert [float(p) for p in parts] == [0.5, 1.0]
    _, parts = loss(y, pred, sample_weight=[np.array([0.0, 0.0]), np.array([2.0, 2.0])])
    assert [float(p) for p in parts] == [0.0, 2.0]
    with pytest.raises(ValueError, match=r"sample_weight has 3 entries but the model has 2"):
        loss(y, pred, sample_weight=[None, None, None])


@pytest.mark.parametrize("kwargs, match", [
    ({"loss": "nope"}, r"Unknown loss 'nope'"),
    ({"loss": {"c": "mse"}, "output_names": ["a", "b"]}, r"loss has keys \['c'\] that are"),
    ({"loss": ["mse"], "output_names": ["a", "b"]}, r"loss has 1 entries but the model has 2"),
    ({"loss": {"a": "mse"}, "output_names": None}, r"loss is a dict but the model has a"),
    ({"loss": ["mse", "mae"], "output_names": None}, r"loss has 2 entries but the model has one"),
    ({"loss": [None, None], "output_names": ["a", "b"]}, r"every output's loss is None"),
    ({"loss": "mse", "loss_weights": {"a": 1.0}, "output_names": ["a", "b"]},
     r"loss_weights must give a value for every output. Missing: \['b'\]"),
    ({"loss": "mse", "loss_weights": "big", "output_names": None}, r"loss_weights must be"),
])
def test_loss_mapping_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        # A single-output model maps its loss on the first batch.
        compile_utils.CompiledLoss(**kwargs).build(kwargs.get("output_names"))


def test_targets_must_match_outputs():
    loss = compile_utils.CompiledLoss("mse", None, ["a", "b"])
    with pytest.raises(ValueError, match=r"2 outputs \['a', 'b'\] but y holds 3"):
        loss([_t([[1.0]])] * 3, [_t([[1.0]])] * 2)
    with pytest.raises(ValueError, match=r"y has keys \['c'\] that are not model outputs"):
        loss({"a": _t([[1.0]]), "c": _t([[1.0]])}, [_t([[1.0]])] * 2)
    with pytest.raises(ValueError, match=r"no target \(y\) given for the output \(output 'b'\)"):
        loss({"a": _t([[1.0]])}, [_t([[1.0]])] * 2)


def test_cross_entropy_targets_outside_zero_one_are_an_error():
    loss = compile_utils.CompiledLoss("binary_crossentropy")
    with pytest.raises(InvalidArgumentError, match=r"targets must be in \[0, 1\].*\[0.0, 3.0\]"):
        loss(_t([[0.0], [3.0]]), _t([[0.5], [0.5]]))
    sparse = compile_utils.CompiledLoss(ef.losses.SparseCategoricalCrossentropy())
    with pytest.raises(InvalidArgumentError, match=r"label value of 10 which is outside"):
        sparse(np.array([0, 10]), _t(np.full((2, 10), 0.1)))


@pytest.mark.parametrize("loss, y_true, y_pred, expected", [
    ("sparse_categorical_crossentropy", [1], [[0.2, 0.8]], "SparseCategoricalAccuracy"),
    (ef.losses.CategoricalCrossentropy(), [[0, 1]], [[0.2, 0.8]], "CategoricalAccuracy"),
    ("binary_crossentropy", [[1]], [[0.8]], "BinaryAccuracy"),
    ("mse", [[1.0]], [[0.8]], "BinaryAccuracy"),
    ("mse", [[0, 1]], [[0.2, 0.8]], "CategoricalAccuracy"),
    ("mse", [1], [[0.2, 0.8]], "SparseCategoricalAccuracy"),
])
def test_accuracy_resolves_from_the_loss_and_shapes(loss, y_true, y_pred, expected):
    metrics = compile_utils.CompiledMetrics(["acc"], None, loss)
    metrics.update_state(_t(y_true), _t(y_pred))
    (metric,) = metrics.metrics
    assert type(metric).__name__ == expected and metric.name == "acc"  # as given (Keras 3)
    assert float(metric.result()) == 1.0


def test_binary_accuracy_on_logits_thresholds_at_zero():
    metrics = compile_utils.CompiledMetrics(["accuracy"], None,
                                            ef.losses.BinaryCrossentropy(from_logits=True))
    metrics.update_state(_t([[1.0], [0.0]]), _t([[0.3], [-0.2]]))
    assert float(metrics.metrics[0].result()) == 1.0


def test_crossentropy_metric_follows_the_loss():
    metrics = compile_utils.CompiledMetrics(["ce"], None,
                                            ef.losses.SparseCategoricalCrossentropy())
    metrics.update_state(np.array([0]), _t([[0.5, 0.5]]))
    assert metrics.metrics[0].name == "ce"  # the string as given
    assert float(metrics.metrics[0].result()) == pytest.approx(np.log(2), rel=1e-5)


def test_metric_names_keep_the_string_and_prefix_outputs():
    metrics = compile_utils.CompiledMetrics({"a": ["mae"], "b": [ef.metrics.AUC()]}, None,
                                            "mse")
    metrics.update_state({"a": _t([[1.0]]), "b": _t([[1.0]])}, {"a": _t([[0.0]]),
                                                                 "b": _t([[0.7]])},
                         output_names=["a", "b"])
    assert list(metrics.result()) == ["a_mae", "b_auc"]


def test_list_of_lists_and_functions_and_weighted_metrics():
    def double_error(y_true, y_pred):
        return 2 * ef.abs(y_true - y_pred)[:, 0]

    metrics = compile_utils.CompiledMetrics([[double_error], []], [["mae"], None], "mse")
    y, pred = [_t([[1.0], [1.0]]), _t([[0.0]] * 2)], [_t([[0.0], [0.0]]), _t([[0.0]] * 2)]
    metrics.update_state(y, pred, sample_weight=[np.array([1.0, 0.0]), None],
                         output_names=["a", "b"])
    assert {k: float(v) for k, v in metrics.result().items()} == {
        "a_double_error": 2.0, "a_mae": 1.0}
    metrics.reset_state()
    assert float(metrics.metrics[0].result()) == 0.0


def test_duplicate_metric_names_are_an_error():
    metrics = compile_utils.CompiledMetrics(["mae", "mae"], None, "mse")
    with pytest.raises(ValueError, match=r"two metrics are named 'mae'"):
        metrics.update_state(_t([[1.0]]), _t([[1.0]]))


def test_metrics_must_be_a_list_or_dict():
    metrics = compile_utils.CompiledMetrics("mae", None, "mse")
    with pytest.raises(ValueError, match=r"metrics must be a list or a dict"):
        metrics.update_state(_t([[1.0]]), _t([[1.0]]))

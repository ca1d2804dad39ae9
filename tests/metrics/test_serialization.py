import pytest

import eagerflow as ef


@pytest.mark.parametrize("name, cls", [
    ("accuracy", ef.metrics.Accuracy), ("acc", ef.metrics.Accuracy),
    ("Accuracy", ef.metrics.Accuracy), ("binary_accuracy", ef.metrics.BinaryAccuracy),
    ("categorical_accuracy", ef.metrics.CategoricalAccuracy),
    ("sparse_categorical_accuracy", ef.metrics.SparseCategoricalAccuracy),
    ("top_k_categorical_accuracy", ef.metrics.TopKCategoricalAccuracy),
    ("mse", ef.metrics.MeanSquaredError), ("mean_absolute_error", ef.metrics.MeanAbsoluteError),
    ("precision", ef.metrics.Precision), ("recall", ef.metrics.Recall),
    ("auc", ef.metrics.AUC), ("AUC", ef.metrics.AUC), ("mean", ef.metrics.Mean),
    ("sum", ef.metrics.Sum),
])
def test_names_give_fresh_instances(name, cls):
    first, second = ef.metrics.get(name), ef.metrics.get(name)
    assert type(first) is cls and first is not second


@pytest.mark.parametrize("metric", [
    ef.metrics.BinaryAccuracy(threshold=0.7, name="acc7"),
    ef.metrics.TopKCategoricalAccuracy(k=3),
    ef.metrics.Precision(thresholds=[0.2, 0.4], top_k=2, class_id=1),
    ef.metrics.Recall(thresholds=0.3),
    ef.metrics.AUC(num_thresholds=50, curve="PR", summation_method="minoring", from_logits=True),
    ef.metrics.AUC(thresholds=[0.3, 0.6]),
    ef.metrics.Mean(name="loss", dtype="float64"),
])
def test_config_round_trip(metric):
    clone = ef.metrics.get(ef.metrics.serialize(metric))
    assert type(clone) is type(metric) and clone.get_config() == metric.get_config()


def test_instances_functions_and_none_pass_through():
    m = ef.metrics.Mean()
    assert ef.metrics.get(m) is m and ef.metrics.get(None) is None
    assert ef.metrics.get(ef.metrics.binary_accuracy) is ef.metrics.binary_accuracy


def test_custom_objects():
    class Mine(ef.metrics.Mean):
        pass

    assert type(ef.metrics.get("Mine", custom_objects={"Mine": Mine})) is Mine
    assert type(ef.metrics.get({"class_name": "Mine", "config": {}}, {"Mine": Mine})) is Mine


def test_errors():
    with pytest.raises(ValueError, match="Unknown metric 'f1'"):
        ef.metrics.get("f1")
    with pytest.raises(ValueError, match="Unknown metric class 'F1'"):
        ef.metrics.get({"class_name": "F1", "config": {}})
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        ef.metrics.get(3)

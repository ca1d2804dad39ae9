import pytest

import eagerflow as ef


@pytest.mark.parametrize("name, fn", [
    ("mse", ef.losses.mean_squared_error), ("MSE", ef.losses.mean_squared_error),
    ("mean_squared_error", ef.losses.mean_squared_error),
    ("mae", ef.losses.mean_absolute_error), ("huber", ef.losses.huber),
    ("bce", ef.losses.binary_crossentropy),
    ("binary_crossentropy", ef.losses.binary_crossentropy),
    ("categorical_crossentropy", ef.losses.categorical_crossentropy),
    ("sparse_categorical_crossentropy", ef.losses.sparse_categorical_crossentropy),
    ("sparse_softmax_cross_entropy", ef.losses.sparse_softmax_cross_entropy),
])
def test_function_names_give_functions(name, fn):
    assert ef.losses.get(name) is fn
    assert ef.losses.deserialize(ef.losses.serialize(fn)) is fn


@pytest.mark.parametrize("cls", [ef.losses.MeanSquaredError, ef.losses.MeanAbsoluteError,
                                 ef.losses.Huber, ef.losses.BinaryCrossentropy,
                                 ef.losses.CategoricalCrossentropy,
                                 ef.losses.SparseCategoricalCrossentropy])
def test_class_names_give_instances_and_configs_round_trip(cls):
    assert type(ef.losses.get(cls.__name__)) is cls
    loss = cls(reduction="sum", name="custom")
    clone = ef.losses.get(ef.losses.serialize(loss))
    assert type(clone) is cls and clone.get_config() == loss.get_config()


def test_instances_functions_and_none_pass_through():
    loss = ef.losses.Huber()
    assert ef.losses.get(loss) is loss
    assert ef.losses.get(None) is None
    custom = lambda y_true, y_pred: y_pred  # noqa: E731
    assert ef.losses.get(custom) is custom


def test_custom_objects():
    class Mine(ef.losses.MeanSquaredError):
        pass

    assert type(ef.losses.get("Mine", custom_objects={"Mine": Mine})) is Mine
    config = {"class_name": "Mine", "config": {}}
    assert type(ef.losses.deserialize(config, {"Mine": Mine})) is Mine


def test_errors():
    with pytest.raises(ValueError, match="Unknown loss 'hinj'"):
        ef.losses.get("hinj")
    with pytest.raises(ValueError, match="Unknown loss class 'Hinj'"):
        ef.losses.get({"class_name": "Hinj", "config": {}})
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        ef.losses.get(3)
    with pytest.raises(ValueError, match="Cannot serialize"):
        ef.losses.serialize(lambda a, b: a)

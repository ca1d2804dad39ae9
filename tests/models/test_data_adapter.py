"""Turning arrays, Datasets and generators into epochs of batches."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import InvalidArgumentError
from eagerflow.models import data_adapter


def _batches(data):
    return [data_adapter.unpack_x_y_sample_weight(batch) for batch in data.epoch()]


def _epoch(data):
    return [(None if x is None else np.asarray(x), None if y is None else np.asarray(y), w)
            for x, y, w in _batches(data)]


def test_pack():
    pack = data_adapter.pack_x_y_sample_weight
    assert pack(1) == 1 and pack([1, 2]) == ([1, 2],)
    assert pack(1, 2) == (1, 2) and pack(1, 2, 3) == (1, 2, 3)


def test_unpack():
    unpack = data_adapter.unpack_x_y_sample_weight
    assert unpack(([1],)) == ([1], None, None)
    assert unpack([[1], [2], [3]]) == ([1], [2], [3])
    assert unpack({"a": 1}) == ({"a": 1}, None, None)
    with pytest.raises(ValueError, match=r"tuple of length 4"):
        unpack((1, 2, 3, 4))


def test_arrays_in_order_with_a_partial_last_batch():
    data = data_adapter.adapt(np.arange(5.0), np.arange(5), batch_size=2)
    batches = _epoch(data)
    assert [b[0].tolist() for b in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert data.steps == 3 and data.num_samples == 5


def test_shuffle_is_a_new_permutation_each_epoch_and_repeatable_with_a_seed():
    def orders():
        ef.random.set_seed(7)
        data = data_adapter.adapt(np.arange(10), np.arange(10), batch_size=10, shuffle=True)
        return [_epoch(data)[0][1].tolist() for _ in range(2)]

    first, second = orders()
    assert sorted(first) == list(range(10)) and first != second
    assert orders() == [first, second]


def test_pairs_stay_aligned_when_shuffled():
    x = np.arange(20.0)
    data = data_adapter.adapt({"a": x, "b": [x * 2]}, x * 10, np.arange(20.0), batch_size=6,
                              shuffle=True)
    for batch_x, y, w in _batches(data):
        np.testing.assert_array_equal(np.asarray(batch_x["b"][0]), np.asarray(batch_x["a"]) * 2)
        np.testing.assert_array_equal(np.asarray(y), np.asarray(batch_x["a"]) * 10)
        np.testing.assert_array_equal(np.asarray(w), np.asarray(batch_x["a"]))


def test_lists_of_numbers_are_one_array_and_lists_of_arrays_several_inputs():
    one = data_adapter.adapt([[1.0, 2.0], [3.0, 4.0]], [0, 1])
    assert np.asarray(_epoch(one)[0][0]).shape == (2, 2)
    several = data_adapter.adapt([np.zeros((3, 2)), np.ones((3, 4))], None)
    batch_x = _batches(several)[0][0]
    assert [tuple(t.shape) for t in batch_x] == [(3, 2), (3, 4)]


def test_steps_per_epoch_reads_one_iterator_across_epochs():
    # Keras 3.15 (fit on 5 samples, batch_size=2, steps_per_epoch=4, shuffle=False): each
    # epoch runs out after 3 batches, with a warning, and the next starts a new pass.
    data = data_adapter.adapt(np.arange(5.0), None, batch_size=2, steps=4, shuffle=False)
    for _ in range(2):
        with pytest.warns(UserWarning, match="ran out of data"):
            assert [b[0].tolist() for b in _epoch(data)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    data = data_adapter.adapt(np.arange(10.0), None, batch_size=2, steps=2, shuffle=False)
    assert [[b[0].tolist() for b in _epoch(data)] for _ in range(2)] == [
        [[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
    with pytest.warns(UserWarning, match="ran out of data"):
        assert [b[0].tolist() for b in _epoch(data)] == [[8.0, 9.0]]
    assert [b[0].tolist() for b in _epoch(data)] == [[0.0, 1.0], [2.0, 3.0]]


def test_mismatched_lengths_name_every_array():
    with pytest.raises(InvalidArgumentError, match=r"same number of samples.*x: 4, "
                                                   r"y\[0\]: 3, y\[1\]: 4"):
        data_adapter.adapt(np.zeros((4, 2)), [np.zeros(3), np.zeros(4)])


@pytest.mark.parametrize("kwargs, error, match", [
    ({"x": None}, ValueError, r"x is None"),
    ({"x": np.float32(1.0)}, InvalidArgumentError, r"x is a scalar"),
    ({"x": np.zeros(3), "batch_size": 0}, ValueError, r"batch_size must be a positive int"),
    ({"x": np.zeros(3), "steps": -1}, ValueError, r"steps must be a positive int"),
    ({"x": np.zeros(3), "shuffle": "batch"}, ValueError, r"shuffle must be True or False"),
    ({"x": [np.zeros(2), [1, [2, 3]]]}, InvalidArgumentError, r"could not be converted"),
])
def test_bad_array_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        data_adapter.adapt(**kwargs)


def test_a_finite_dataset_is_one_pass_per_epoch_reshuffled():
    ef.random.set_seed(3)
    dataset = ef.data.Dataset.from_tensor_slices((np.arange(8), np.arange(8))).shuffle(8) \
        .batch(4)
    data = data_adapter.adapt(dataset)
    assert data.steps == 2
    first = [int(v) for _, y, _ in _batches(data) for v in np.asarray(y)]
    second = [int(v) for _, y, _ in _batches(data) for v in np.asarray(y)]
    assert sorted(first) == sorted(second) == list(range(8)) and first != second


def test_dataset_with_steps_runs_out_like_keras():
    # Keras 3.15: a pass that runs out ends the epoch (with a warning); the next starts anew.
    dataset = ef.data.Dataset.range(3).batch(2)
    data = data_adapter.adapt(dataset, steps=3)
    for _ in range(2):
        with pytest.warns(UserWarning, match="ran out of data"):
            assert [np.asarray(x).tolist() for x, _, _ in _batches(data)] == [[0, 1], [2]]
    unknown = data_adapter.adapt(ef.data.Dataset.range(4).filter(lambda x: True).batch(2),
                                 steps=1)
    assert [[np.asarray(x).tolist() for x, _, _ in _batches(unknown)] for _ in range(3)] == [
        [[0, 1]], [[2, 3]], [[0, 1]]]  # an unknown-size pass that ends at an epoch's end


def test_infinite_dataset_keeps_its_iterator_across_epochs():
    data = data_adapter.adapt(ef.data.Dataset.range(100).repeat(), steps=2)
    assert [int(x) for x, _, _ in _batches(data)] == [0, 1]
    assert [int(x) for x, _, _ in _batches(data)] == [2, 3]


def test_infinite_dataset_without_steps_is_an_error():
    with pytest.raises(ValueError, match=r"the dataset is infinite.*steps_per_epoch"):
        data_adapter.adapt(ef.data.Dataset.range(3).repeat())
    with pytest.raises(ValueError, match=r"infinite.*pass steps to say"):
        data_adapter.adapt(ef.data.Dataset.range(3).repeat(), function="evaluate")


def test_empty_dataset_with_steps_is_an_error():
    data = data_adapter.adapt(ef.data.Dataset.range(0).batch(2), steps=1)
    with pytest.raises(ValueError, match=r"the dataset is empty"):
        list(data.epoch())


@pytest.mark.parametrize("name", ["y", "sample_weight", "batch_size"])
def test_dataset_and_generator_reject_arguments_they_carry(name):
    with pytest.raises(ValueError, match=rf"{name} must not be given when x is an ef.data"):
        data_adapter.adapt(ef.data.Dataset.range(3), **{name: 2})
    with pytest.raises(ValueError, match=rf"{name} must not be given when x is a generator"):
        data_adapter.adapt(iter([1]), **{name: 2})


def test_generator_is_consumed_across_epochs():
    batches = ((np.full(2, i), np.full(2, i)) for i in range(5))
    data = data_adapter.adapt(batches, steps=2)
    assert [int(np.asarray(x)[0]) for x, _, _ in _batches(data)] == [0, 1]
    assert [int(np.asarray(x)[0]) for x, _, _ in _batches(data)] == [2, 3]
    with pytest.warns(UserWarning, match="ran out of data"):  # as Keras: a short epoch
        assert [int(np.asarray(x)[0]) for x, _, _ in _batches(data)] == [4]
    assert data.ran_out()  # fit stops here (Keras goes on with epochs of stale batches)


def test_exhausted_generator_without_steps_is_an_error_next_epoch():
    data = data_adapter.adapt(iter([(np.zeros(1), np.zeros(1))]))
    assert len(_batches(data)) == 1
    with pytest.raises(ValueError, match=r"generator was exhausted in an earlier epoch"):
        list(data.epoch())


def test_split_takes_the_last_fraction_before_shuffling():
    (x, y, w), (vx, vy, vw) = data_adapter.split_arrays(
        {"a": np.arange(10)}, [np.arange(10)], np.arange(10.0), 0.3)
    assert x["a"].tolist() == list(range(7)) and vy[0].tolist() == [7, 8, 9]
    assert vw.tolist() == [7.0, 8.0, 9.0] and y[0].shape == (7,)


@pytest.mark.parametrize("fraction, match", [(1.0, r"must be in \[0, 1\)"),
                                             (0.95, r"leaves 0 for training and 10")])
def test_bad_split(fraction, match):
    with pytest.raises(ValueError, match=match):
        data_adapter.split_arrays(np.arange(10), None, None, fraction)


def test_class_weight_from_labels_one_hot_and_binary():
    weights = {0: 1.0, 1: 2.0, 2: 3.0}
    convert = data_adapter.class_weight_to_sample_weight
    assert convert(np.array([2, 0]), weights).tolist() == [3.0, 1.0]
    assert convert(np.array([[0, 0, 1], [0, 1, 0]]), weights).tolist() == [3.0, 2.0]
    assert convert(np.array([[1.0], [0.0]]), weights).tolist() == [2.0, 1.0]
    assert convert(np.array([[0.9], [0.2]]), {0: 1, 1: 5}).tolist() == [5.0, 1.0]


@pytest.mark.parametrize("labels, weights, match", [
    (np.array([0, 3]), {0: 1.0, 1: 1.0}, r"no weight for class\(es\) \[3\]; classes with a "
                                          r"weight: \[0, 1\]"),
    (np.array([-1, 0]), {0: 1.0}, r"no weight for class\(es\) \[-1\]"),
    (np.array([0]), {"zero": 1.0}, r"keys must be integer class indices. Received key 'zero'"),
    (np.array([0]), {0.5: 1.0}, r"keys must be integer class indices"),
    (np.array([0]), {0: "high"}, r"values must be numbers. Received 'high' for class 0"),
])
def test_bad_class_weight(labels, weights, match):
    with pytest.raises(ValueError, match=match):
        data_adapter.class_weight_to_sample_weight(labels, weights)


def test_class_weight_multiplies_sample_weight_for_arrays_and_datasets():
    data = data_adapter.adapt(np.zeros((3, 1)), np.array([0, 1, 1]), np.array([1.0, 1.0, 0.5]),
                              batch_size=3, class_weight={0: 2.0, 1: 4.0})
    assert _batches(data)[0][2].tolist() == [2.0, 4.0, 2.0]
    dataset = ef.data.Dataset.from_tensor_slices((np.zeros((2, 1)), np.array([0, 1]))).batch(2)
    data = data_adapter.adapt(dataset, class_weight={0: 2.0, 1: 4.0})
    assert _batches(data)[0][2].tolist() == [2.0, 4.0]


def test_class_weight_per_output():
    y = {"a": np.array([0, 1]), "b": np.array([1, 1])}
    data = data_adapter.adapt(np.zeros((2, 1)), y, batch_size=2,
                              class_weight={"a": {0: 1.0, 1: 3.0}})
    weights = _batches(data)[0][2]
    assert weights["a"].tolist() == [1.0, 3.0] and weights["b"] is None
    data = data_adapter.adapt(np.zeros((2, 1)), [y["a"], y["b"]], np.array([2.0, 2.0]),
                              batch_size=2, class_weight={"b": {1: 5.0}},
                              output_names=["a", "b"])
    weights = _batches(data)[0][2]
    assert np.asarray(weights[0]).tolist() == [2.0, 2.0] and weights[1].tolist() == [10.0, 10.0]


def test_class_weight_needs_per_output_dicts_for_several_outputs():
    with pytest.raises(ValueError, match=r"several outputs must be a dict keyed by output "
                                         r"name.*Output names: \['a', 'b'\]"):
        data_adapter.adapt(np.zeros((2, 1)), {"a": np.zeros(2), "b": np.zeros(2)},
                           class_weight={0: 1.0, 1: 2.0})


def test_class_weight_needs_targets_and_a_dict():
    with pytest.raises(ValueError, match=r"class_weight needs targets"):
        data_adapter.adapt(np.zeros((2, 1)), None, class_weight={0: 1.0})
    with pytest.raises(ValueError, match=r"class_weight must be a dict"):
        data_adapter.adapt(np.zeros((2, 1)), np.zeros(2), class_weight=[1.0])


def test_class_weight_for_a_generator():
    batches = iter([(np.zeros((2, 1)), np.array([0, 1]))])
    data = data_adapter.adapt(batches, class_weight={0: 1.0, 1: 7.0})
    assert _batches(data)[0][2].tolist() == [1.0, 7.0]


def test_class_weight_for_sparse_sequence_labels_is_per_step():
    weights = {0: 1.0, 1: 3.0, 2: 0.5}
    convert = data_adapter.class_weight_to_sample_weight
    labels = np.array([[0, 1, 2, 2], [1, 1, 0, 0]])
    # class indices per step (not an argmax over the steps, Keras's silent reading)
    assert convert(labels, weights).tolist() == [[1.0, 3.0, 0.5, 0.5], [3.0, 3.0, 1.0, 1.0]]
    one_hot = np.eye(3, dtype="float32")[labels]
    assert convert(one_hot, weights).tolist() == convert(labels, weights).tolist()
    data = data_adapter.adapt(np.zeros((2, 4)), labels, np.array([[2.0], [0.5]]),
                              batch_size=2, class_weight=weights)
    np.testing.assert_allclose(_batches(data)[0][2], [[2.0, 6.0, 1.0, 1.0],
                                                      [1.5, 1.5, 0.5, 0.5]])


def test_class_weight_times_column_sample_weights_keeps_one_weight_per_sample():
    data = data_adapter.adapt(np.zeros((3, 1)), np.array([0, 1, 1]),
                              np.array([[1.0], [1.0], [0.5]]), batch_size=3,
                              class_weight={0: 2.0, 1: 4.0})
    assert np.asarray(_batches(data)[0][2]).tolist() == [2.0, 4.0, 2.0]

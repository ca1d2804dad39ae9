"""Checkpointing a dataset iterator: a resumed run sees the same remaining elements."""

import numpy as np
import pytest

import eagerflow as ef


def _pipeline(seed=5):
    ef.random.set_seed(seed)  # a new process running the same script
    x = np.arange(40, dtype=np.float32)
    return (ef.data.Dataset.from_tensor_slices(x).shuffle(16)
            .map(lambda v: v * 2.0).batch(3).repeat(2).prefetch(2))


def _values(iterator, count):
    return [next(iterator).numpy().tolist() for _ in range(count)]


def test_a_restored_iterator_continues_where_the_saved_one_was(tmp_path):
    iterator = iter(_pipeline())
    _values(iterator, 17)  # into the second pass: the shuffle has drawn two orders
    path = ef.Checkpoint(iterator=iterator).write(str(tmp_path / "it.h5"))
    expected = [v.numpy().tolist() for v in iterator]

    resumed = iter(_pipeline())
    ef.Checkpoint(iterator=resumed).read(path).assert_consumed()
    assert [v.numpy().tolist() for v in resumed] == expected


def test_an_iterator_saved_with_a_model_and_optimizer(tmp_path):
    model = ef.Sequential([ef.layers.Dense(1, input_shape=(1,))])
    iterator = iter(_pipeline())
    _values(iterator, 4)
    manager = ef.CheckpointManager(
        ef.Checkpoint(model=model, iterator=iterator), str(tmp_path), max_to_keep=1)
    manager.save()
    expected = _values(iterator, 3)
    resumed = iter(_pipeline())
    ef.Checkpoint(model=model, iterator=resumed).restore(manager.latest_checkpoint)
    assert _values(resumed, 3) == expected


def test_a_pipeline_that_cannot_be_replayed_is_refused_by_stage(tmp_path):
    def gen():
        yield from range(3)

    dataset = ef.data.Dataset.from_generator(
        gen, output_signature=ef.TensorSpec([], ef.int64))
    with pytest.raises(ef.errors.InvalidArgumentError, match="GeneratorDataset stage"):
        ef.Checkpoint(iterator=iter(dataset)).write(str(tmp_path / "g.h5"))
    assert not (tmp_path / "g.h5").exists()


def test_a_state_from_another_pipeline_is_a_clear_error(tmp_path):
    iterator = iter(ef.data.Dataset.range(10))
    _values(iterator, 8)
    path = ef.Checkpoint(iterator=iterator).write(str(tmp_path / "it.h5"))
    short = iter(ef.data.Dataset.range(3))
    ef.Checkpoint(iterator=short).read(path)
    with pytest.raises(ef.errors.InvalidArgumentError, match="past the end"):
        next(short)

"""Run by tests/distribute/test_mpi.py as ``mpiexec -n 2 python mpi_worker.py <case> <dir>``.

Each check asserts on every rank and prints ``OK <check> rank=<r>``; a failing assert
aborts the job (MPIStrategy's abort hook), so the test sees a non-zero exit and the
traceback. Nothing runs on import (pytest collects this file's doctests).
"""

import os
import sys
import warnings
import zlib


def _digest(arrays) -> int:
    import numpy as np

    code = 0
    for array in arrays:
        code = zlib.crc32(np.ascontiguousarray(array).tobytes(), code)
    return code


def _same_everywhere(comm, arrays) -> bool:
    return len(set(comm.allgather(_digest(arrays)))) == 1


def _ok(name, rank):
    print(f"OK {name} rank={rank}", flush=True)


def _mlp(ef, input_shape=None):
    kwargs = {} if input_shape is None else {"input_shape": input_shape}
    return ef.Sequential([ef.layers.Dense(16, activation="relu", **kwargs),
                          ef.layers.Dense(3)])


def main(directory):  # noqa: PLR0915 - one launch, many checks (each launch costs ~1 s)
    import numpy as np
    from mpi4py import MPI

    import eagerflow as ef

    comm = MPI.COMM_WORLD
    strategy = ef.distribute.MPIStrategy()
    rank, size = strategy.rank, strategy.num_replicas_in_sync
    assert size == comm.Get_size() == 2 and strategy.is_chief == (rank == 0)
    ef.random.set_seed(100 + rank)  # different seeds per rank must not matter
    data_rng = np.random.default_rng(0)  # the same data on every rank
    x = data_rng.normal(size=(256, 8)).astype(np.float32)
    y = data_rng.integers(0, 3, size=256)

    # 1. A model made in the scope, built lazily by fit after the block; Adam's slots
    #    made on the first step. Shuffled: one order, drawn on rank 0.
    with strategy.scope():
        lazy = _mlp(ef)
        lazy.compile(optimizer="adam", loss=ef.losses.SparseCategoricalCrossentropy(
            from_logits=True), metrics=["accuracy"])
    lazy.fit(x, y, batch_size=64, epochs=2, verbose=0, shuffle=True)
    assert _same_everywhere(comm, lazy.get_weights())
    assert _same_everywhere(comm, [v.numpy() for v in lazy.optimizer.variables])
    _ok("replicas_identical_after_fit", rank)

    # 2. Two ranks at global batch 64 equal one process at batch 64.
    with strategy.scope():
        model = _mlp(ef, input_shape=(8,))
        model.compile(optimizer=ef.optim.SGD(0.1, momentum=0.9),
                      loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    reference = _mlp(ef, input_shape=(8,))  # outside the scope: trains alone
    reference.compile(optimizer=ef.optim.SGD(0.1, momentum=0.9),
                      loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    reference.set_weights(model.get_weights())
    history = model.fit(x, y, batch_size=64, epochs=3, verbose=0, shuffle=False,
                        validation_data=(x[:75], y[:75]))
    with warnings.catch_warnings(record=True) as caught:  # made outside the scope
        warnings.simplefilter("always")
        expected = reference.fit(x, y, batch_size=64, epochs=3, verbose=0, shuffle=False,
                                 validation_data=(x[:75], y[:75]))
    assert any("was not made under `strategy.scope()`" in str(w.message) for w in caught), [
        str(w.message) for w in caught]
    for got, want in zip(model.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    assert _same_everywhere(comm, model.get_weights())
    for key in ("loss", "accuracy", "val_loss", "val_accuracy"):  # global, in History
        np.testing.assert_allclose(history.history[key], expected.history[key], rtol=1e-5)
    _ok("equals_one_process", rank)

    # 3. evaluate: global values on every rank; predict: every row, in order, everywhere.
    got = model.evaluate(x[:101], y[:101], batch_size=50, verbose=0)
    want = reference.evaluate(x[:101], y[:101], batch_size=50, verbose=0)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    predictions = model.predict(x[:101], batch_size=50, verbose=0)
    np.testing.assert_allclose(predictions, reference.predict(x[:101], verbose=0),
                               rtol=1e-5, atol=1e-6)
    _ok("evaluate_predict", rank)

    # 4. A global batch that does not split evenly.
    try:
        model.fit(x, y, batch_size=63, verbose=0)
    except ValueError as e:
        assert "cannot be split evenly over 2 ranks" in str(e), e
    else:
        raise AssertionError("batch 63 on 2 ranks did not raise")
    _ok("uneven_batch_error", rank)

    # 5. Only rank 0 writes files (paths differ per rank so we can tell who wrote).
    tag = os.path.join(directory, f"rank{rank}")
    model.fit(x, y, batch_size=64, epochs=1, verbose=2, callbacks=[  # (progress: rank 0)
        ef.callbacks.ModelCheckpoint(tag + ".weights.h5", save_weights_only=True),
        ef.callbacks.CSVLogger(tag + ".csv")])
    model.save_weights(tag + "_direct.weights.h5")
    comm.Barrier()
    written = sorted(os.listdir(directory))
    assert written == ["rank0.csv", "rank0.weights.h5", "rank0_direct.weights.h5"], written
    comm.Barrier()  # (rank 0 lists the folder before anyone writes more)
    _ok("chief_writes", rank)

    # 6. A hand-written loop: DistributedOptimizer inside ef.function, one fused
    #    allreduce per step; equal to one process on the whole batch.
    with strategy.scope():
        net = _mlp(ef, input_shape=(8,))
    alone = _mlp(ef, input_shape=(8,))
    alone.set_weights(net.get_weights())
    optimizer = ef.distribute.DistributedOptimizer(ef.optim.Adam(0.01), strategy)
    single = ef.optim.Adam(0.01)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)

    @ef.function
    def step(xb, yb):
        with ef.GradientTape() as tape:
            loss = loss_fn(yb, net(xb, training=True))
        grads = tape.gradient(loss, net.trainable_variables)
        optimizer.apply_gradients(zip(grads, net.trainable_variables, strict=True))
        return strategy.reduce("mean", loss)

    before = strategy.communication_stats()["allreduce_calls"]
    for start in range(0, 256, 64):
        local = slice(start + 32 * rank, start + 32 * (rank + 1))
        mean_loss = step(ef.constant(x[local]), ef.constant(y[local]))
        with ef.GradientTape() as tape:
            whole = loss_fn(y[start:start + 64], alone(x[start:start + 64]))
        single.apply_gradients(zip(tape.gradient(whole, alone.trainable_variables),
                                   alone.trainable_variables, strict=True))
        np.testing.assert_allclose(float(mean_loss), float(whole), rtol=1e-5)
    calls = strategy.communication_stats()["allreduce_calls"] - before
    # per step: one gradient allreduce; the loss reduce checks the shapes match, then sums
    assert calls == 4 * 3, calls
    assert _same_everywhere(comm, net.get_weights())
    for got, want in zip(net.get_weights(), alone.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    _ok("custom_loop", rank)

    # 7. strategy.reduce, eagerly.
    assert float(strategy.reduce("sum", ef.constant(float(rank + 1)))) == 3.0
    assert float(strategy.reduce("mean", ef.constant(float(rank + 1)))) == 1.5
    total = strategy.reduce("sum", ef.constant([rank, 10 * rank]), axis=None)
    assert total.numpy().tolist() == [1, 10]
    rows = ef.constant([1.0] * (1 + 2 * rank))  # 1 row on rank 0, 3 on rank 1
    assert float(strategy.reduce("mean", rows * (rank + 1), axis=0)) == 7.0 / 4
    traced = ef.function(lambda v: strategy.reduce("mean", v, axis=0))
    assert float(traced(rows * (rank + 1))) == 7.0 / 4
    _ok("reduce", rank)

    # 8. Sharding: every element exactly once over the ranks, each epoch.
    shards = comm.allgather([int(v) for v in ef.data.Dataset.range(11).shard(size, rank)])
    assert sorted(shards[0] + shards[1]) == list(range(11))
    parts = strategy.distribute_dataset(ef.data.Dataset.range(12).batch(4))
    mine = [b.numpy().tolist() for b in parts]
    everyone = comm.allgather(mine)
    assert sorted(v for r in everyone for b in r for v in b) == list(range(12))
    assert mine == [[4 * i + 2 * rank, 4 * i + 2 * rank + 1] for i in range(3)], mine
    _ok("sharding", rank)

    # 9. BackupAndRestore (run by the chief) resumes every rank from the same state.
    class Interrupt(ef.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise KeyboardInterrupt("stop after epoch 2")

    backup = os.path.join(directory, "backup")
    try:
        model.fit(x, y, batch_size=64, epochs=4, verbose=0,
                  callbacks=[ef.callbacks.BackupAndRestore(backup), Interrupt()])
    except KeyboardInterrupt:
        pass
    if rank == 1:
        model.set_weights([w * 0 for w in model.get_weights()])  # must not matter
    resumed = model.fit(x, y, batch_size=64, epochs=4, verbose=0,
                        callbacks=[ef.callbacks.BackupAndRestore(backup)])
    assert resumed.epoch == [2, 3], resumed.epoch
    assert _same_everywhere(comm, model.get_weights())
    _ok("backup_and_restore", rank)

    # 10. fit on strategy.distribute_dataset; a rank running out of data early raises.
    ds = ef.data.Dataset.from_tensor_slices((x, y)).batch(64)
    model.fit(strategy.distribute_dataset(ds), epochs=1, verbose=0)
    assert _same_everywhere(comm, model.get_weights())
    mine = ef.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).batch(32)
    model.fit(mine, epochs=1, verbose=0)  # sharded by the user: each rank's own batches
    assert _same_everywhere(comm, model.get_weights())
    short = ds.take(4 if rank == 0 else 3)
    try:
        model.fit(strategy.distribute_dataset(short), epochs=1, verbose=0)
    except ef.errors.OutOfRangeError as e:
        assert "ran out of data" in str(e), e
    else:
        raise AssertionError("uneven data did not raise")
    try:  # the same with a dataset sharded by the user
        model.fit(mine.take(4 if rank == 0 else 3), epochs=1, verbose=0)
    except ef.errors.OutOfRangeError as e:
        assert "ran out of data" in str(e), e
    else:
        raise AssertionError("uneven shards did not raise")
    _ok("out_of_data_error", rank)
    _user_scenarios(ef, np, comm, strategy, x, y, directory)


def _user_scenarios(ef, np, comm, strategy, x, y, directory):  # noqa: PLR0915 - one launch
    """What users ran into (the ranks were seeded differently in `main`)."""
    rank = strategy.rank
    loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True)

    # 11. A seeded shuffle (whose order also depends on the per-rank global seed) and an
    #     unseeded one: every rank reads rank 0's order, so each element is seen once.
    for seed in (5, None):
        ds = ef.data.Dataset.range(16).shuffle(16, seed=seed).batch(4)
        local = strategy.distribute_dataset(ds)
        for _ in range(2):  # and again, reshuffled, in the next pass
            seen = comm.allgather([b.numpy().tolist() for b in local])
            assert sorted(v for r in seen for b in r for v in b) == list(range(16)), seen
    with strategy.scope():
        model = _mlp(ef, input_shape=(8,))
        model.compile(optimizer="sgd", loss=loss)
    model.fit(ef.data.Dataset.from_tensor_slices((x, y)).shuffle(256, seed=3).batch(64),
              epochs=1, verbose=0)  # the ranks' first batches are compared: equal
    assert _same_everywhere(comm, model.get_weights())
    _ok("shuffle_seeds_shared", rank)

    # 12. evaluate / predict on strategy.distribute_dataset with a last batch of 1 row.
    reference = _mlp(ef, input_shape=(8,))
    reference.compile(loss=loss)
    reference.set_weights(model.get_weights())
    rows = ef.data.Dataset.from_tensor_slices((x[:101], y[:101])).batch(50)
    np.testing.assert_allclose(model.evaluate(strategy.distribute_dataset(rows), verbose=0),
                               reference.evaluate(rows, verbose=0), rtol=1e-5)
    inputs = ef.data.Dataset.from_tensor_slices(x[:101]).batch(50)
    np.testing.assert_allclose(model.predict(strategy.distribute_dataset(inputs), verbose=0),
                               reference.predict(x[:101], verbose=0), rtol=1e-5, atol=1e-6)
    _ok("distributed_dataset_evaluation", rank)

    # 13. BatchNormalization: each rank normalizes by its own rows' statistics; fit
    #     averages the moving statistics at each epoch's end, so replicas stay equal.
    with strategy.scope():
        bn = ef.Sequential([ef.layers.Dense(8, input_shape=(8,)),
                            ef.layers.BatchNormalization(), ef.layers.Dense(3)])
        bn.compile(optimizer="adam", loss=loss)
    bn.fit(x, y, batch_size=64, epochs=1, verbose=0, validation_data=(x[:50], y[:50]))
    assert _same_everywhere(comm, bn.get_weights())
    assert _same_everywhere(comm, [bn.predict(x[:11], batch_size=5, verbose=0)])
    _ok("batchnorm_moving_statistics", rank)

    # 14. EarlyStopping (restoring the best weights) stops every rank at the epoch one
    #     process stops at; ReduceLROnPlateau lowers the rate alike.
    def stopping():
        return [ef.callbacks.EarlyStopping(patience=1, restore_best_weights=True),
                ef.callbacks.ReduceLROnPlateau(patience=0, factor=0.5)]

    with strategy.scope():
        early = _mlp(ef, input_shape=(8,))
        early.compile(optimizer=ef.optim.SGD(0.5), loss=loss)
    alone = _mlp(ef, input_shape=(8,))
    alone.compile(optimizer=ef.optim.SGD(0.5), loss=loss)
    alone.set_weights(early.get_weights())
    wrong = (x[:64], (y[:64] + 1) % 3)  # a validation set that soon gets worse
    got = early.fit(x, y, batch_size=64, epochs=20, verbose=0, shuffle=False,
                    validation_data=wrong, callbacks=stopping())
    want = alone.fit(x, y, batch_size=64, epochs=20, verbose=0, shuffle=False,
                     validation_data=wrong, callbacks=stopping())
    assert got.epoch == want.epoch and len(got.epoch) < 20, (got.epoch, want.epoch)
    np.testing.assert_allclose(got.history["learning_rate"], want.history["learning_rate"])
    for mine, single in zip(early.get_weights(), alone.get_weights(), strict=True):
        np.testing.assert_allclose(mine, single, rtol=2e-5, atol=2e-6)
    assert _same_everywhere(comm, early.get_weights())
    _ok("early_stopping", rank)

    # 15. global_clipnorm in a hand-written loop clips the averaged gradient.
    with strategy.scope():
        net = _mlp(ef, input_shape=(8,))
    single_net = _mlp(ef, input_shape=(8,))
    single_net.set_weights(net.get_weights())
    clipped = ef.distribute.DistributedOptimizer(ef.optim.SGD(1.0, global_clipnorm=0.05))
    single = ef.optim.SGD(1.0, global_clipnorm=0.05)
    for start in (0, 64):
        part = slice(start + 32 * rank, start + 32 * (rank + 1))
        with ef.GradientTape() as tape:
            value = loss(y[part], net(x[part]))
        clipped.apply_gradients(zip(tape.gradient(value, net.trainable_variables),
                                    net.trainable_variables, strict=True))
        with ef.GradientTape() as tape:
            value = loss(y[start:start + 64], single_net(x[start:start + 64]))
        single.apply_gradients(zip(tape.gradient(value, single_net.trainable_variables),
                                   single_net.trainable_variables, strict=True))
    assert _same_everywhere(comm, net.get_weights())
    for mine, want_w in zip(net.get_weights(), single_net.get_weights(), strict=True):
        np.testing.assert_allclose(mine, want_w, rtol=2e-5, atol=2e-6)
    _ok("clipping_after_averaging", rank)

    # 16. strategy.reduce over several axes; mismatched values raise on every rank.
    value = ef.constant([[1.0, 2.0]]) * (rank + 1)
    assert float(strategy.reduce("mean", value, axis=(0, -1))) == 9.0 / 4
    try:
        strategy.reduce("sum", ef.constant([1.0] * (1 + rank)))  # 1 value here, 2 there
    except ValueError as e:
        assert "rank 0: [((1,), '<f4')]; rank 1: [((2,), '<f4')]" in str(e), e
    else:
        raise AssertionError("values of different shapes were reduced")
    _ok("reduce_checks_layout", rank)

    # 17. Rank 0 writes, every rank loads at once: each reads the file just written (not
    #     a missing or an older one); a missing file raises on every rank.
    path = os.path.join(directory, "shared.weights.h5")
    with strategy.scope():
        copy = _mlp(ef, input_shape=(8,))
    for step in range(3):
        net.set_weights([np.full_like(w, step + 0.5) for w in net.get_weights()])
        net.save_weights(path)
        copy.load_weights(path)
        for loaded, saved in zip(copy.get_weights(), net.get_weights(), strict=True):
            np.testing.assert_array_equal(loaded, saved)
        # Rank 0 must not overwrite the file before the others have read it: any
        # collective in between (a training step) orders that.
        strategy.reduce("sum", 0)
    try:
        copy.load_weights(os.path.join(directory, "missing.weights.h5"))
    except ef.errors.NotFoundError:
        pass
    else:
        raise AssertionError("a missing file loaded")
    _ok("load_after_chief_save", rank)

    # 18. A callback that stops one rank only (a time limit, say), after a batch or an
    #     epoch: every rank stops there (before, the others waited forever).
    class StopHere(ef.callbacks.Callback):
        def __init__(self, batch=None, epoch=None):
            super().__init__()
            self.batch, self.epoch = batch, epoch

        def on_train_batch_end(self, batch, logs=None):
            if batch == self.batch:
                self.model.stop_training = True

        def on_epoch_end(self, epoch, logs=None):
            if epoch == self.epoch:
                self.model.stop_training = True

    for stop in (StopHere(batch=1 + rank), StopHere(epoch=rank)):
        history = model.fit(x, y, batch_size=64, epochs=3, verbose=0, callbacks=[stop])
        assert history.epoch == [0], history.epoch
        assert _same_everywhere(comm, model.get_weights())
    _ok("one_rank_stops", rank)

    # 19. Optimizers made under the scope average their gradients even when fit does not
    #     know them (a custom train_step with two optimizers) or no DistributedOptimizer
    #     wraps them (a hand-written loop).
    class TwoOptimizers(ef.Model):
        def __init__(self):
            super().__init__()
            self.first, self.second = ef.layers.Dense(4), ef.layers.Dense(3)

        def call(self, inputs, training=False):
            return self.second(self.first(inputs))

        def compile(self, first, second):
            super().compile()
            self.first_optimizer, self.second_optimizer = first, second

        def train_step(self, data):
            features, labels = data
            with ef.GradientTape(persistent=True) as tape:
                value = loss(labels, self(features, training=True))
            for layer, optimizer in ((self.first, self.first_optimizer),
                                     (self.second, self.second_optimizer)):
                grads = tape.gradient(value, layer.trainable_variables)
                optimizer.apply_gradients(zip(grads, layer.trainable_variables, strict=True))
            return {"loss": value}

    with strategy.scope():
        gan_like = TwoOptimizers()
        gan_like.compile(ef.optim.SGD(0.1), ef.optim.Adam(0.01))
    gan_like.fit(x, y, batch_size=64, epochs=1, verbose=0)
    assert _same_everywhere(comm, gan_like.get_weights())
    with strategy.scope():
        weight, plain = ef.Variable([1.0]), ef.optim.SGD(1.0)
    plain.apply_gradients([(ef.constant([float(rank + 1)]), weight)])  # mean 1.5
    assert weight.numpy().tolist() == [-0.5], weight.numpy()
    _ok("optimizers_made_in_scope_average", rank)

    # 20. A PyDataset, shuffled by default: its batch order is drawn on rank 0 (the
    #     ranks' differing seeds drew different orders, and fit refused them).
    class Batches(ef.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, index):
            return x[64 * index:64 * (index + 1)], y[64 * index:64 * (index + 1)]

    model.fit(Batches(), epochs=2, verbose=0)
    assert _same_everywhere(comm, model.get_weights())
    _ok("pydataset_shuffled", rank)

    # 21. BackupAndRestore with Dropout (each rank draws its own masks): a run stopped in
    #     epoch 3 and resumed with fresh objects and other random streams (a new job) ends
    #     bitwise where an uninterrupted run ends: every rank's random state is restored.
    def dropout_net():
        with strategy.scope():
            net = ef.Sequential([ef.layers.Dense(16, activation="relu", input_shape=(8,)),
                                 ef.layers.Dropout(0.5), ef.layers.Dense(3)])
            net.compile(optimizer="adam", loss=loss)
        return net

    class StopInEpoch(ef.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1 and self.epoch == 2:
                raise KeyboardInterrupt("killed in epoch 3")

        def on_epoch_begin(self, epoch, logs=None):
            self.epoch = epoch

    ef.random.set_seed(40 + rank)
    straight = dropout_net()
    straight.fit(x, y, batch_size=64, epochs=4, verbose=0)
    ef.random.set_seed(40 + rank)
    backup = os.path.join(directory, "dropout_backup")
    try:
        dropout_net().fit(x, y, batch_size=64, epochs=4, verbose=0, callbacks=[
            ef.callbacks.BackupAndRestore(backup), StopInEpoch()])
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the run was not stopped")
    ef.random.set_seed(900 + rank)
    resumed = dropout_net()
    history = resumed.fit(x, y, batch_size=64, epochs=4, verbose=0,
                          callbacks=[ef.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3], history.epoch
    for got, want in zip(resumed.get_weights(), straight.get_weights(), strict=True):
        np.testing.assert_array_equal(got, want)
    assert _same_everywhere(comm, resumed.get_weights())
    _ok("backup_and_restore_dropout_bitwise", rank)

    # 22. Unequal data per rank (arrays shuffled by fit, a PyDataset's batch order): a
    #     clear error on every rank naming the sizes (rank 0's order indexed past rank 1's
    #     rows: a bare IndexError there while rank 0 waited forever).
    rows = 64 if rank == 0 else 48

    class Unequal(ef.utils.PyDataset):
        def __len__(self):
            return 4 - rank

        def __getitem__(self, index):
            return x[64 * index:64 * (index + 1)], y[64 * index:64 * (index + 1)]

    for call in (lambda: resumed.fit(x[:rows], y[:rows], batch_size=16, verbose=0),
                 lambda: resumed.evaluate(x[:rows], y[:rows], batch_size=16, verbose=0),
                 lambda: resumed.fit(Unequal(), verbose=0)):
        try:
            call()
        except ValueError as e:
            assert "the ranks hold different numbers of" in str(e), e
            assert "(rank 0: 64, rank 1: 48)" in str(e) or "(rank 0: 4, rank 1: 3)" in str(e), e
        else:
            raise AssertionError("unequal data did not raise")
    _ok("unequal_data_error", rank)

    # 23. The Strategy base class's collectives, as MPIStrategy implements them: nested
    #     all_reduce (eagerly and traced), gather of unequal sizes, Python objects.
    assert isinstance(strategy, ef.distribute.Strategy)
    summed = strategy.all_reduce("sum", {"a": ef.constant([1.0, 2.0]) * (rank + 1),
                                         "b": [ef.constant(rank)]})
    assert summed["a"].numpy().tolist() == [3.0, 6.0] and int(summed["b"][0]) == 1
    traced = ef.function(lambda v: strategy.all_reduce("mean", v))
    assert traced(ef.constant([2.0 * rank])).numpy().tolist() == [1.0]
    assert int(strategy.all_reduce("mean", ef.constant(3 * rank))) == 1  # ints floor
    gathered = strategy.gather(ef.constant([[rank]] * (1 + rank)), axis=0)
    assert gathered.numpy().tolist() == [[0], [1], [1]], gathered
    assert strategy.broadcast_object({"rank": rank}) == {"rank": 0}
    assert strategy.all_gather_object(rank * 10) == [0, 10]
    assert strategy.sum_arrays([np.arange(2) + rank], "a test")[0].tolist() == [1, 3]
    assert strategy.any_replica(rank == 1) is True
    _ok("collectives", rank)


def fault(directory):
    import numpy as np

    import eagerflow as ef

    del directory
    strategy = ef.distribute.MPIStrategy()
    with strategy.scope():
        model = ef.Sequential([ef.layers.Dense(2, input_shape=(4,))])
        model.compile(optimizer="sgd", loss="mse")

    class Boom(ef.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if strategy.rank == 1 and batch == 2:
                raise RuntimeError("boom on rank 1")

    model.fit(np.ones((512, 4)), np.ones((512, 2)), batch_size=8, epochs=50, verbose=0,
              callbacks=[Boom()])
    print("fault: training finished, which it should not have", flush=True)


def caught_fault(directory):
    """Rank 1 fails inside fit and its error is caught: rank 0, waiting in its next
    collective, raises at once (rank 1's note); a rank that skips a collective outside
    fit leaves the other to its collective's deadline, which raises instead of hanging."""
    import time

    import numpy as np
    from mpi4py import MPI

    import eagerflow as ef

    del directory
    # Made first: a communicator is duplicated by every rank, before any rank fails.
    deadline = ef.distribute.MPIStrategy(MPI.COMM_WORLD.Dup(), timeout=1.0)
    strategy = ef.distribute.MPIStrategy(timeout=60.0)
    rank = strategy.rank
    with strategy.scope():
        model = ef.Sequential([ef.layers.Dense(2, input_shape=(4,))])
        model.compile(optimizer="sgd", loss="mse")

    class Boom(ef.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if rank == 1 and batch == 2:
                raise RuntimeError("boom on rank 1")

    # 1. A failure inside fit: the other rank learns of it at once, with its text.
    start = time.monotonic()
    try:
        model.fit(np.ones((512, 4)), np.ones((512, 2)), batch_size=8, epochs=50, verbose=0,
                  callbacks=[Boom()])
    except RuntimeError as e:
        if rank == 1:
            assert str(e) == "boom on rank 1", e
            print("rank 1 caught its error and went on", flush=True)
        else:
            assert "rank 1 failed (RuntimeError: boom on rank 1) while this rank (0) " \
                   "waited in the allreduce agreeing on stop_training" in str(e), e
            print(f"rank 0 learned of it after {time.monotonic() - start:.1f} s", flush=True)
    try:  # rank 1 goes on; rank 0's failure (it gave up its allreduce) reaches it too
        strategy.reduce("sum", 1.0)
    except (RuntimeError, ef.errors.FailedPreconditionError) as e:
        assert "out of step" in str(e) or "rank 0 failed" in str(e), e
        print(f"rank {rank} refuses further collectives", flush=True)

    # 2. Rank 1 skips a collective (its error was caught outside fit): rank 0 times out.
    start = time.monotonic()
    if rank == 0:
        try:
            deadline.reduce("sum", 1.0)
        except TimeoutError as e:
            assert "did not complete within the deadline (1 s)" in str(e), e
            print(f"rank 0 timed out after {time.monotonic() - start:.1f} s: {e}", flush=True)
    # Rank 0 exits with collectives pending: it aborts the job rather than hang in
    # MPI_Finalize.


if __name__ == "__main__":
    {"main": main, "fault": fault, "caught_fault": caught_fault}[sys.argv[1]](sys.argv[2])

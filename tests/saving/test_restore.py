"""Restore: the status report, mismatches, and deferred restoration."""

import copy
import gc
import pickle
import re
import weakref

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import trackable
from eagerflow.core.errors import EagerflowWarning
from eagerflow.core.trackable import Trackable
from eagerflow.saving import h5format, restore
from eagerflow.saving import status as status_module
from tests.saving import fakes


def trained(seed=0, steps=2, model=None):
    model = model or fakes.SubclassedModel(seed)
    optimizer, metric = fakes.Momentum(), fakes.Mean()
    fakes.train(model, optimizer, metric, fakes.batches(steps, seed))
    return model, optimizer, metric


def saved_model(tmp_path, seed=0, **extra):
    model, optimizer, metric = trained(seed)
    path = ef.Checkpoint(model=model, optimizer=optimizer, metric=metric, **extra).save(
        tmp_path / "ckpt")
    return path, model, optimizer, metric


# -- matching -------------------------------------------------------------------------------
def test_nothing_matching_is_an_error(tmp_path):
    path = ef.Checkpoint(net=ef.Variable(1.0)).write(tmp_path / "n.h5")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"n.h5' matches nothing.*in the file: \['net'\]; in the objects: "
                             r"\['model'\]"):
        ef.Checkpoint(model=ef.Variable(0.0)).read(path)


def test_shape_mismatch_names_path_and_shapes_and_assigns_nothing(tmp_path):
    path = ef.Checkpoint(a=ef.Variable([1.0, 2.0]), w=ef.Variable(np.ones((3, 4), np.float32))
                         ).write(tmp_path / "s.h5")
    a, w = ef.Variable([0.0, 0.0]), ef.Variable(np.zeros((3, 5), np.float32))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"s.h5' \(nothing was restored\): 'w': file has shape \(3, 4\) "
                             r"float32, variable has shape \(3, 5\) float32"):
        ef.Checkpoint(a=a, w=w).read(path)
    assert a.numpy().tolist() == [0.0, 0.0]


def test_mismatch_error_shows_a_side_by_side_table(tmp_path):
    path = ef.Checkpoint(w=ef.Variable(np.ones(2, np.float64))).write(tmp_path / "d.h5")
    with pytest.raises(ef.errors.InvalidArgumentError) as info:
        ef.Checkpoint(w=ef.Variable(np.ones(2, np.float32))).read(path)
    assert re.search(r"\n! w +\(2,\) float32 +\(2,\) float64\n", str(info.value))


def test_skip_mismatch_restores_the_rest_and_reports(tmp_path):
    path = ef.Checkpoint(a=ef.Variable(1.0), w=ef.Variable([1.0, 2.0])).write(tmp_path / "k.h5")
    a, w = ef.Variable(0.0), ef.Variable([0.0, 0.0, 0.0])
    status = ef.Checkpoint(a=a, w=w).read(path, skip_mismatch=True)
    assert float(a) == 1.0 and w.numpy().tolist() == [0.0, 0.0, 0.0]
    assert status.mismatched == [status_module.Mismatch("w", (2,), np.dtype("float32"), (3,),
                                                  np.dtype("float32"))]
    assert status.missing == []  # a skipped variable is reported once, as mismatched
    with pytest.raises(AssertionError, match=r"1 shape/dtype mismatch\(es\) skipped: 'w': file"):
        status.assert_existing_objects_matched()


def test_large_mismatch_table_shows_only_differing_rows():
    targets = {f"v{i:03d}": ef.Variable(0.0) for i in range(60)}
    entries = {p: h5format.Entry((), np.dtype("float32")) for p in targets}
    entries["v005"] = h5format.Entry((2,), np.dtype("float32"))
    table = restore._side_by_side(targets, entries)
    assert "! v005" in table and "v006" not in table and "59 more rows" in table


# -- deferred restoration -----------------------------------------------------------------
def test_sequential_built_after_restore_gets_its_weights(tmp_path):
    source = fakes.Sequential([fakes.Dense(3, seed=1), fakes.Dense(2, seed=2)])
    x = ef.constant(np.ones((1, 4), np.float32))
    expected = source(x).numpy()
    path = ef.Checkpoint(model=source).write(tmp_path / "seq.h5")

    model = fakes.Sequential([fakes.Dense(3, seed=7), fakes.Dense(2, seed=8)])
    status = ef.Checkpoint(model=model).read(path)
    assert status.matched == [] and len(status.pending) == 4
    status.assert_existing_objects_matched()
    assert np.array_equal(model(x).numpy(), expected)  # values assigned before first use
    assert status.pending == [] and len(status.matched) == 4
    status.assert_consumed()
    assert status not in trackable._restore_listeners  # stops listening when done


def test_subclassed_model_built_after_restore(tmp_path):
    path, source, _, _ = saved_model(tmp_path)
    model = fakes.SubclassedModel(seed=9)
    status = ef.Checkpoint(model=model).restore(path).expect_partial()
    model(ef.zeros((1, 4)))
    assert fakes.state(model) == fakes.state(source)
    # The Checkpoint has no optimizer or metric yet: their values wait for one to be
    # attached (ckpt.optimizer = opt), as TensorFlow's deferred restore does.
    assert status.pending and all(p.startswith(("optimizer/", "metric/"))
                                  for p in status.pending)
    assert "optimizer/iterations" in status.pending


def test_optimizer_slots_created_after_restore(tmp_path):
    path, source_model, source_opt, _ = saved_model(tmp_path)
    model, optimizer = fakes.SubclassedModel(seed=3), fakes.Momentum()
    status = ef.Checkpoint(model=model, optimizer=optimizer).restore(path).expect_partial()
    assert any(p.startswith("optimizer/slots/model/dense1/kernel") for p in status.pending)
    model(ef.zeros((1, 4)))
    assert all(p.startswith(("optimizer/slots/", "metric/")) for p in status.pending)
    x, y = fakes.batches(1, seed=11)[0]
    with ef.GradientTape() as tape:
        loss = ef.reduce_mean(ef.square(model(x) - y))
    variables = model.trainable_variables()
    grads = tape.gradient(loss, variables)
    # The first update uses the restored slots: compare with the same step on the source.
    with ef.GradientTape() as tape:
        source_loss = ef.reduce_mean(ef.square(source_model(x) - y))
    source_vars = source_model.trainable_variables()
    source_grads = tape.gradient(source_loss, source_vars)
    optimizer.apply_gradients(zip(grads, variables, strict=True))
    source_opt.apply_gradients(zip(source_grads, source_vars, strict=True))
    assert all(p.startswith("metric/") for p in status.pending)  # no metric attached
    assert fakes.state(model, optimizer) == fakes.state(source_model, source_opt)


def test_deferred_restore_outlives_the_status_and_the_checkpoint(tmp_path):
    path, source, _, _ = saved_model(tmp_path)
    model = fakes.SubclassedModel(seed=4)
    ef.Checkpoint(model=model).restore(path)  # status and Checkpoint dropped at once
    gc.collect()
    model(ef.zeros((1, 4)))
    assert fakes.state(model) == fakes.state(source)


def test_pending_restore_dies_with_its_objects(tmp_path):
    path, _, _, _ = saved_model(tmp_path)
    model = fakes.SubclassedModel(seed=4)
    status_ref = weakref.ref(ef.Checkpoint(model=model).restore(path))
    gc.collect()
    assert status_ref() is not None
    del model
    gc.collect()
    assert status_ref() is None


def test_models_with_pending_restores_can_be_copied_and_pickled(tmp_path):
    path, _, _, _ = saved_model(tmp_path)
    model = fakes.SubclassedModel(seed=4)
    ef.Checkpoint(model=model).restore(path)
    clone = copy.deepcopy(model)
    assert pickle.loads(pickle.dumps(model)).__dict__[status_module.ATTACHED] == []
    clone(ef.zeros((1, 4)))  # the copy is another object: it keeps its own initial values
    assert not np.array_equal(clone.dense1.kernel.numpy(),
                              ef.checkpoint.load_variable(path, "model/dense1/kernel"))


def test_deferred_shape_mismatch_is_raised_at_creation(tmp_path):
    source = fakes.Sequential([fakes.Dense(3)])
    source(ef.zeros((1, 4)))
    path = ef.Checkpoint(model=source).write(tmp_path / "m.h5")
    model = fakes.Sequential([fakes.Dense(3)])
    ef.Checkpoint(model=model).read(path)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"'model/layers/0/kernel': file has shape \(4, 3\) float32, "
                             r"variable has shape \(5, 3\).*m.h5'.*deferred"):
        model(ef.zeros((1, 5)))


def test_deferred_shape_mismatch_skipped_when_asked(tmp_path):
    source = fakes.Sequential([fakes.Dense(3)])
    source(ef.zeros((1, 4)))
    path = ef.Checkpoint(model=source).write(tmp_path / "m.h5")
    model = fakes.Sequential([fakes.Dense(3)])
    status = ef.Checkpoint(model=model).read(path, skip_mismatch=True)
    model(ef.zeros((1, 5)))
    assert [m.path for m in status.mismatched] == ["model/layers/0/kernel"]
    assert status.matched == ["model/layers/0/bias"] and status.pending == []


def test_variable_created_without_a_saved_value_warns_once(tmp_path):
    source = Trackable()
    source.encoder = fakes.Dense(3)
    source.encoder(ef.zeros((1, 4)))
    path = ef.Checkpoint(model=source).write(tmp_path / "m.h5")
    model = Trackable()
    model.enc = fakes.Dense(3)  # the attribute was renamed since the checkpoint
    status = ef.Checkpoint(model=model).read(path)
    with pytest.warns(EagerflowWarning, match=r"'model/enc/kernel' was created after "
                      r"restoring 'm.h5', which has no value for it.*2 saved value\(s\) are "
                      r"still waiting \('model/encoder/bias', 'model/encoder/kernel'\)"):
        model.enc(ef.zeros((1, 4)))
    model.enc.build(4)  # again: no second warning (pytest would fail on it)
    assert len(status.pending) == 2


def test_expect_partial_silences_the_created_without_value_warning(tmp_path):
    source = fakes.Sequential([fakes.Dense(3)])
    source(ef.zeros((1, 4)))
    path = ef.Checkpoint(model=source).write(tmp_path / "m.h5")
    model = fakes.Sequential([fakes.Dense(3), fakes.Dense(2)])
    ef.Checkpoint(model=model).read(path).expect_partial()
    model(ef.zeros((1, 4)))  # layer 1 has no saved values: no warning


def test_warn_pending_restores(tmp_path):
    path, _, _, _ = saved_model(tmp_path)
    model = fakes.SubclassedModel(seed=4)
    status = ef.Checkpoint(model=model).restore(path)
    with pytest.warns(EagerflowWarning, match=r"restored from .*ckpt-1.h5' are still waiting"):
        ef.checkpoint.warn_pending_restores()
    ef.checkpoint.warn_pending_restores()  # once per restore
    other = fakes.SubclassedModel(seed=5)
    ef.Checkpoint(model=other).restore(path).expect_partial()
    ef.checkpoint.warn_pending_restores()  # expect_partial: silent
    assert status.pending


def test_hook_name_differing_from_child_key_is_matched_by_identity(tmp_path):
    class Odd(Trackable):
        def build(self):
            self.w = ef.Variable([0.0, 0.0])
            self._track_new_variable("w:0", self.w)  # announced under another name

    source = Odd()
    source.build()
    source.w.assign([3.0, 4.0])
    path = ef.Checkpoint(layer=source).write(tmp_path / "o.h5")
    layer = Odd()
    ef.Checkpoint(layer=layer).read(path)
    layer.build()
    assert layer.w.numpy().tolist() == [3.0, 4.0]


def test_sublayer_created_during_build(tmp_path):
    class Wrapper(Trackable):
        def __init__(self):
            self.built = False

        def __call__(self, x):
            if not self.built:
                self.forward = fakes.Dense(2, seed=self.seed)
                self.backward = fakes.Dense(2, seed=self.seed + 1)
                self.built = True
            return self.forward(x) + self.backward(x)

    source = Wrapper()
    source.seed = 1
    x = ef.ones((1, 3))
    expected = source(x).numpy()
    path = ef.Checkpoint(model=source).write(tmp_path / "w.h5")
    model = Wrapper()
    model.seed = 10
    status = ef.Checkpoint(model=model).read(path)
    assert np.array_equal(model(x).numpy(), expected)
    status.assert_consumed()


def test_pending_vs_unused_classification(tmp_path):
    holder = fakes.Sequential([])
    holder.w = ef.Variable(1.0)
    holder.sub = fakes.Sequential([])
    holder.sub.v = ef.Variable(2.0)
    path = ef.Checkpoint(model=holder, other=ef.Variable(3.0)).write(tmp_path / "p.h5")
    target = fakes.Sequential([])
    target.w = ef.Variable([0.0])  # a variable: nothing can live below it
    target.sub = fakes.Sequential([])  # an object: it may still create 'v'
    with pytest.raises(ef.errors.InvalidArgumentError, match="'model/w': file has shape"):
        ef.Checkpoint(model=target).read(path)
    status = ef.Checkpoint(model=target).read(path, skip_mismatch=True)
    assert status.pending == ["model/sub/v"]
    assert status.unused == ["other"]


def test_restore_in_place_is_visible_to_earlier_reads_only_after(tmp_path):
    path = ef.Checkpoint(v=ef.Variable([1.0, 2.0])).write(tmp_path / "v.h5")
    v = ef.Variable([0.0, 0.0])
    before = v.read_value()
    ef.Checkpoint(v=v).read(path)
    assert before.numpy().tolist() == [0.0, 0.0]  # tensors are immutable snapshots
    assert v.numpy().tolist() == [1.0, 2.0]


# -- exact resumption -----------------------------------------------------------------------
@pytest.mark.parametrize("model_kind", ["sequential", "subclassed"])
def test_resuming_from_a_checkpoint_is_bitwise_identical(tmp_path, model_kind):
    def make(seed):
        if model_kind == "sequential":
            return fakes.Sequential([fakes.Dense(5, seed=seed), fakes.Dense(3, seed=seed + 1)])
        return fakes.SubclassedModel(seed)

    steps = 4
    data = fakes.batches(2 * steps, seed=123)

    straight = (make(0), fakes.Momentum(), fakes.Mean())
    fakes.train(*straight, data)

    first = (make(0), fakes.Momentum(), fakes.Mean())
    fakes.train(*first, data[:steps])
    names = ("model", "optimizer", "metric")
    path = ef.Checkpoint(**dict(zip(names, first, strict=True))).save(tmp_path / "ckpt")
    del first

    resumed = (make(99), fakes.Momentum(), fakes.Mean())  # fresh, unbuilt, other seed
    status = ef.Checkpoint(**dict(zip(names, resumed, strict=True))).restore(path)
    fakes.train(*resumed, data[steps:])
    status.assert_consumed()

    assert fakes.state(*resumed) == fakes.state(*straight)
    assert int(resumed[1].iterations) == 2 * steps
    assert resumed[2].result() == straight[2].result()


def test_saving_before_deferred_values_are_used_keeps_them(tmp_path):
    path, source_model, source_opt, _ = saved_model(tmp_path)
    model, optimizer = fakes.SubclassedModel(seed=3), fakes.Momentum()
    ef.Checkpoint(model=model, optimizer=optimizer).restore(path).expect_partial()
    # Saved again, under other names, before the model was built or any slot created:
    resaved = ef.Checkpoint(net=model, opt=optimizer).write(tmp_path / "again.h5")
    names = {k for k, _, _ in ef.checkpoint.list_variables(resaved)}
    assert "net/dense1/kernel" in names and "opt/slots/net/dense1/kernel/momentum" in names
    fresh_model, fresh_opt = fakes.SubclassedModel(seed=4), fakes.Momentum()
    status = ef.Checkpoint(net=fresh_model, opt=fresh_opt).read(resaved)
    fresh_model(ef.zeros((1, 4)))
    fresh_opt.apply_gradients([(ef.zeros_like(v), v) for v in
                               fresh_model.trainable_variables()])
    source_opt.apply_gradients([(ef.zeros_like(v), v) for v in
                                source_model.trainable_variables()])
    status.assert_consumed()
    assert fakes.state(fresh_model, fresh_opt) == fakes.state(source_model, source_opt)

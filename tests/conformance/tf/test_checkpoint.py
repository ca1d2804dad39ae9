"""Cases of TensorFlow's `tensorflow/python/checkpoint/checkpoint_test.py` (TF 2.21) on
`ef.train.Checkpoint`'s public API; expected values are TensorFlow's."""

import os

import pytest

import eagerflow as ef


def _save(tmp_path, name, **objects):
    ckpt = ef.train.Checkpoint(**objects)
    return ckpt, ckpt.save(os.path.join(tmp_path, name))


def test_restore_on_assign(tmp_path):  # testRestoreOnAssign
    first = ef.train.Checkpoint()
    first.var1 = ef.Variable(4.0)
    first.var2 = ef.Variable(8.0)
    path = first.save(os.path.join(tmp_path, "ckpt"))
    second = ef.train.Checkpoint()
    second.var2 = ef.Variable(0.0)
    second.restore(path)
    assert float(second.var2) == 8.0
    recreated = ef.Variable(-2.0)
    second.var1 = recreated
    assert float(recreated) == 4.0


def test_attach_after_restore_and_status(tmp_path):  # testLateDependencyTracking
    class Dependency(ef.Module):
        def build(self):
            self.var = ef.Variable(0.0)

    class Late(ef.train.Checkpoint):
        def add_dep(self):
            self.dep = Dependency()
            self.dep.build()

    original = Late()
    original.add_dep()
    original.dep.var.assign(123.0)
    path = original.save(os.path.join(tmp_path, "ckpt"))
    load_into = Late()
    status = load_into.restore(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    load_into.add_dep()
    status.assert_consumed()
    assert float(load_into.dep.var) == 123.0


def test_dependency_built_then_attached(tmp_path):  # testDepAfterVar
    class Dependency(ef.Module):
        def build(self):
            self.var = ef.Variable(0.0)

    ckpt = ef.train.Checkpoint()
    dep = Dependency()
    dep.build()
    dep.var.assign(-14.0)
    ckpt.dep = dep
    path = ckpt.save(os.path.join(tmp_path, "ckpt"))
    loaded = ef.train.Checkpoint()
    status = loaded.restore(path)
    new = Dependency()
    new.build()
    loaded.dep = new
    status.assert_consumed()
    assert float(new.var) == -14.0


def test_dependency_loop_deferred(tmp_path):  # testDependencyLoop
    first, second = ef.train.Checkpoint(), ef.train.Checkpoint()
    first.second = second
    second.first = first
    first.v = ef.Variable([3.0, 1.0, 4.0])
    second.v = ef.Variable([1.0, 1.0, 2.0, 3.0])
    path = first.save(os.path.join(tmp_path, "ckpt"))
    first_load = ef.train.Checkpoint()
    status = first_load.restore(path)
    second_load = ef.Module()
    first_load.second = second_load
    second_load.first = first_load
    with pytest.raises(AssertionError):
        status.assert_consumed()
    first_load.v = ef.Variable([0.0, 0.0, 0.0])
    second_load.v = ef.Variable([0.0, 0.0, 0.0, 0.0])
    status.assert_consumed()
    assert first_load.v.numpy().tolist() == [3.0, 1.0, 4.0]
    assert second_load.v.numpy().tolist() == [1.0, 1.0, 2.0, 3.0]


def test_overlapping_restores_last_attach_wins(tmp_path):  # testOverlappingRestores
    root = ef.train.Checkpoint()
    root.dep = ef.Module()
    root.dep.var = ef.Variable(12.0)
    first_path = root.save(os.path.join(tmp_path, "first"))
    root.dep.var.assign(13.0)
    second_path = root.save(os.path.join(tmp_path, "second"))
    first_root, second_root = ef.train.Checkpoint(), ef.train.Checkpoint()
    first_root.restore(first_path)
    second_root.restore(second_path)
    load_dep = ef.Module()
    load_dep.var = ef.Variable(0.0)
    first_root.dep = load_dep
    assert float(load_dep.var) == 12.0
    second_root.dep = load_dep
    assert float(load_dep.var) == 13.0


def test_objects_combined(tmp_path):  # testObjectsCombined
    root = ef.train.Checkpoint()
    root.dep_one, root.dep_two = ef.Module(), ef.Module()
    root.dep_one.var1 = ef.Variable(32.0, dtype=ef.float64)
    root.dep_two.var2 = ef.Variable(64.0, dtype=ef.float64)
    path = root.save(os.path.join(tmp_path, "ckpt"))
    load_root = ef.train.Checkpoint()
    load_root.dep_one = ef.Module()
    load_root.dep_two = load_root.dep_one
    load_root.dep_one.var1 = ef.Variable(0.0, dtype=ef.float64)
    load_root.dep_one.var2 = ef.Variable(0.0, dtype=ef.float64)
    load_root.restore(path).assert_consumed()
    assert (float(load_root.dep_one.var1), float(load_root.dep_one.var2)) == (32.0, 64.0)


def test_root_keyword_saves_the_root_s_children_at_the_top(tmp_path):
    # TF 2.21: Checkpoint(root=m, extra=v) saves 'v', 'extra' and 'save_counter'.
    module = ef.Module()
    module.v = ef.Variable(5.0)
    ckpt = ef.train.Checkpoint(root=module, extra=ef.Variable(1.0))
    assert ckpt.root is module
    path = ckpt.save(os.path.join(tmp_path, "ckpt"))
    assert sorted(name for name, _ in ef.train.list_variables(path)) == [
        "extra", "save_counter", "v"]
    other = ef.Module()
    other.v = ef.Variable(0.0)
    ef.train.Checkpoint(root=other).restore(path)
    assert float(other.v) == 5.0


def test_custom_numbering(tmp_path):  # testCustomNumbering
    step = ef.Variable(0, dtype=ef.int64)
    ckpt = ef.train.Checkpoint(step=step)
    prefix = os.path.join(tmp_path, "ckpt")
    for i in range(5):
        path = ckpt.write(f"{prefix}-{int(step)}")
        assert os.path.splitext(path)[0].endswith(f"-{2 * i}")
        step.assign_add(2)


def test_list_append_after_restore(tmp_path):
    original = ef.train.Checkpoint()
    original.listed = [ef.Variable(1.0)]
    path = original.save(os.path.join(tmp_path, "ckpt"))
    loaded = ef.train.Checkpoint()
    loaded.listed = []
    loaded.restore(path)
    loaded.listed.append(ef.Variable(0.0))
    assert float(loaded.listed[0]) == 1.0  # TF 2.21: 1.0 at once


def test_second_path_to_one_object(tmp_path):
    original = ef.train.Checkpoint()
    original.a = ef.Module()
    original.a.v = ef.Variable(3.0)
    original.b = original.a
    path = original.save(os.path.join(tmp_path, "ckpt"))
    loaded = ef.train.Checkpoint()
    loaded.b = ef.Module()
    loaded.b.v = ef.Variable(0.0)
    loaded.restore(path)
    assert float(loaded.b.v) == 3.0


def _saved_with_second_path(tmp_path):
    original = ef.train.Checkpoint()
    original.a = ef.Module()
    original.a.v = ef.Variable(3.0)
    original.b = original.a
    return original.save(os.path.join(tmp_path, "ckpt"))


def test_assert_consumed_through_a_second_path(tmp_path):
    # TF 2.21: restoring ``a``'s value through ``b`` alone, or through both paths to one
    # module, consumes the checkpoint (one object, saved once).
    path = _saved_with_second_path(tmp_path)
    only_b = ef.train.Checkpoint()
    only_b.b = ef.Module()
    only_b.b.v = ef.Variable(0.0)
    only_b.restore(path).assert_consumed()
    both = ef.train.Checkpoint()
    both.a = ef.Module()
    both.a.v = ef.Variable(0.0)
    both.b = both.a
    both.restore(path).assert_consumed()
    assert (float(only_b.b.v), float(both.a.v)) == (3.0, 3.0)


def test_two_live_objects_for_one_saved_object(tmp_path):
    # TF 2.21: the first object reached gets the values (3.0, 0.0) and the other's variable
    # is left unmatched, so assert_consumed fails.
    path = _saved_with_second_path(tmp_path)
    loaded = ef.train.Checkpoint()
    loaded.a, loaded.b = ef.Module(), ef.Module()
    loaded.a.v, loaded.b.v = ef.Variable(0.0), ef.Variable(0.0)
    status = loaded.restore(path)
    assert (float(loaded.a.v), float(loaded.b.v)) == (3.0, 0.0)
    with pytest.raises(AssertionError, match=r"1 existing variable\(s\) found no value.*'b/v'"):
        status.assert_consumed()


def test_deferred_restore_through_a_second_path(tmp_path):
    # TF 2.21: attaching ``b`` after the restore gives it the value saved through ``a``.
    path = _saved_with_second_path(tmp_path)
    loaded = ef.train.Checkpoint()
    status = loaded.restore(path)
    loaded.b = ef.Module()
    loaded.b.v = ef.Variable(0.0)
    assert float(loaded.b.v) == 3.0
    status.assert_consumed()


def test_dict_mutation_after_restore(tmp_path):
    # TF 2.21: item assignment, update and a nested dict set after the restore all get their
    # saved values at once (1.0, 2.0, 3.0), and the checkpoint is consumed.
    original = ef.train.Checkpoint()
    original.d = {"k": ef.Variable(1.0), "j": ef.Variable(2.0), "n": {"x": ef.Variable(3.0)}}
    path = original.save(os.path.join(tmp_path, "ckpt"))
    loaded = ef.train.Checkpoint()
    loaded.d = {}
    status = loaded.restore(path)
    loaded.d["k"] = ef.Variable(0.0)
    loaded.d.update(j=ef.Variable(0.0))
    loaded.d["n"] = {}
    loaded.d["n"]["x"] = ef.Variable(0.0)
    assert [float(loaded.d[k]) for k in ("k", "j")] + [float(loaded.d["n"]["x"])] == [
        1.0, 2.0, 3.0]
    status.assert_consumed()


def test_list_of_a_module_appended_after_restore(tmp_path):
    # TF 2.21: a list a module built in its constructor is restored into on append (4.0).
    class Blocks(ef.Module):
        def __init__(self):
            super().__init__()
            self.blocks = []

    saved = Blocks()
    saved.blocks.append(ef.Variable(4.0))
    path = ef.train.Checkpoint(model=saved).save(os.path.join(tmp_path, "ckpt"))
    loaded = Blocks()
    status = ef.train.Checkpoint(model=loaded).restore(path)
    loaded.blocks.append(ef.Variable(0.0))
    assert float(loaded.blocks[0]) == 4.0
    status.assert_consumed()

"""Cases of TensorFlow's `polymorphic_function_test.py` (and the `tf.function` cases of
issue 30) on `ef.function`, with the values and exception classes TensorFlow 2.21 gives."""

import numpy as np
import pytest

import eagerflow as ef


# -- iterators read by graph loops ---------------------------------------------------------
def _sum_in_while(n):
    dataset = ef.data.Dataset.range(3)

    @ef.function
    def f(n):
        it = iter(dataset)
        total = ef.constant(0, ef.int64)
        i = ef.constant(0)
        while i < n:
            total += next(it)
            i += 1
        return total

    return f(ef.constant(n))


def test_next_in_tensor_while_advances():
    assert int(_sum_in_while(3)) == 3  # TF: 3


def test_next_past_the_end_in_tensor_while_raises_out_of_range():
    with pytest.raises(ef.errors.OutOfRangeError, match="End of sequence"):
        _sum_in_while(4)


def test_iterator_made_inside_restarts_each_call_where_the_trace_left_it():
    dataset = ef.data.Dataset.range(10)

    @ef.function
    def f(n):
        it = iter(dataset)
        first = next(it)
        total = ef.constant(0, ef.int64)
        i = ef.constant(0)
        while i < n:
            total += next(it)
            i += 1
        return first, total, next(it)

    # TF: [0, 6, 4], [0, 3, 3], [0, 0, 1]
    assert [int(v) for v in f(ef.constant(3))] == [0, 6, 4]
    assert [int(v) for v in f(ef.constant(2))] == [0, 3, 3]
    assert [int(v) for v in f(ef.constant(0))] == [0, 0, 1]


def test_iterator_from_outside_read_in_branch_inside_loop():
    it = iter(ef.data.Dataset.range(10))

    @ef.function
    def f(n):
        total = ef.constant(0, ef.int64)
        for i in ef.range(n):
            if i % 2 == 0:
                total += next(it)
        return total

    assert int(f(ef.constant(4))) == 1  # TF: 1, then 5
    assert int(f(ef.constant(3))) == 5


# -- AutoGraph: loop variables -----------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: ef.range(0), lambda: ef.range(ef.constant(0))])
def test_loop_variable_after_empty_trace_time_range(make):
    @ef.function
    def f():
        for i in make():
            pass
        return i  # noqa: F821 - defined by the loop, as in TensorFlow

    assert int(f()) == 0  # TF: 0


def test_loop_variable_after_empty_python_range_is_unbound():
    @ef.function
    def f(n):
        for i in range(n):
            pass
        return i  # noqa: F821

    with pytest.raises(UnboundLocalError):  # TF: UnboundLocalError
        f(0)


# -- arguments must not be modified --------------------------------------------------------------
@pytest.mark.parametrize("mutate", [
    lambda items: items.append(ef.constant(1.0)),
    lambda items: items.pop(),
    lambda items: items.__setitem__(0, ef.constant(5.0)),
])
def test_modifying_a_list_argument_raises_value_error(mutate):
    @ef.function
    def f(items):
        mutate(items)
        return ef.constant(0.0)

    # TF: ValueError "... should not modify its Python input arguments ..."
    with pytest.raises(ValueError, match="should not modify its Python input arguments.*items"):
        f([ef.constant(2.0)])


def test_modifying_a_dict_argument_raises_value_error():
    @ef.function
    def f(d):
        d["a"] += 1
        return ef.constant(0.0)

    with pytest.raises(ValueError, match="modified: d"):
        f({"a": ef.constant(1.0)})


def test_modifying_a_copy_or_a_local_list_is_allowed():
    @ef.function
    def f(items, x):
        items = list(items)
        items.append(x)
        local = []
        local.append(x * 2.0)
        return items[0] + items[1], local

    total, local = f([ef.constant(2.0)], ef.constant(1.0))
    assert float(total) == 3.0 and float(local[0]) == 2.0


# -- jacobians inside ef.function ------------------------------------------------------------
def test_batch_jacobian_in_function():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.batch_jacobian(y, x)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = [[[0.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 12.0]],
                [[27.0, 0.0, 0.0], [0.0, 48.0, 0.0], [0.0, 0.0, 75.0]]]  # TF
    np.testing.assert_allclose(f(ef.constant(x)).numpy(), expected)


def test_batch_jacobian_in_function_with_unknown_batch():
    @ef.function(input_signature=[ef.TensorSpec([None, 2])])
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.stack([x[:, 0] * x[:, 1], ef.sin(x[:, 0])], 1)
        return tape.batch_jacobian(y, x)

    expected = [[[2.0, 1.0], [0.5403, 0.0]], [[4.0, 3.0], [-0.99, 0.0]],
                [[6.0, 5.0], [0.2837, 0.0]]]  # TF, rounded
    out = f(ef.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-4)


def test_jacobian_in_function():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.reduce_sum(x * x, axis=0)
        return tape.jacobian(y, x)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = [[[0.0, 0.0, 0.0], [6.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 8.0, 0.0]],
                [[0.0, 0.0, 4.0], [0.0, 0.0, 10.0]]]  # TF
    np.testing.assert_allclose(f(ef.constant(x)).numpy(), expected)


def test_jacobian_of_unknown_size_in_function_says_which_dimension():
    @ef.function(input_signature=[ef.TensorSpec([None])])
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x)

    with pytest.raises(ef.errors.InvalidArgumentError, match=r"jacobian: .*\(None,\)"):
        f(ef.constant([1.0]))


# -- Python lists holding traced tensors ---------------------------------------------------------
def test_list_holding_a_traced_tensor_is_packed():
    concat = ef.function(lambda x: ef.concat([ef.constant([0.0]), [x]], 0))
    np.testing.assert_array_equal(concat(ef.constant(1.0)).numpy(), [0.0, 1.0])  # TF
    convert = ef.function(lambda x: ef.convert_to_tensor([x, x]))
    np.testing.assert_array_equal(convert(ef.constant(1.0)).numpy(), [1.0, 1.0])  # TF


def test_nested_list_with_a_variable_reads_it_when_the_graph_runs():
    v = ef.Variable(2.0)
    f = ef.function(lambda x: ef.convert_to_tensor([[x, 1.0], [v, x]]))
    assert f(ef.constant(3.0)).numpy().tolist() == [[3.0, 1.0], [2.0, 3.0]]  # TF
    v.assign(5.0)
    assert f(ef.constant(3.0)).numpy().tolist() == [[3.0, 1.0], [5.0, 3.0]]  # TF


def test_list_of_tensors_of_two_dtypes_raises_type_error():
    f = ef.function(lambda x: ef.convert_to_tensor([x, ef.constant(1)]))
    with pytest.raises(TypeError, match="float32 and int32"):  # TF: TypeError
        f(ef.constant(3.0))


# -- variables created from arguments ---------------------------------------------------------
class _Lazy:
    def __init__(self):
        self.v = None

    @ef.function
    def __call__(self, x):
        if self.v is None:
            self.v = ef.Variable(x * 2.0)
        return self.v + 1


def test_variable_created_on_first_call_from_an_argument():
    m = _Lazy()
    assert float(m(ef.constant(2.0))) == 5.0  # TF: 5.0, 5.0, v = 4.0
    assert float(m(ef.constant(3.0))) == 5.0
    assert float(m.v.numpy()) == 4.0
    assert float(_Lazy()(ef.constant(7.0))) == 15.0  # a second instance: its own variable


def test_variable_from_an_argument_on_every_call_raises_value_error():
    @ef.function
    def f(x):
        v = ef.Variable(x)
        return v + 1

    with pytest.raises(ValueError, match="creates variables on every call"):  # TF: ValueError
        f(ef.constant(1.0))


def test_variable_from_an_argument_in_a_trace_that_does_not_run():
    m = _Lazy()
    with pytest.raises(ValueError, match="in a trace that does not run"):  # TF: UnliftableError
        m.__call__.get_concrete_function(ef.TensorSpec([], ef.float32))


# -- names TensorFlow has ----------------------------------------------------------------------
def test_concrete_function_output_shapes_and_dtypes():
    cf = ef.function(lambda x: (x, [x > 0])).get_concrete_function(ef.constant(1.0))
    assert cf.output_shapes == ((), [()])  # TF: (TensorShape([]), [TensorShape([])])
    assert cf.output_dtypes == (ef.float32, [ef.bool])  # TF: (tf.float32, [tf.bool])


def test_case():
    @ef.function
    def f(x):
        return ef.case([(x < 0, lambda: -x), (x > 2, lambda: x * 10)], default=lambda: x)

    assert [int(f(ef.constant(v))) for v in (-3, 1, 5)] == [3, 1, 50]  # TF


def test_case_without_default_and_no_true_predicate_raises():
    f = ef.function(lambda x: ef.case([(x < 0, lambda: -x), (x > 2, lambda: x * 10)]))
    assert int(f(ef.constant(5))) == 50  # TF
    with pytest.raises(ef.errors.InvalidArgumentError, match="no predicate is true"):
        f(ef.constant(1))  # TF: InvalidArgumentError


def test_case_exclusive():
    f = ef.function(lambda x: ef.case([(x > 0, lambda: 1), (x > 2, lambda: 2)],
                                      default=lambda: 0, exclusive=True))
    assert int(f(ef.constant(1))) == 1  # TF
    with pytest.raises(ef.errors.InvalidArgumentError, match="2 predicates are true"):
        f(ef.constant(5))  # TF: InvalidArgumentError
    with pytest.raises(TypeError, match="pred_fn_pairs"):
        ef.case(ef.constant(True))


def test_numpy_function_gets_arrays_on_every_call_and_has_no_gradient():
    seen = []

    @ef.function
    def f(x):
        return ef.numpy_function(lambda a: seen.append(type(a)) or np.cumsum(a), [x], ef.float32)

    assert f(ef.constant([1.0, 2.0])).numpy().tolist() == [1.0, 3.0]  # TF
    assert f(ef.constant([3.0, 4.0])).numpy().tolist() == [3.0, 7.0]  # TF
    assert seen == [np.ndarray, np.ndarray]
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.numpy_function(lambda a: a * 2, [x], ef.float32)
    assert tape.gradient(y, x) is None  # TF: None


def test_get_static_value():
    assert ef.get_static_value(ef.constant([1, 2])).tolist() == [1, 2]  # TF
    assert ef.get_static_value(3) == 3  # TF

    @ef.function
    def f(x):
        return ef.get_static_value(x), ef.get_static_value(ef.shape(x))

    static, shape = f.python_function(ef.constant([1, 2]))
    assert static.tolist() == [1, 2]  # eager call: known
    found = []
    ef.function(lambda x: found.extend([ef.get_static_value(x), ef.get_static_value(
        ef.shape(x))]) or x)(ef.constant([1, 2]))
    assert found[0] is None and found[1].tolist() == [2]  # TF: None, [2]


def test_name_scope():
    with ef.name_scope("a") as scope:
        v = ef.Variable(1.0, name="v")
        with ef.name_scope("b") as inner:
            pass
    assert (scope, inner, ef.name_scope("a").name) == ("a/", "a/b/", "a")  # TF
    assert v.name.startswith("a/v")  # TF: a/v:0
    with pytest.raises(ValueError, match="must be a string"):  # TF: ValueError
        ef.name_scope(None)


def test_variable_creator_scope_innermost_first():
    log = []

    def freeze(next_creator, **kwargs):
        log.append(("freeze", kwargs["name"]))
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    def record(next_creator, **kwargs):
        log.append(("record", kwargs["name"]))
        return next_creator(**kwargs)

    with ef.variable_creator_scope(freeze), ef.variable_creator_scope(record):
        v = ef.Variable(1.0, name="w")
    assert log == [("record", "w"), ("freeze", "w")]  # TF
    assert (v.trainable, float(v.numpy()), ef.Variable(1.0).trainable) == (False, 1.0, True)
    with pytest.raises(TypeError, match="callable"):
        with ef.variable_creator_scope(1):
            pass


def test_set_loop_options_is_accepted_as_a_hint():
    @ef.function
    def total(n):
        s = ef.constant(0)
        for i in ef.range(n):
            ef.autograph.experimental.set_loop_options(parallel_iterations=1, swap_memory=True)
            s += i
        return s

    assert int(total(ef.constant(4))) == 6  # TF
    with pytest.raises(ef.errors.UnimplementedError, match="maximum_iterations"):
        ef.autograph.experimental.set_loop_options(maximum_iterations=3)
    with pytest.raises(AttributeError, match="to_code"):
        ef.autograph.to_code  # noqa: B018


def test_break_on_a_tensor_in_a_loop_over_a_python_list_says_what_to_do():
    @ef.function
    def f(x):
        for item in [1.0, 2.0]:
            x = x + item
            if x > 2.0:
                break
        return x

    with pytest.raises(ef.errors.UnimplementedError,
                       match="`break` depends on a tensor inside a loop over a Python"):
        f(ef.constant(1.0))

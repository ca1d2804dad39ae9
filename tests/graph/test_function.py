"""ef.function: signatures and retracing, what runs when, variables, errors, introspection."""

import functools
import sys

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning
from eagerflow.graph import graph


def counting(fn):
    """`fn` wrapped so that `wrapper.traces` counts how often its Python body runs."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        wrapper.traces += 1
        return fn(*args, **kwargs)

    wrapper.traces = 0
    return wrapper


# -- retracing rules ----------------------------------------------------------------------
def test_same_signature_runs_the_graph_without_python():
    body = counting(lambda x: x * 2.0)
    f = ef.function(body)
    for value in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        np.testing.assert_array_equal(f(ef.constant(value)).numpy(), np.array(value) * 2)
    assert body.traces == 1
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("first, second", [
    (ef.zeros([2]), ef.zeros([3])),                                 # shape
    (ef.zeros([2]), ef.zeros([2], ef.float64)),                     # dtype
    (ef.zeros([2]), ef.zeros([1, 2])),                              # rank
])
def test_new_tensor_shape_or_dtype_retraces(first, second):
    f = ef.function(lambda x: x + 1)
    f(first)
    f(first)
    f(second)
    assert f.experimental_get_tracing_count() == 2


def test_python_arguments_retrace_by_value():
    body = counting(lambda x, n: x * n)
    f = ef.function(body)
    x = ef.constant([1.0])
    assert float(f(x, 2)[0]) == 2.0
    assert float(f(x, 2)[0]) == 2.0
    assert float(f(x, 3)[0]) == 3.0
    assert float(f(x, n=3)[0]) == 3.0  # keyword and positional bind the same way
    assert body.traces == 2


def test_none_arguments_keep_their_place_in_the_signature():
    body = counting(lambda x, w: x * 2.0 if w is None else x * w)
    f = ef.function(body)
    x, w = ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])
    for _ in range(2):  # the second round runs the cached graphs
        np.testing.assert_array_equal(f(x, None).numpy(), [2.0, 4.0])
        np.testing.assert_array_equal(f(x, w).numpy(), [3.0, 8.0])
        np.testing.assert_array_equal(f(w, None).numpy(), [6.0, 8.0])
    assert body.traces == 2


def test_outputs_with_namedtuples_lists_and_repeated_tensors_keep_their_types():
    import collections

    Pair = collections.namedtuple("Pair", "first second")

    @ef.function
    def f(x):
        y = x + 1.0
        return Pair([y, y], {"b": x, "a": (y, "tag")})

    for value in (1.0, 2.0):  # traced run, then the graph
        out = f(ef.constant(value))
        assert type(out) is Pair and isinstance(out.first, list)
        assert float(out.first[0]) == float(out.first[1]) == value + 1.0
        assert list(out.second) == ["b", "a"] and out.second["a"][1] == "tag"
        assert float(out.second["b"]) == value


def test_nested_structures_are_part_of_the_signature():
    f = ef.function(lambda d: d["a"] + d["b"][0])
    a, b = ef.constant(1.0), ef.constant(2.0)
    assert float(f({"a": a, "b": [b]})) == 3.0
    assert float(f({"b": [b], "a": b})) == 4.0  # same structure, other values
    assert f.experimental_get_tracing_count() == 1
    f({"a": a, "b": (b,)})  # a tuple instead of a list is another structure
    assert f.experimental_get_tracing_count() == 2


def test_numpy_arrays_are_tensors_and_defaults_apply():
    f = ef.function(lambda x, scale=10.0: x * scale)
    np.testing.assert_array_equal(f(np.array([1.0, 2.0], np.float32)).numpy(), [10.0, 20.0])
    np.testing.assert_array_equal(f(np.array([3.0, 4.0], np.float32)).numpy(), [30.0, 40.0])
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_with_none_serves_every_batch_size():
    body = counting(lambda x: ef.reduce_sum(x * x, axis=1))
    f = ef.function(body, input_signature=[ef.TensorSpec([None, 3], ef.float32)])
    for batch in (1, 4, 7):
        x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        np.testing.assert_allclose(f(ef.constant(x)).numpy(), (x * x).sum(1))
    assert body.traces == 1
    assert f.get_concrete_function().graph.inputs[0].shape == (None, 3)


def test_input_signature_rejects_other_shapes_dtypes_and_extra_arguments():
    f = ef.function(lambda x: x, input_signature=[ef.TensorSpec([None, 3], ef.float32)])
    with pytest.raises(TypeError, match=r"argument 'x' does not match"):  # as TF
        f(ef.zeros([2, 4]))
    with pytest.raises(TypeError,
                       match=r"expected float32\[None, 3\], got float64\[2, 3\]"):
        f(ef.zeros([2, 3], ef.float64))
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(ef.zeros([2, 3]), ef.zeros([2, 3]))
    g = ef.function(lambda x, y=None: x, input_signature=[ef.TensorSpec([None, 3])])
    with pytest.raises(TypeError, match="input_signature has 1 entries"):
        g(ef.zeros([2, 3]), ef.zeros([2, 3]))


def test_input_signature_must_hold_tensor_specs():
    with pytest.raises(TypeError, match="must be a list or tuple of ef.TensorSpec"):
        ef.function(lambda x: x, input_signature=ef.TensorSpec([3]))
    with pytest.raises(TypeError, match="entries must be ef.TensorSpec"):
        ef.function(lambda x: x, input_signature=[[3]])
    with pytest.raises(ef.errors.InvalidArgumentError, match="unknown rank"):
        ef.function(lambda x: x, input_signature=[ef.TensorSpec(None)])


def test_input_signature_converts_python_values():
    f = ef.function(lambda x: x * 2.0, input_signature=[ef.TensorSpec([], ef.float32)])
    assert float(f(3.0)) == 6.0
    assert f(3.0).dtype == np.float32


def test_reduce_retracing_generalizes_the_changing_dimension():
    body = counting(lambda x: ef.reduce_mean(x, axis=0))
    f = ef.function(body, reduce_retracing=True)
    for batch in (2, 3, 4, 5):
        x = np.ones((batch, 3), np.float32) * batch
        np.testing.assert_allclose(f(ef.constant(x)).numpy(), [batch] * 3)
    assert body.traces == 2  # the exact shape, then one trace with an unknown batch
    assert f.get_concrete_function(ef.zeros([9, 3])).graph.inputs[0].shape == (None, 3)


def test_warning_names_the_argument_that_keeps_changing():
    f = ef.function(lambda x, n: x * n)
    x = ef.constant(1.0)
    for n in range(5):
        f(x, n)
    with pytest.warns(EagerflowWarning, match=r"traced 6 times.*keeps changing is 'n'.*int 5"):
        f(x, 5)
    f(x, 6)  # warned once


def test_the_warning_shows_tensors_in_structures_as_specs_not_values():
    f = ef.function(lambda pair: pair[0] + pair[1])
    for n in range(1, 6):
        f((ef.ones([n]), ef.ones([n])))
    with pytest.warns(EagerflowWarning, match=r"keeps changing is 'pair': .*tuple "
                                              r"\[float32\[6\], float32\[6\]\]") as record:
        f((ef.ones([6]), ef.ones([6])))
    assert "1. 1." not in str(record[0].message)


def test_tracing_count_and_get_concrete_function_share_the_cache():
    f = ef.function(lambda x: x + 1.0)
    cf = f.get_concrete_function(ef.TensorSpec([2], ef.float32))
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(ef.zeros([2])) is cf
    f(ef.zeros([2]))
    assert f.experimental_get_tracing_count() == 1


# -- what runs when -----------------------------------------------------------------------
def test_python_side_effects_happen_only_while_tracing(capsys):
    log = []

    @ef.function
    def f(x):
        log.append("traced")
        print("python print")
        ef.print("ef.print", x, output_stream=sys.stdout)
        return x

    for value in (1.0, 2.0, 3.0):
        f(ef.constant(value))
    assert log == ["traced"]
    out = capsys.readouterr().out
    assert out.count("python print") == 1
    assert out.count("ef.print") == 3
    assert "ef.print 3" in out


def test_executing_eagerly_is_false_only_while_tracing():
    seen = []

    @ef.function
    def f(x):
        seen.append(ef.executing_eagerly())
        return x

    f(ef.constant(1.0))
    assert seen == [False]
    assert ef.executing_eagerly()


def test_variables_are_captured_by_reference_and_assigned_in_order():
    v = ef.Variable(1.0)

    @ef.function
    def f(x):
        before = v.read_value()
        v.assign_add(x)
        after = v.read_value()
        v.assign(v * 2.0)
        return before, after

    before, after = f(ef.constant(3.0))
    assert (float(before), float(after), float(v)) == (1.0, 4.0, 8.0)
    before, after = f(ef.constant(1.0))  # the graph, reading the current value
    assert (float(before), float(after), float(v)) == (8.0, 9.0, 18.0)
    v.assign(0.0)
    assert float(f(ef.constant(1.0))[1]) == 1.0


def test_variable_arguments_are_captured_by_identity():
    f = ef.function(lambda v: v.assign_sub(1.0).read_value())
    a, b = ef.Variable(10.0), ef.Variable(20.0)
    assert float(f(a)) == 9.0 and float(f(b)) == 19.0 and float(f(a)) == 8.0
    assert f.experimental_get_tracing_count() == 2


def test_writable_buffer_is_refused_while_tracing():
    v = ef.Variable([1.0, 2.0], name="kernel")

    @ef.function
    def update(g):
        buffer = v._writable_buffer()  # what NumPy optimizers do outside ops
        buffer -= 0.1
        return g

    with pytest.raises(graph.OperatorNotAllowedInGraphError,
                       match=r"'kernel'.*_writable_buffer.*assign_sub"):
        update(ef.constant(1.0))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_optimizer_style_update_with_assign_sub_works():
    w = ef.Variable([1.0, 2.0])

    @ef.function
    def step(x):
        with ef.GradientTape() as tape:
            loss = ef.reduce_sum(w * w * x)
        w.assign_sub(0.5 * tape.gradient(loss, w))
        return loss

    step(ef.constant(1.0))
    step(ef.constant(1.0))
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])


def test_variables_created_inside_init_scope_on_the_first_call():
    holder = {}

    @ef.function
    def f(x):
        if "v" not in holder:
            with ef.init_scope():
                holder["v"] = ef.Variable(ef.random.normal([2], seed=1))
        return x * holder["v"]

    first = f(ef.ones([2]))
    np.testing.assert_allclose(f(ef.ones([2])).numpy(), first.numpy())


def test_variable_from_a_traced_value_on_every_call_explains_what_to_do():
    @ef.function
    def f(x):
        return ef.Variable(x * 2.0)

    # as TensorFlow: a variable may start from an argument, but only on the first call
    with pytest.raises(ValueError, match="creates variables on every call"):
        f(ef.constant(1.0))


def test_nested_functions_are_inlined():
    inner_body = counting(lambda x: x * 3.0)
    inner = ef.function(inner_body)
    outer = ef.function(lambda x: inner(x) + 1.0)
    assert float(outer(ef.constant(1.0))) == 4.0
    assert float(outer(ef.constant(2.0))) == 7.0
    assert inner_body.traces == 1 and inner.experimental_get_tracing_count() == 0


def test_concrete_function_called_inside_another_function():
    inner = ef.function(lambda x: x * 3.0).get_concrete_function(ef.TensorSpec([]))
    outer = ef.function(lambda x: inner(x) + 1.0)
    assert float(outer(ef.constant(2.0))) == 7.0
    assert float(outer(ef.constant(3.0))) == 10.0


def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, factor):
            self.factor = ef.Variable(factor)

        @ef.function
        def __call__(self, x):
            return x * self.factor

    a, b = Scaler(2.0), Scaler(3.0)
    assert float(a(ef.constant(1.0))) == 2.0
    assert float(b(ef.constant(1.0))) == 3.0
    assert a.__call__ is a.__call__
    assert a.__call__.experimental_get_tracing_count() == 1


def test_outputs_keep_their_structure_and_python_values():
    @ef.function
    def f(x):
        return {"double": x * 2.0, "pair": (x, 3), "none": None, "const": ef.constant(7)}

    out = f(ef.constant(1.0))
    out = f(ef.constant(2.0))
    assert float(out["double"]) == 4.0 and float(out["pair"][0]) == 2.0
    assert out["pair"][1] == 3 and out["none"] is None and int(out["const"]) == 7


def test_first_call_is_the_traced_run_and_later_calls_run_the_graph():
    draws = ef.function(lambda: ef.random.uniform([3], seed=5))
    ef.random.set_seed(0)
    eager = [ef.random.uniform([3], seed=5).numpy() for _ in range(3)]
    ef.random.set_seed(0)
    traced = [draws().numpy() for _ in range(3)]
    np.testing.assert_array_equal(np.stack(traced), np.stack(eager))


# -- errors -------------------------------------------------------------------------------
def test_trace_time_errors_are_the_eager_errors():
    f = ef.function(lambda a, b: ef.matmul(a, b))
    with pytest.raises(ef.errors.InvalidArgumentError) as traced:
        f(ef.ones([2, 3]), ef.ones([4, 5]))
    with pytest.raises(ef.errors.InvalidArgumentError) as eager:
        ef.matmul(ef.ones([2, 3]), ef.ones([4, 5]))
    assert str(traced.value) == str(eager.value)


def test_trace_time_errors_with_unknown_dimensions():
    f = ef.function(lambda x: x + ef.ones([4]), input_signature=[ef.TensorSpec([None, 3])])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Incompatible shapes.*\[Op:AddV2\]"):
        f.get_concrete_function()


def test_run_time_errors_name_the_op():
    f = ef.function(lambda x, i: ef.gather(x, i))
    x = ef.constant([1.0, 2.0])
    f(x, ef.constant([0]))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"indices\[0\] = 5 is not in \[0, 2\) \[Op:Gather\]"):
        f(x, ef.constant([5]))


def test_python_if_on_a_tensor_names_the_line():
    @ef.function(autograph=False)
    def f(x):
        if x > 0:  # the line the error names
            return x
        return -x

    with pytest.raises(graph.OperatorNotAllowedInGraphError,
                       match=r"test_function.py:\d+: `if x > 0:.*ef.cond"):
        f(ef.constant(1.0))


def test_python_while_and_range_on_tensors_say_to_use_while_loop():
    @ef.function(autograph=False)
    def f(n):
        total = ef.constant(0)
        for i in range(n):
            total += i
        return total

    with pytest.raises(graph.OperatorNotAllowedInGraphError, match="ef.while_loop"):
        f(ef.constant(3))


@pytest.mark.parametrize("read, match", [
    (lambda t: t.numpy(), r"\.numpy\(\)"),
    (lambda t: np.asarray(t), "NumPy array"),
    (lambda t: float(t), r"float\(\)"),
    (lambda t: f"{t:.2f}", "format"),
])
def test_reading_a_traced_value_raises_a_clear_error(read, match):
    f = ef.function(lambda x: read(x))
    with pytest.raises(graph.OperatorNotAllowedInGraphError, match=match):
        f(ef.constant(1.0))


def test_symbolic_tensor_leaked_out_of_a_trace_is_refused():
    leaked = []
    f = ef.function(lambda x: leaked.append(x * 2.0) or x)
    f(ef.constant(1.0))
    g = ef.function(lambda x: x + leaked[0])
    with pytest.raises(TypeError, match="belongs to another traced"):  # as TF's "out of scope"
        g(ef.constant(1.0))
    with pytest.raises(ValueError, match=r"symbolic tensor Mul:0.*no value outside it"):
        ef.add(leaked[0], 1.0)
    with pytest.raises(graph.OperatorNotAllowedInGraphError, match="no value outside it"):
        leaked[0].numpy()
    with pytest.raises(AttributeError, match="no value outside it"):  # as TF's SymbolicTensor
        leaked[0].numpy()


def test_function_needs_a_callable():
    with pytest.raises(TypeError, match="needs a callable"):
        ef.function(3)


def test_unknown_dimension_in_a_shape_attribute_is_explained():
    f = ef.function(lambda x: ef.zeros(x.shape), input_signature=[ef.TensorSpec([None, 2])])
    with pytest.raises(ef.errors.InvalidArgumentError, match="unknown dimension"):
        f.get_concrete_function()


# -- introspection ------------------------------------------------------------------------
def test_concrete_function_exposes_and_prints_the_graph():
    @ef.function
    def f(x, y):
        return ef.tanh(x * y + 0.5)

    cf = f.get_concrete_function(ef.TensorSpec([None], ef.float32), ef.TensorSpec([], ef.float32))
    assert [op.type for op in cf.graph.operations] == [
        "Placeholder", "Placeholder", "Mul", "AddV2", "Tanh"]
    mul = cf.graph.operations[2]
    assert mul.inputs == list(cf.inputs) and mul.outputs[0].shape == (None,)
    text = str(cf)
    assert "f(x: float32[None], y: float32[])" in text
    assert "Mul = Mul(x, y)" in text and "AddV2 = AddV2(Mul, 0.5)" in text
    assert "return Tanh" in text
    assert cf.structured_outputs is cf.outputs[0]
    np.testing.assert_allclose(cf(ef.constant([1.0, 2.0]), ef.constant(0.5)).numpy(),
                               np.tanh(np.array([1.0, 2.0]) * 0.5 + 0.5), rtol=1e-6)


def test_concrete_function_checks_its_inputs():
    cf = ef.function(lambda x: x).get_concrete_function(ef.TensorSpec([2], ef.float32))
    with pytest.raises(TypeError, match="takes 1 tensor inputs"):
        cf()
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"input 0 must be float32\[2\]"):
        cf(ef.zeros([3]))


def test_concrete_function_lists_its_variables():
    v = ef.Variable(1.0)
    frozen = ef.Variable(2.0, trainable=False)
    cf = ef.function(lambda x: x * v + frozen).get_concrete_function(ef.TensorSpec([]))
    assert cf.variables == [v, frozen] and cf.trainable_variables == [v]


def test_set_seed_restarts_traced_random_ops_like_eager():
    draws = ef.function(lambda: (ef.random.normal([2]), ef.random.uniform([2], seed=3)))
    ef.random.set_seed(5)
    first = [np.concatenate([t.numpy() for t in draws()]) for _ in range(2)]
    ef.random.set_seed(5)
    again = [np.concatenate([t.numpy() for t in draws()]) for _ in range(2)]
    ef.random.set_seed(5)
    eager = [np.concatenate([ef.random.normal([2]).numpy(),
                             ef.random.uniform([2], seed=3).numpy()]) for _ in range(2)]
    np.testing.assert_array_equal(np.stack(first), np.stack(again))
    np.testing.assert_array_equal(np.stack(first), np.stack(eager))
    assert draws.experimental_get_tracing_count() == 1


def test_methods_of_unhashable_instances_trace_once():
    class Unhashable:
        __hash__ = None

        def __eq__(self, other):
            return self is other

        @ef.function
        def double(self, x):
            return x * 2.0

    obj = Unhashable()
    assert float(obj.double(ef.constant(1.0))) == 2.0
    assert float(obj.double(ef.constant(2.0))) == 4.0
    assert obj.double.experimental_get_tracing_count() == 1


def test_a_graph_for_any_batch_size_runs_conv_gradients_and_metric_counts():
    """Inside a graph traced with an unknown batch size, the conv input gradient and a Mean
    metric's sample count take the batch size at run time."""
    kernel = ef.Variable(np.random.default_rng(0).standard_normal((3, 3, 2, 4)))
    mean = ef.metrics.Mean()

    @ef.function(input_signature=[ef.TensorSpec([None, 5, 5, 2], ef.float64)])
    def step(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.nn.conv2d(x, kernel, strides=1, padding="SAME")
            total = ef.reduce_sum(y)
        mean.update_state(ef.reduce_sum(y, axis=[1, 2, 3]))
        return tape.gradient(total, x)

    for batch in (3, 7):
        x = np.random.default_rng(batch).standard_normal((batch, 5, 5, 2))
        xt = ef.constant(x)
        with ef.GradientTape() as tape:
            tape.watch(xt)
            total = ef.reduce_sum(ef.nn.conv2d(xt, kernel, strides=1, padding="SAME"))
        expected = tape.gradient(total, xt)
        np.testing.assert_allclose(step(x).numpy(), expected.numpy(), rtol=1e-10)
    assert float(mean.count) == 10.0
    assert step.experimental_get_tracing_count() == 1


def test_pretty_printed_concrete_signatures():
    weight = ef.Variable(2.0, name="weight")

    @ef.function
    def f(x, n=2, *, options=None):
        return {"y": x * weight * n, "n": n}

    assert f.pretty_printed_concrete_signatures() == ""
    f(ef.constant([1.0, 2.0]), 3)
    f(ef.constant([1.0, 2.0]), 3)  # the same graph
    f(ef.constant(1), [1, -1], options=ef.constant(0.5))
    text = f.pretty_printed_concrete_signatures()
    first, second = text.split("\n\n")
    assert first == (
        "Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=float32, name=None)\n"
        "  n (POSITIONAL_OR_KEYWORD): Literal[3]\n"
        "  options (KEYWORD_ONLY): Literal[None]\n"
        "Output Type:\n"
        "  Dict['y': TensorSpec(shape=(2,), dtype=float32, name=None), "
        "'n': TensorSpec(shape=(), dtype=int32, name=None)]\n"  # a tensor, as TF
        "Captures:\n"
        "  weight"
    )
    assert "  n (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[-1]]" in second
    assert "  options (KEYWORD_ONLY): TensorSpec(shape=(), dtype=float32" in second

    g = ef.function(lambda *xs: xs[0], input_signature=[ef.TensorSpec([None, 2])])
    g.get_concrete_function()
    assert ("  xs_0 (VAR_POSITIONAL): TensorSpec(shape=(None, 2), dtype=float32, name=None)"
            in g.pretty_printed_concrete_signatures())


def test_tensorflow_only_names_say_why_they_are_absent():
    with pytest.raises(AttributeError, match="'to_code': ef.function converts Python control"):
        ef.autograph.to_code(lambda x: x)
    graph = ef.function(lambda x: x + 1).get_concrete_function(ef.constant(1.0)).graph
    with pytest.raises(AttributeError, match="'as_graph_def': eagerflow graphs are not GraphDef"):
        graph.as_graph_def()
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'$"):
        graph.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'$"):
        ef.no_such_thing  # noqa: B018


def test_python_numbers_returned_are_tensors_as_in_tensorflow():
    foo = 1

    @ef.function
    def buggy_add():
        return 1 + foo, None, "label"

    total, nothing, label = buggy_add()
    assert isinstance(total, ef.Tensor) and total.dtype == ef.int32 and int(total) == 2
    assert nothing is None and label == "label"
    assert ef.function(lambda: [2.5, True])()[1].dtype == ef.bool


def test_a_concrete_function_refuses_other_python_values_than_traced():
    @ef.function
    def power(a, b):
        return a ** b

    square = power.get_concrete_function(a=ef.TensorSpec([], ef.float32), b=2)
    assert square.literals == [2]
    assert square(ef.constant(10.0)) == 100 and square(ef.constant(3.0), b=2) == 9
    # it returned 100 (b=2 is fixed in the graph) instead of refusing, as TF does
    with pytest.raises(TypeError, match=r"traced with the Python values \[2\].*got 3"):
        square(ef.constant(10.0), b=3)
    with pytest.raises(TypeError, match="got 3"):
        square(ef.constant(10.0), 3)


def test_a_symbolic_string_tensor_prints_dtype_string_as_an_eager_one(capsys):
    @ef.function
    def double(a):
        print("Tracing with", a)
        return a + a

    assert double(ef.constant("a")).numpy() == b"aa"
    assert capsys.readouterr().out == 'Tracing with ef.Tensor("a:0", shape=(), dtype=string)\n'

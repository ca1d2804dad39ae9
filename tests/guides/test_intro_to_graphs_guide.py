"""TensorFlow guide "Introduction to graphs and tf.function", ported step by step with
`tf.` turned into `ef.` (the step names follow the guide's sections; the timing cells
are run once, not timed)."""

import numpy as np
import pytest

import eagerflow as ef


def test_taking_advantage_of_graphs():
    # Define a Python function.
    def a_regular_function(x, y, b):
        x = ef.matmul(x, y)
        x = x + b
        return x

    a_function_that_uses_a_graph = ef.function(a_regular_function)

    # Make some tensors.
    x1 = ef.constant([[1.0, 2.0]])
    y1 = ef.constant([[2.0], [3.0]])
    b1 = ef.constant(4.0)

    orig_value = a_regular_function(x1, y1, b1).numpy()
    # Call a `ef.function` like a Python function.
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    assert orig_value == tf_function_value
    assert orig_value.tolist() == [[12.0]]

    def inner_function(x, y, b):
        x = ef.matmul(x, y)
        x = x + b
        return x

    @ef.function
    def outer_function(x):
        y = ef.constant([[2.0], [3.0]])
        b = ef.constant(4.0)

        return inner_function(x, y, b)

    # The graph includes `inner_function` as well as `outer_function`.
    assert outer_function(ef.constant([[1.0, 2.0]])).numpy().tolist() == [[12.0]]
    graph = outer_function.get_concrete_function(ef.constant([[1.0, 2.0]])).graph
    assert [op.type for op in graph.operations].count("AddV2") == 1


def simple_relu(x):
    if ef.greater(x, 0):
        return x
    else:
        return 0


def test_converting_python_functions_to_graphs():
    # Using `ef.function` makes `tf_simple_relu` a function that wraps `simple_relu`.
    tf_simple_relu = ef.function(simple_relu)

    assert tf_simple_relu(ef.constant(1)).numpy() == 1   # First branch, with graph
    assert tf_simple_relu(ef.constant(-1)).numpy() == 0  # Second branch, with graph
    assert tf_simple_relu.experimental_get_tracing_count() == 1  # one graph, both branches

    # A difference on purpose: AutoGraph converts the function but does not print the
    # generated source.
    with pytest.raises(AttributeError, match=r"'to_code': .* does not generate Python source"):
        print(ef.autograph.to_code(simple_relu))

    # The graph itself: ops of eagerflow's own graph, not a GraphDef protocol buffer.
    graph = tf_simple_relu.get_concrete_function(ef.constant(1)).graph
    assert "Greater" in [op.type for op in graph.operations]
    with pytest.raises(AttributeError, match="'as_graph_def': eagerflow graphs are not GraphDef"):
        print(graph.as_graph_def())


def test_polymorphism_one_function_many_graphs():
    @ef.function
    def my_relu(x):
        return ef.maximum(0., x)

    # `my_relu` creates new graphs as it observes different input types.
    assert float(my_relu(ef.constant(5.5))) == 5.5
    assert my_relu([1, -1]).numpy().tolist() == [1.0, 0.0]
    assert my_relu(ef.constant([3., -3.])).numpy().tolist() == [3.0, 0.0]
    assert my_relu.experimental_get_tracing_count() == 3

    # These two calls do *not* create new graphs.
    assert float(my_relu(ef.constant(-2.5))) == 0.0  # matches `ef.constant(5.5)`
    assert my_relu(ef.constant([-1., 1.])).numpy().tolist() == [0.0, 1.0]
    assert my_relu.experimental_get_tracing_count() == 3

    # There are three concrete functions (one for each graph) in `my_relu`.
    signatures = my_relu.pretty_printed_concrete_signatures()
    assert signatures.count("Input Parameters:") == 3
    assert "TensorSpec(shape=(2,), dtype=float32" in signatures


def test_graph_execution_vs_eager_execution(capsys):
    @ef.function
    def get_MSE(y_true, y_pred):
        sq_diff = ef.pow(y_true - y_pred, 2)
        return ef.reduce_mean(sq_diff)

    y_true = ef.random.uniform([5], maxval=10, dtype=ef.int32)
    y_pred = ef.random.uniform([5], maxval=10, dtype=ef.int32)
    expected = int(np.mean((y_true.numpy() - y_pred.numpy()) ** 2))

    assert int(get_MSE(y_true, y_pred)) == expected
    ef.config.run_functions_eagerly(True)
    try:
        assert int(get_MSE(y_true, y_pred)) == expected
    finally:
        # Don't forget to set it back when you are done.
        ef.config.run_functions_eagerly(False)

    @ef.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = ef.pow(y_true - y_pred, 2)
        return ef.reduce_mean(sq_diff)

    error = get_MSE(y_true, y_pred)
    error = get_MSE(y_true, y_pred)
    error = get_MSE(y_true, y_pred)
    assert capsys.readouterr().out.count("Calculating MSE!") == 1  # traced once

    # Now, globally set everything to run eagerly to force eager execution.
    ef.config.run_functions_eagerly(True)
    try:
        assert ef.config.functions_run_eagerly()
        error = get_MSE(y_true, y_pred)
        error = get_MSE(y_true, y_pred)
        error = get_MSE(y_true, y_pred)
    finally:
        ef.config.run_functions_eagerly(False)
    assert capsys.readouterr().out.count("Calculating MSE!") == 3  # Python ran each time
    assert int(error) == expected
    assert not ef.config.functions_run_eagerly()
    assert get_MSE.experimental_get_tracing_count() == 1


def test_non_strict_execution(capsys):
    def unused_return_eager(x):
        # Get index 1 will fail when `len(x) == 1`
        ef.gather(x, [1])  # unused
        return x

    # All operations are run during eager execution so an error is raised.
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"indices\[0\] = 1"):
        print(unused_return_eager(ef.constant([0.0])))

    @ef.function
    def unused_return_graph(x):
        ef.gather(x, [1])  # unused
        return x

    # Only needed operations are run during graph execution. The error is not raised.
    assert unused_return_graph(ef.constant([0.0])).numpy().tolist() == [0.0]


def test_seeing_the_speed_up():
    x = ef.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=ef.dtypes.int32)

    def power(x, y):
        result = ef.eye(10, dtype=ef.dtypes.int32)
        for _ in range(y):
            result = ef.matmul(x, result)
        return result

    power_as_graph = ef.function(power)
    expected = np.linalg.matrix_power(x.numpy(), 5)
    np.testing.assert_array_equal(power(x, 5), expected)
    np.testing.assert_array_equal(power_as_graph(x, 5), expected)
    assert power_as_graph(x, 5).dtype == ef.int32


def test_when_is_a_function_tracing(capsys):
    @ef.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")  # An eager-only side effect.
        return x * x + ef.constant(2)

    # This is traced the first time.
    assert int(a_function_with_python_side_effect(ef.constant(2))) == 6
    # The second time through, you won't see the side effect.
    assert int(a_function_with_python_side_effect(ef.constant(3))) == 11
    assert capsys.readouterr().out.count("Tracing!") == 1

    # This retraces each time the Python argument changes.
    assert int(a_function_with_python_side_effect(2)) == 6
    assert int(a_function_with_python_side_effect(3)) == 11
    assert capsys.readouterr().out.count("Tracing!") == 2
    assert a_function_with_python_side_effect.experimental_get_tracing_count() == 3

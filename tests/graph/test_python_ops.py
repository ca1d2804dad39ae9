"""ef.print and ef.py_function: Python that runs on every call of a graph."""

import io
import sys

import numpy as np
import pytest

import eagerflow as ef


def test_print_formats_like_tf_print(capsys):
    ef.print("x:", ef.constant([1.0, 2.5]), 3, ef.range(10), output_stream=sys.stdout)
    ef.print(ef.constant(7), [ef.constant(1), "a"], {"k": ef.constant([True])}, sep="|",
             end="!\n", output_stream=sys.stdout)
    ef.print(ef.range(10), summarize=-1, output_stream=sys.stdout)
    assert capsys.readouterr().out.splitlines() == [
        "x: [1 2.5] 3 [0 1 2 ... 7 8 9]",
        "7|[1, a]|{'k': [ True]}!",
        "[0 1 2 3 4 5 6 7 8 9]",
    ]


def test_print_defaults_to_stderr_and_accepts_files(capsys):
    ef.print("to stderr")
    buffer = io.StringIO()
    ef.print("to file", ef.constant(2.0), output_stream=buffer)
    assert capsys.readouterr().err == "to stderr\n"
    assert buffer.getvalue() == "to file 2\n"
    with pytest.raises(TypeError, match="output_stream must be"):
        ef.print("x", output_stream=42)


def test_print_runs_on_every_call_of_a_graph_with_current_values(capsys):
    v = ef.Variable(0)

    @ef.function
    def step(x):
        v.assign_add(1)
        ef.print("step", v, "x", x, output_stream=sys.stdout)
        return x * 2

    for value in (1, 2, 3):
        step(ef.constant(value))
    assert capsys.readouterr().out.splitlines() == ["step 1 x 1", "step 2 x 2", "step 3 x 3"]


def test_py_function_eagerly():
    out = ef.py_function(lambda x, y: (x.numpy() + y.numpy(), "ignored")[0],
                         [ef.constant([1.0]), ef.constant([2.0])], ef.float32)
    np.testing.assert_array_equal(out.numpy(), [3.0])
    a, b = ef.py_function(lambda x: [x * 2, ef.cast(x, ef.int32)], [ef.constant([1.5])],
                          [ef.float32, ef.int32])
    assert float(a[0]) == 3.0 and int(b[0]) == 1
    assert ef.py_function(lambda: None, [], None) is None


def test_py_function_runs_eagerly_on_every_call_in_a_graph():
    calls = []

    def numpy_code(x):
        calls.append(ef.executing_eagerly())
        return np.sort(x.numpy())[::-1].copy()

    traced = ef.function(lambda x: ef.py_function(numpy_code, [x], ef.float32) + 1.0)
    for value in ([1.0, 3.0, 2.0], [5.0, 4.0, 6.0], [0.0, 1.0, 2.0]):
        expected = np.sort(value)[::-1] + 1
        np.testing.assert_array_equal(traced(ef.constant(value)).numpy(), expected)
    assert calls == [True, True, True]


def test_py_function_is_differentiable_when_its_function_is():
    def f(x, y):
        return ef.py_function(lambda a, b: ef.sin(a) * b, [x, y], ef.float32)

    traced = ef.function(f)
    x, y = ef.constant([0.5, 1.0]), ef.constant([2.0, 3.0])
    for fn in (f, traced, traced):
        with ef.GradientTape() as tape:
            tape.watch([x, y])
            out = fn(x, y)
        gx, gy = tape.gradient(out, [x, y])
        np.testing.assert_allclose(gx.numpy(), np.cos([0.5, 1.0]) * [2.0, 3.0], rtol=1e-6)
        np.testing.assert_allclose(gy.numpy(), np.sin([0.5, 1.0]), rtol=1e-6)


def test_py_function_gradient_inside_a_graph():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.py_function(lambda a: a * a * a, [x], ef.float32)
        return tape.gradient(y, x)

    assert float(f(ef.constant(2.0))) == 12.0
    assert float(f(ef.constant(3.0))) == 27.0


def test_py_function_output_checks():
    with pytest.raises(TypeError, match="func must be callable"):
        ef.py_function(3, [], ef.float32)
    traced = ef.function(lambda x: ef.py_function(lambda a: a.numpy().astype(np.int64), [x],
                                                  ef.float32))
    with pytest.raises(ef.errors.InvalidArgumentError, match="dtype int64, but Tout says float32"):
        traced(ef.constant([1.0]))
    two = ef.function(lambda x: ef.py_function(lambda a: a, [x], [ef.float32, ef.float32]))
    with pytest.raises(ef.errors.InvalidArgumentError, match="Tout lists 2 outputs"):
        two(ef.constant([1.0]))
    growing = ef.function(lambda x, n: ef.py_function(lambda a, k: np.zeros(int(k), np.float32),
                                                      [x, n], ef.float32))
    growing(ef.constant(1.0), ef.constant(2))
    with pytest.raises(ef.errors.InvalidArgumentError, match="must keep their shape"):
        growing(ef.constant(1.0), ef.constant(3))


def test_py_function_errors_propagate_unchanged():
    def failing(x):
        if float(x) > 1:
            raise KeyError("from python")
        return x

    traced = ef.function(lambda x: ef.py_function(failing, [x], ef.float32))
    traced(ef.constant(0.0))
    with pytest.raises(KeyError, match="from python"):
        traced(ef.constant(5.0))


def test_py_function_as_a_decorator_runs_on_every_call(capsys):
    @ef.py_function(Tout=ef.float32)
    def py_plus(x, y):
        print("eager", ef.executing_eagerly())
        return x + y

    f = ef.function(lambda a, b: py_plus(a, b))
    assert f(ef.constant(1.0), ef.constant(2.0)).numpy() == 3.0
    assert f(ef.constant(2.0), ef.constant(2.0)).numpy() == 4.0
    assert py_plus(1.0, 5.0).numpy() == 6.0  # eagerly too
    assert capsys.readouterr().out.splitlines() == ["eager True"] * 3
    assert py_plus.__name__ == "py_plus"
    assert ef.py_function(lambda: None, []) is None  # Tout defaults to None, as in TF


def test_py_function_without_inp_or_with_a_non_callable_is_an_error():
    with pytest.raises(TypeError, match="py_function <lambda>: inp .* is missing"):
        ef.py_function(lambda x: x, Tout=ef.float32)
    with pytest.raises(TypeError, match="func must be callable, got int"):
        ef.py_function(Tout=ef.float32)(3)

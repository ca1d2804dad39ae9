"""Variables created inside ef.function: once, on the first call (TensorFlow's rule)."""

import pytest

import eagerflow as ef


def test_a_function_that_makes_a_variable_on_every_call_is_refused():
    @ef.function
    def f(x):
        v = ef.Variable(1.0)
        v.assign_add(x)
        return v

    # Without the check each call would reuse the first trace's variable (2, 3, 4, ...).
    with pytest.raises(ValueError, match="'f' creates variables on every call"):
        f(1.0)
    with pytest.raises(ValueError, match="creates variables on every call"):
        f(1.0)  # the refused trace was not kept


def test_variables_made_once_on_the_first_call_are_fine():
    class Count(ef.Module):
        def __init__(self):
            super().__init__()
            self.count = None

        @ef.function
        def __call__(self):
            if self.count is None:
                self.count = ef.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    assert [int(c()), int(c()), int(c())] == [1, 2, 3]


def test_variables_made_on_a_later_trace_are_refused():
    made = {}

    @ef.function
    def g(x):
        key = x.dtype.name
        if key not in made:
            made[key] = ef.Variable(ef.zeros_like(x))
        return made[key].assign_add(x)

    assert g(ef.constant(1.0)).numpy() == 1.0
    assert g(ef.constant(2.0)).numpy() == 3.0
    with pytest.raises(ValueError, match="'g' created variables on a non-first trace"):
        g(ef.constant(1))


def test_a_first_call_that_creates_variables_runs_each_py_function_once():
    # The first trace is repeated to check variable creation; the repeat reuses what the
    # py_functions returned instead of calling Python again.
    calls = []

    def log(x):
        calls.append(float(x))
        return x

    optimizer = ef.optim.Adam(0.1)
    v = ef.Variable(1.0)

    @ef.function
    def step(x):
        ef.py_function(log, [x], ef.float32)
        ef.py_function(lambda a: (calls.append("inline"), a)[1], [x], ef.float32)
        with ef.GradientTape() as tape:
            loss = v * x
        optimizer.apply_gradients([(tape.gradient(loss, v), v)])
        return loss

    step(ef.constant(2.0))
    assert calls == [2.0, "inline"]
    step(ef.constant(3.0))
    assert calls == [2.0, "inline", 3.0, "inline"]

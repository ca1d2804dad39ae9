"""`ef.config.run_functions_eagerly` (the device and optimizer options are tested where
they are implemented)."""

import pytest

import eagerflow as ef


@pytest.fixture
def eager_functions():
    ef.config.run_functions_eagerly(True)
    yield
    ef.config.run_functions_eagerly(False)


def test_functions_run_their_python_while_the_switch_is_on(eager_functions):
    calls = []

    @ef.function
    def f(x, scale=2.0):
        calls.append(ef.executing_eagerly())
        return x * scale

    assert ef.config.functions_run_eagerly()
    assert float(f(ef.constant(3.0))) == 6.0
    assert float(f(ef.constant(3.0), scale=3.0)) == 9.0
    assert calls == [True, True] and f.experimental_get_tracing_count() == 0
    with ef.GradientTape() as tape:  # gradients come from the eager ops
        x = ef.constant(2.0)
        tape.watch(x)
        y = f(x * x)
    assert float(tape.gradient(y, x)) == 8.0
    ef.config.run_functions_eagerly(False)
    assert not ef.config.functions_run_eagerly()
    assert float(f(ef.constant(3.0))) == 6.0 and calls[-1] is False
    assert f.experimental_get_tracing_count() == 1


def test_methods_and_fit_run_eagerly_too(eager_functions):
    class Counter(ef.Module):
        def __init__(self):
            super().__init__()
            self.seen = []

        @ef.function
        def __call__(self, x):
            self.seen.append(ef.executing_eagerly())
            return x + 1

    counter = Counter()
    counter(ef.constant(1.0))
    counter(ef.constant(1.0))
    assert counter.seen == [True, True]

    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(ef.ones([4, 2]), ef.ones([4, 1]), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1

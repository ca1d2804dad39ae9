"""LSTM and GRU layers run a whole sequence as one op (LSTMSequence / GRUSequence): the
results equal the per-step path's (one fused cell op per step), on both kernel sets,
eagerly, under a tape, inside ef.function and through model.fit."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import recurrent

X = np.random.default_rng(0).normal(size=(3, 5, 4)).astype(np.float32)
TOL = {"rtol": 2e-5, "atol": 2e-6}

# Layer arguments covering what the sequence op takes over from the per-step loop.
OPTIONS = [
    {},
    {"return_sequences": True},
    {"return_state": True, "go_backwards": True},
    {"return_sequences": True, "return_state": True, "dropout": 0.3,
     "recurrent_dropout": 0.4, "seed": 3},
    {"use_bias": False, "return_sequences": True},
]


def _per_step(layer):
    """Makes `layer` take the per-step path (its cell offers no sequence op)."""
    layer.cell.sequence = lambda *args, **kwargs: None
    return layer


def _pair(name, dtype="float32", **options):
    layers = []
    for per_step in (False, True):
        ef.random.set_seed(7)
        layer = getattr(ef.layers, name)(6, dtype=dtype, **options)
        layer(X.astype(dtype))
        layers.append(_per_step(layer) if per_step else layer)
    layers[1].set_weights(layers[0].get_weights())
    return layers


def _run(layer, x, training=None, **kwargs):
    ef.random.set_seed(11)  # the same dropout masks on both paths
    with ef.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, training=training, **kwargs)
        flat = out if isinstance(out, list) else [out]
        loss = sum(ef.reduce_sum(ef.square(o)) * (i + 1) for i, o in enumerate(flat))
    grads = tape.gradient(loss, [x, *layer.trainable_variables])
    return [o.numpy() for o in flat] + [g.numpy() for g in grads]


def _assert_same(got, want, tol=TOL):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, **tol)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(o) or "default")
def test_sequence_op_equals_the_per_step_path(name, options, kernel_set):
    fused, per_step = _pair(name, **options)
    x = ef.constant(X)
    training = True if "dropout" in options else None
    _assert_same(_run(fused, x, training), _run(per_step, x, training))


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_initial_state_and_float64(name, kernel_set):
    fused, per_step = _pair(name, dtype="float64", return_state=True)
    x = ef.constant(X.astype(np.float64))
    count = 2 if name == "LSTM" else 1
    states = [ef.constant(np.random.default_rng(i).normal(size=(3, 6))) for i in range(count)]
    _assert_same(_run(fused, x, initial_state=states),
                 _run(per_step, x, initial_state=states), {"rtol": 1e-12, "atol": 1e-12})


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_stateful_layers_carry_the_same_states(name, kernel_set):
    fused, per_step = _pair(name, stateful=True)
    for layer in (fused, per_step):
        layer.reset_states()
    for _ in range(2):
        _assert_same([fused(X).numpy()], [per_step(X).numpy()])
    _assert_same([s.numpy() for s in fused.states], [s.numpy() for s in per_step.states])


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_inside_ef_function(name, kernel_set):
    fused, per_step = _pair(name, return_sequences=True)
    results = []
    for layer in (fused, per_step):
        @ef.function
        def step(x, layer=layer):
            with ef.GradientTape() as tape:
                loss = ef.reduce_sum(ef.square(layer(x)))
            return [loss, *tape.gradient(loss, layer.trainable_variables)]

        results.append([t.numpy() for t in step(ef.constant(X))])
    _assert_same(*results)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_model_fit_trains_alike(name, kernel_set):
    y = np.random.default_rng(1).normal(size=(3, 2)).astype(np.float32)
    weights = []
    for per_step in (False, True):
        ef.random.set_seed(5)
        rnn = getattr(ef.layers, name)(6, recurrent_dropout=0.2, seed=2)
        model = ef.Sequential([ef.Input((5, 4)), rnn, ef.layers.Dense(2)])
        if per_step:
            _per_step(rnn)
        model.compile(optimizer="adam", loss="mse")
        ef.random.set_seed(9)
        model.fit(X, y, epochs=3, batch_size=3, verbose=0)
        weights.append(model.get_weights())
    _assert_same(weights[0], weights[1], {"rtol": 1e-4, "atol": 1e-5})


@pytest.mark.parametrize("name, op", [("LSTM", "lstm_sequence"), ("GRU", "gru_sequence")])
def test_which_path_runs(name, op, monkeypatch):
    """The sequence op runs unless a mask is given (or the cell cannot fuse its step)."""
    calls = []
    original = getattr(recurrent, op)
    monkeypatch.setattr(recurrent, op, lambda *a: calls.append(1) or original(*a))
    layer = getattr(ef.layers, name)(3)
    layer(X)
    assert calls == [1]
    layer(X, mask=ef.constant(np.ones((3, 5), bool)))
    getattr(ef.layers, name)(3, activation="relu")(X)
    if name == "GRU":
        ef.layers.GRU(3, reset_after=False)(X)
    assert calls == [1]


def test_masked_layer_keeps_the_per_step_results():
    """With a mask the per-step path runs; at all-True it equals the sequence op."""
    layer = ef.layers.LSTM(4, return_sequences=True)
    fused = layer(X).numpy()
    masked = layer(X, mask=ef.constant(np.ones((3, 5), bool))).numpy()
    np.testing.assert_allclose(masked, fused, **TOL)

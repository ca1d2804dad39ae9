"""pandas Series and DataFrames as `fit`/`predict`/`evaluate` data, and in `adapt` (Keras 3).

Keras 3 (``keras/src/trainers/data_adapters/array_slicing.py``) slices a DataFrame as its
``(n, columns)`` values and a Series as a ``(n,)`` column, which the model expands to feed
``Input(shape=(1,))`` (``Functional._adjust_input_rank``); ``Normalization.adapt`` raises a
TypeError for both (it iterates them). Expected values recorded by running Keras 3.15.
"""

import numpy as np
import pytest

import eagerflow as ef

pd = pytest.importorskip("pandas")


def frame():
    return pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                         "b": [0.5, -1.0, 2.0, 0.0, 1.0, 3.0],
                         "c": [1, 0, 1, 1, 0, 1]})


def dense(units_in, kernel):
    model = ef.Sequential([ef.layers.Input((units_in,)), ef.layers.Dense(1)])
    model.set_weights([np.array(kernel, "float32"), np.array([0.25], "float32")])
    model.compile(ef.optim.SGD(0.01), "mse")
    return model


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["traced", "eager"])
def test_a_series_feeds_an_input_of_shape_1(run_eagerly):
    df = frame()
    model = dense(1, [[0.5]])
    model.compile(ef.optim.SGD(0.01), "mse", run_eagerly=run_eagerly)
    history = model.fit(df["a"], df["b"], batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [2.0405685901641846, 1.4391231536865234],
                               rtol=1e-5)
    np.testing.assert_allclose(
        model.predict(df["a"], verbose=0),
        [[0.5360724329948425], [0.8728888034820557], [1.2097052335739136],
         [1.5465216636657715], [1.8833380937576294], [2.220154285430908]], rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(df["a"], df["b"], verbose=0), 1.31895911693573,
                               rtol=1e-5)


def test_a_dataframe_is_its_values():
    df = frame()
    model = dense(2, [[0.5], [-1.0]])
    history = model.fit(df[["a", "b"]], df["c"], batch_size=4, epochs=2, shuffle=False,
                        verbose=0)
    np.testing.assert_allclose(history.history["loss"], [2.0232996940612793, 1.828290581703186],
                               rtol=1e-5)
    np.testing.assert_allclose(
        model.predict(df[["a", "b"]], verbose=0),
        [[0.1815110445022583], [1.9831531047821045], [-0.3687734305858612],
         [1.8943761587142944], [1.3884800672531128], [-0.04043123126029968]], rtol=1e-5,
        atol=1e-6)
    np.testing.assert_allclose(model.evaluate(df[["a", "b"]], df[["c"]], verbose=0),
                               1.7144408226013184, rtol=1e-5)


def test_integer_series_and_named_inputs():
    df = frame()
    model = dense(1, [[0.5]])
    np.testing.assert_allclose(model.predict(df["c"], verbose=0),
                               [[0.75], [0.25], [0.75], [0.75], [0.25], [0.75]])
    a, b = ef.layers.Input((1,), name="a"), ef.layers.Input((1,), name="b")
    net = ef.Model({"a": a, "b": b}, ef.layers.Dense(1)(ef.layers.Concatenate()([a, b])))
    net.set_weights([np.array([[0.5], [-1.0]], "float32"), np.array([0.25], "float32")])
    expected = [[0.25], [2.25], [-0.25], [2.25], [1.75], [0.25]]
    np.testing.assert_allclose(net.predict({"a": df["a"], "b": df["b"]}, verbose=0), expected)
    np.testing.assert_allclose(net.predict([df["a"], df["b"]], verbose=0), expected)


@pytest.mark.parametrize("column", [None, "a"], ids=["dataframe", "series"])
def test_normalization_adapt_refuses_pandas_as_keras_does(column):
    data = frame() if column is None else frame()[column]
    with pytest.raises(TypeError, match=f"not a pandas {type(data).__name__}.*to_numpy"):
        ef.layers.Normalization().adapt(data)
    layer = ef.layers.Normalization()
    layer.adapt(frame()[["a", "b"]].to_numpy())
    np.testing.assert_allclose(np.ravel(layer.mean.numpy()), [3.5, 0.9166666865348816],
                               rtol=1e-6)
    np.testing.assert_allclose(np.ravel(layer.variance.numpy()),
                               [2.9166667461395264, 1.7013888359069824], rtol=1e-6)

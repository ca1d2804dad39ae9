"""summary() for subclassed, functional and Sequential models."""

import pytest

import eagerflow as ef


def captured(model, **kwargs) -> str:
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return "\n".join(lines)


class Reuse(ef.Model):
    def __init__(self):
        super().__init__()
        self.dense1 = ef.layers.Dense(10)
        self.dense2 = ef.layers.Dense(10)
        self.norm = ef.layers.BatchNormalization()

    def call(self, x):
        return self.norm(self.dense2(self.dense2(self.dense1(x))))


def test_subclassed_summary_shows_real_shapes_and_counts():
    model = Reuse()
    model(ef.zeros([1, 1, 784]))
    text = captured(model)
    assert 'Model: "reuse"' in text
    assert "dense (Dense)" in text and "(1, 1, 10)" in text and "7850" in text
    assert "(1, 1, 10) x2" in text
    assert "batch_normalization (BatchNormalization)" in text
    assert "Total params: 8,000 (31.25 KB)" in text
    assert "Trainable params: 7,980" in text and "Non-trainable params: 20 (80.00 B)" in text


def test_summary_with_input_shape_builds_by_a_dry_run():
    model = Reuse()
    text = captured(model, input_shape=(None, 784))
    assert "(None, 10) x2" in text and model.built


def test_unbuilt_model_summary_says_how_to_build():
    with pytest.raises(ValueError, match=r"'reuse' has not been built yet.*input_shape"):
        Reuse().summary()


def test_functional_summary_has_connections_for_graphs():
    a = ef.layers.Input(shape=(3,), name="a")
    b = ef.layers.Input(shape=(2,), name="b")
    merged = ef.layers.Concatenate(name="merge")([ef.layers.Dense(4, name="fa")(a),
                                                  ef.layers.Dense(4, name="fb")(b)])
    text = captured(ef.models.Model([a, b], merged, name="graph"))
    assert "Connected to" in text and "merge (Concatenate)" in text
    assert "fa[0][0]" in text and "fb[0][0]" in text and "a (InputLayer)" in text
    chain_in = ef.layers.Input(shape=(3,))
    chain = captured(ef.models.Model(chain_in, ef.layers.Dense(2)(chain_in)))
    assert "Connected to" not in chain


def test_sequential_summary_nested_and_trainable_column():
    inner_in = ef.layers.Input(shape=(3,))
    encoder = ef.models.Model(inner_in, ef.layers.Dense(4, name="code")(inner_in),
                              name="encoder")
    model = ef.Sequential([ef.layers.Input(shape=(3,)), encoder, ef.layers.Dense(1)],
                          name="stack")
    encoder.trainable = False
    text = captured(model, expand_nested=True, show_trainable=True)
    assert "encoder (Functional)" in text and "   code (Dense)" in text
    assert "Trainable" in text and " N" in text
    assert "Non-trainable params: 16 (64.00 B)" in text
    narrow = captured(model, line_length=40)
    assert narrow.splitlines()[1] == "_" * 40


def test_deferred_sequential_summary_uses_the_first_call():
    model = ef.Sequential([ef.layers.Dense(2), ef.layers.Dense(1)])
    model(ef.ones([5, 3]))
    assert "(5, 2)" in captured(model) and "(5, 1)" in captured(model)

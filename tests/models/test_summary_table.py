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
    assert "dense (Dense)" in text and "(1, 1, 10)" in text and "7,850" in text
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


# The rows and totals Keras 3.15 prints for the same three models (recorded with
# `model.summary()` in a TensorFlow 2.21 / Keras 3.15 install): layer (type), output shape,
# parameter count and, for the functional model, the inbound layers.
_KERAS_ROWS = {
    "seq": [("conv1 (Conv2D)", "(None, 8, 8, 16)", "160"),
            ("pool1 (MaxPooling2D)", "(None, 4, 4, 16)", "0"),
            ("flatten (Flatten)", "(None, 256)", "0"), ("drop (Dropout)", "(None, 256)", "0"),
            ("hidden (Dense)", "(None, 64)", "16,448"),
            ("bn (BatchNormalization)", "(None, 64)", "256"),
            ("logits (Dense)", "(None, 10)", "650")],
    "branches": [("features (InputLayer)", "(None, 16)", "0", "-"),
                 ("branch_a (Dense)", "(None, 32)", "544", "features[0][0]"),
                 ("branch_b (Dense)", "(None, 32)", "544", "features[0][0]"),
                 ("add (Add)", "(None, 32)", "0", "branch_a[0][0]"),
                 ("extra (InputLayer)", "(None, 4)", "0", "-"),
                 ("concat (Concatenate)", "(None, 36)", "0", "add[0][0]"),
                 ("score (Dense)", "(None, 1)", "37", "concat[0][0]"),
                 ("klass (Dense)", "(None, 3)", "111", "concat[0][0]")],
    "sub": [("d1 (Dense)", "(2, 16)", "96"), ("bn (BatchNormalization)", "(2, 16)", "64"),
            ("d2 (Dense)", "(2, 2)", "34")],
}
_KERAS_TOTALS = {
    "seq": ["Total params: 17,514 (68.41 KB)", "Trainable params: 17,386 (67.91 KB)",
            "Non-trainable params: 128 (512.00 B)"],
    "branches": ["Total params: 1,236 (4.83 KB)", "Trainable params: 1,236 (4.83 KB)",
                 "Non-trainable params: 0 (0.00 B)"],
    "sub": ["Total params: 194 (776.00 B)", "Trainable params: 162 (648.00 B)",
            "Non-trainable params: 32 (128.00 B)"],
}


def _three_models():
    layers = ef.layers
    sequential = ef.Sequential([
        layers.Input((8, 8, 1)),
        layers.Conv2D(16, 3, padding="same", activation="relu", name="conv1"),
        layers.MaxPooling2D(2, name="pool1"), layers.Flatten(name="flatten"),
        layers.Dropout(0.2, name="drop"), layers.Dense(64, activation="relu", name="hidden"),
        layers.BatchNormalization(name="bn"), layers.Dense(10, name="logits")], name="seq")
    features, extra = layers.Input((16,), name="features"), layers.Input((4,), name="extra")
    branch_a = layers.Dense(32, activation="relu", name="branch_a")(features)
    branch_b = layers.Dense(32, activation="tanh", name="branch_b")(features)
    merged = layers.Add(name="add")([branch_a, branch_b])
    joined = layers.Concatenate(name="concat")([merged, extra])
    functional = ef.Model([features, extra], [layers.Dense(1, name="score")(joined),
                                              layers.Dense(3, activation="softmax",
                                                           name="klass")(joined)],
                          name="branches")

    class Sub(ef.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.d1 = layers.Dense(16, activation="relu", name="d1")
            self.bn = layers.BatchNormalization(name="bn")
            self.d2 = layers.Dense(2, name="d2")

        def call(self, x, training=False):
            return self.d2(self.bn(self.d1(x), training=training))

    subclassed = Sub()
    subclassed(ef.ones((2, 5)))
    return sequential, functional, subclassed


def test_summary_matches_keras_on_three_models():
    for model in _three_models():
        lines = []
        model.summary(print_fn=lines.append)
        text = "\n".join(lines)
        rows = _KERAS_ROWS[model.name]
        for row in rows:
            # One line per layer with its name (type), shape and count, in Keras's words.
            assert any(all(field in line for field in row) for line in lines), (row, text)
        for total in _KERAS_TOTALS[model.name]:
            assert total in lines, (total, text)
        listed = [line.split()[0] for line in lines if "(" in line and line.startswith(" ")
                  and line.split()[0] in {r[0].split()[0] for r in rows}]
        # In Keras's order (`model.layers` is Keras's depth order).
        assert listed == [r[0].split()[0] for r in rows], text

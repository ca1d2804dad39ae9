"""TensorFlow guide "Basic training loops", ported with `tf.` turned into `ef.`."""

import numpy as np

import eagerflow as ef

TRUE_W, TRUE_B = 3.0, 2.0
NUM_EXAMPLES = 201


def _data():
    ef.random.set_seed(0)
    x = ef.linspace(-2.0, 2.0, NUM_EXAMPLES)
    x = ef.cast(x, ef.float32)
    noise = ef.random.normal(shape=[NUM_EXAMPLES])
    y = x * TRUE_W + TRUE_B + noise
    return x, y


class MyModel(ef.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = ef.Variable(5.0)
        self.b = ef.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def loss(target_y, predicted_y):
    return ef.reduce_mean(ef.square(target_y - predicted_y))


def train(model, x, y, learning_rate):
    with ef.GradientTape() as t:
        current_loss = loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


def test_a_module_trained_by_hand():
    x, y = _data()
    model = MyModel()
    assert len(model.variables) == 2
    initial = float(loss(y, model(x)))
    for _ in range(10):
        train(model, x, y, learning_rate=0.1)
    assert float(loss(y, model(x))) < initial / 4
    assert abs(float(model.w) - TRUE_W) < 0.5 and abs(float(model.b) - TRUE_B) < 0.5


def test_the_same_solution_in_keras_form():
    x, y = _data()

    class MyKerasModel(ef.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = ef.Variable(5.0)
            self.b = ef.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    keras_model = MyKerasModel()
    for _ in range(10):
        train(keras_model, x, y, learning_rate=0.1)  # the hand-written loop works too
    keras_model = MyKerasModel()
    keras_model.compile(run_eagerly=False,
                        optimizer=ef.optimizers.SGD(learning_rate=0.1),
                        loss=ef.losses.mean_squared_error)
    history = keras_model.fit(x, y, epochs=10, batch_size=1000, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 4
    np.testing.assert_allclose([float(keras_model.w), float(keras_model.b)], [TRUE_W, TRUE_B],
                               atol=0.5)

"""Keras guide "The Functional API", ported section by section with `tf.`/`keras.` turned
into `ef.` (small sizes and data; the built-in digits stand in for MNIST, random images
for CIFAR-10; no pretrained VGG19: a small convnet plays its part)."""

import os

import numpy as np

import eagerflow as ef
from eagerflow import layers


def test_introduction_and_plotting(tmp_path):
    inputs = ef.Input(shape=(64,))
    img_inputs = ef.Input(shape=(32, 32, 3))
    assert inputs.shape == (None, 64) and img_inputs.shape == (None, 32, 32, 3)
    assert inputs.dtype == ef.float32
    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = ef.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    lines = []
    model.summary(print_fn=lines.append)
    assert 'Model: "mnist_model"' in lines[0]
    assert any("Total params: 8,970" in line for line in lines)
    ef.utils.plot_model(model, str(tmp_path / "my_first_model.png"), dpi=40)
    ef.utils.plot_model(model, str(tmp_path / "my_first_model_with_shape_info.png"),
                        show_shapes=True, dpi=40)
    assert sorted(os.listdir(tmp_path)) == ["my_first_model.png",
                                            "my_first_model_with_shape_info.png"]


def _mnist_model():
    inputs = ef.Input(shape=(64,))
    x = layers.Dense(64, activation="relu")(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    return ef.Model(inputs=inputs, outputs=outputs, name="mnist_model")


def test_training_evaluation_and_inference_then_save_and_serialize(tmp_path):
    (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    x_train = x_train.reshape(-1, 64).astype("float32") / 16
    x_test = x_test.reshape(-1, 64).astype("float32") / 16
    model = _mnist_model()
    model.compile(
        loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=ef.optimizers.RMSprop(),
        metrics=["accuracy"],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2,
                        verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    test_scores = model.evaluate(x_test, y_test, verbose=0)
    assert test_scores[1] > 0.5, test_scores

    path = str(tmp_path / "path_to_my_model.h5")
    model.save(path)
    predictions = model.predict(x_test, verbose=0)
    del model
    model = ef.models.load_model(path)
    np.testing.assert_array_equal(model.predict(x_test, verbose=0), predictions)
    assert model.evaluate(x_test, y_test, verbose=0) == test_scores  # compile state too


def _encoder(name):
    encoder_input = ef.Input(shape=(28, 28, 1), name=name)
    x = layers.Conv2D(4, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(8, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(8, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)
    return encoder_input, encoder_output


def _decoder_layers(x):
    x = layers.Reshape((4, 4, 1))(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(8, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    return layers.Conv2DTranspose(1, 3, activation="relu")(x)


def test_use_the_same_graph_of_layers_to_define_multiple_models():
    encoder_input, encoder_output = _encoder("img")
    encoder = ef.Model(encoder_input, encoder_output, name="encoder")
    decoder_output = _decoder_layers(encoder_output)
    autoencoder = ef.Model(encoder_input, decoder_output, name="autoencoder")
    assert encoder.output_shape == (None, 16)
    assert autoencoder.output_shape == (None, 28, 28, 1)
    x = np.random.default_rng(0).random((2, 28, 28, 1)).astype("float32")
    assert autoencoder(x).shape == (2, 28, 28, 1)
    # The two models share the encoder's layers and weights.
    assert all(any(w is v for v in autoencoder.weights) for w in encoder.weights)


def test_all_models_are_callable_just_like_layers():
    encoder_input, encoder_output = _encoder("original_img")
    encoder = ef.Model(encoder_input, encoder_output, name="encoder")
    decoder_input = ef.Input(shape=(16,), name="encoded_img")
    decoder = ef.Model(decoder_input, _decoder_layers(decoder_input), name="decoder")
    autoencoder_input = ef.Input(shape=(28, 28, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    autoencoder = ef.Model(autoencoder_input, decoded_img, name="autoencoder")
    x = np.random.default_rng(0).random((2, 28, 28, 1)).astype("float32")
    np.testing.assert_allclose(autoencoder(x).numpy(), decoder(encoder(x)).numpy(),
                               rtol=1e-5, atol=1e-6)

    def get_model():
        inputs = ef.Input(shape=(128,))
        outputs = layers.Dense(1)(inputs)
        return ef.Model(inputs, outputs)

    model1, model2, model3 = get_model(), get_model(), get_model()
    inputs = ef.Input(shape=(128,))
    y1, y2, y3 = model1(inputs), model2(inputs), model3(inputs)
    outputs = layers.average([y1, y2, y3])
    ensemble_model = ef.Model(inputs=inputs, outputs=outputs)
    x = np.random.default_rng(1).random((4, 128)).astype("float32")
    expected = (model1(x).numpy() + model2(x).numpy() + model3(x).numpy()) / 3
    np.testing.assert_allclose(ensemble_model(x).numpy(), expected, rtol=1e-5)


def _ticket_model():
    num_tags, num_words, num_departments = 12, 1000, 4
    title_input = ef.Input(shape=(None,), name="title")
    body_input = ef.Input(shape=(None,), name="body")
    tags_input = ef.Input(shape=(num_tags,), name="tags")
    title_features = layers.Embedding(num_words, 8)(title_input)
    body_features = layers.Embedding(num_words, 8)(body_input)
    title_features = layers.LSTM(16)(title_features)
    body_features = layers.LSTM(4)(body_features)
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    return ef.Model(inputs=[title_input, body_input, tags_input],
                    outputs=[priority_pred, department_pred])


def test_models_with_multiple_inputs_and_outputs(tmp_path):
    num_tags, num_words, num_departments = 12, 1000, 4
    model = _ticket_model()
    ef.utils.plot_model(model, str(tmp_path / "multi_input_and_output_model.png"),
                        show_shapes=True, dpi=40)
    model.compile(
        optimizer=ef.optimizers.RMSprop(1e-3),
        loss=[ef.losses.BinaryCrossentropy(from_logits=True),
              ef.losses.CategoricalCrossentropy(from_logits=True)],
        loss_weights=[1.0, 0.2],
    )
    model.compile(
        optimizer=ef.optimizers.RMSprop(1e-3),
        loss={"priority": ef.losses.BinaryCrossentropy(from_logits=True),
              "department": ef.losses.CategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2},
    )
    rng = np.random.default_rng(0)
    title_data = rng.integers(num_words, size=(128, 10))
    body_data = rng.integers(num_words, size=(128, 20))
    tags_data = rng.integers(2, size=(128, num_tags)).astype("float32")
    priority_targets = rng.random(size=(128, 1))
    dept_targets = rng.integers(2, size=(128, num_departments))
    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2, batch_size=32, verbose=0,
    )
    assert {"loss", "priority_loss", "department_loss"} <= set(history.history)
    last = {k: v[-1] for k, v in history.history.items()}
    np.testing.assert_allclose(last["loss"], last["priority_loss"]
                               + 0.2 * last["department_loss"], rtol=1e-4)
    dataset = ef.data.Dataset.from_tensor_slices(
        ({"title": title_data, "body": body_data, "tags": tags_data},
         {"priority": priority_targets, "department": dept_targets})).batch(32)
    model.fit(dataset, epochs=1, verbose=0)


def test_a_toy_resnet_model(tmp_path):
    inputs = ef.Input(shape=(32, 32, 3), name="img")
    x = layers.Conv2D(8, 3, activation="relu")(inputs)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(16, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(16, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])
    x = layers.Conv2D(16, 3, activation="relu", padding="same")(block_2_output)
    x = layers.Conv2D(16, 3, activation="relu", padding="same")(x)
    block_3_output = layers.add([x, block_2_output])
    x = layers.Conv2D(16, 3, activation="relu")(block_3_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(32, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(10)(x)
    model = ef.Model(inputs, outputs, name="toy_resnet")
    ef.utils.plot_model(model, str(tmp_path / "mini_resnet.png"), show_shapes=True, dpi=40)
    rng = np.random.default_rng(0)
    x_train = rng.integers(0, 256, (64, 32, 32, 3)).astype("float32") / 255.0
    y_train = ef.utils.to_categorical(rng.integers(0, 10, (64, 1)), 10)
    model.compile(
        optimizer=ef.optimizers.RMSprop(1e-3),
        loss=ef.losses.CategoricalCrossentropy(from_logits=True),
        metrics=["acc"],
    )
    history = model.fit(x_train, y_train, batch_size=16, epochs=1, validation_split=0.2,
                        verbose=0)
    assert set(history.history) == {"loss", "acc", "val_loss", "val_acc"}


def test_shared_layers():
    shared_embedding = layers.Embedding(1000, 8)
    text_input_a = ef.Input(shape=(None,), dtype="int32")
    text_input_b = ef.Input(shape=(None,), dtype="int32")
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)
    model = ef.Model([text_input_a, text_input_b], [encoded_input_a, encoded_input_b])
    a, b = model([np.array([[1, 2]]), np.array([[2, 1]])])
    np.testing.assert_array_equal(a.numpy()[0, ::-1], b.numpy()[0])
    assert len(model.weights) == 1


def test_extract_and_reuse_nodes_in_the_graph_of_layers():
    cnn = ef.Sequential([
        ef.Input(shape=(24, 24, 3)),
        layers.Conv2D(4, 3, activation="relu", name="block1_conv1"),
        layers.MaxPooling2D(2, name="block1_pool"),
        layers.Conv2D(8, 3, activation="relu", name="block2_conv1"),
        layers.GlobalAveragePooling2D(name="pool"),
        layers.Dense(10, name="predictions"),
    ])
    features_list = [layer.output for layer in cnn.layers]
    feat_extraction_model = ef.Model(inputs=cnn.input, outputs=features_list)
    img = np.random.random((1, 24, 24, 3)).astype("float32")
    extracted_features = feat_extraction_model(img)
    assert [f.shape for f in extracted_features] == [
        (1, 22, 22, 4), (1, 11, 11, 4), (1, 9, 9, 8), (1, 8), (1, 10)]
    np.testing.assert_allclose(extracted_features[-1].numpy(), cnn(img).numpy(), rtol=1e-5)


def test_extend_the_api_using_custom_layers():
    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                     initializer="random_normal", trainable=True)
            self.b = self.add_weight(shape=(self.units,), initializer="random_normal",
                                     trainable=True)

        def call(self, inputs):
            return ef.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    inputs = ef.Input((4,))
    outputs = CustomDense(10)(inputs)
    model = ef.Model(inputs, outputs)
    config = model.get_config()
    new_model = ef.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    assert new_model.output_shape == (None, 10)
    assert new_model(np.ones((2, 4), "float32")).shape == (2, 10)


def test_mix_and_match_api_styles(capsys):
    units, timesteps, input_dim = 32, 10, 5
    inputs = ef.Input((None, units))
    x = layers.GlobalAveragePooling1D()(inputs)
    outputs = layers.Dense(1)(x)
    model = ef.Model(inputs, outputs)

    class CustomRNN(layers.Layer):
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = model

        def call(self, inputs):
            outputs = []
            state = ef.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ef.stack(outputs, axis=1)
            print(features.shape)
            return self.classifier(features)

    rnn_model = CustomRNN()
    assert rnn_model(ef.zeros((1, timesteps, input_dim))).shape == (1, 1)
    assert capsys.readouterr().out == "(1, 10, 32)\n"

    batch_size = 16

    class CustomRNN2(layers.Layer):
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = layers.Dense(1)

        def call(self, inputs):
            outputs = []
            state = ef.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ef.stack(outputs, axis=1)
            return self.classifier(features)

    inputs = ef.Input(batch_shape=(batch_size, timesteps, input_dim))
    x = layers.Conv1D(32, 3)(inputs)
    outputs = CustomRNN2()(x)
    model = ef.Model(inputs, outputs)
    assert model.output_shape == (batch_size, timesteps - 2, 1)
    rnn_model = CustomRNN2()
    assert rnn_model(ef.zeros((1, 10, 5))).shape == (1, 10, 1)

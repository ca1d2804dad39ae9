"""Keras guide "Working with preprocessing layers", ported section by section with
`tf.`/`keras.` turned into `ef.` (random images stand in for CIFAR-10, small sizes, one
short epoch; expected encodings are what Keras 3 prints for the same data)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import layers

GREEK = [
    "ξεῖν᾽, ἦ τοι μὲν ὄνειροι ἀμήχανοι ἀκριτόμυθοι",
    "γίγνοντ᾽, οὐδέ τι πάντα τελείεται ἀνθρώποισι.",
    "δοιαὶ γάρ τε πύλαι ἀμενηνῶν εἰσὶν ὀνείρων:",
    "αἱ μὲν γὰρ κεράεσσι τετεύχαται, αἱ δ᾽ ἐλέφαντι:",
    "τῶν οἳ μέν κ᾽ ἔλθωσι διὰ πριστοῦ ἐλέφαντος,",
    "οἵ ῥ᾽ ἐλεφαίρονται, ἔπε᾽ ἀκράαντα φέροντες:",
    "οἱ δὲ διὰ ξεστῶν κεράων ἔλθωσι θύραζε,",
    "οἵ ῥ᾽ ἔτυμα κραίνουσι, βροτῶν ὅτε κέν τις ἴδηται.",
]


def test_the_adapt_method():
    data = np.array(
        [
            [0.1, 0.2, 0.3],
            [0.8, 0.9, 1.0],
            [1.5, 1.6, 1.7],
        ]
    )
    layer = layers.Normalization()
    layer.adapt(data)
    normalized_data = layer(data)
    assert abs(normalized_data.numpy().mean()) < 1e-6
    assert abs(normalized_data.numpy().std() - 1.0) < 1e-5

    data = GREEK
    layer = layers.TextVectorization()
    layer.adapt(data)
    vectorized_text = layer(data)
    # What Keras 3 prints (ties in the counts are broken the same way).
    assert vectorized_text.numpy().tolist() == [
        [37, 12, 25, 5, 9, 20, 21, 0, 0], [51, 34, 27, 33, 29, 18, 0, 0, 0],
        [49, 52, 30, 31, 19, 46, 10, 0, 0], [7, 5, 50, 43, 28, 7, 47, 17, 0],
        [24, 35, 39, 40, 3, 6, 32, 16, 0], [4, 2, 15, 14, 22, 23, 0, 0, 0],
        [36, 48, 6, 38, 42, 3, 45, 0, 0], [4, 2, 13, 41, 53, 8, 44, 26, 11]]
    assert layer.get_vocabulary()[:6] == ["", "[UNK]", "ῥ᾽", "ἔλθωσι", "οἵ", "μὲν"]

    vocab = ["a", "b", "c", "d"]
    data = ef.constant([["a", "c", "d"], ["d", "z", "b"]])
    layer = layers.StringLookup(vocabulary=vocab)
    vectorized_data = layer(data)
    assert vectorized_data.numpy().tolist() == [[1, 3, 4], [4, 0, 2]]


def test_preprocessing_data_before_the_model_or_inside_the_model():
    x_data = np.random.default_rng(0).normal(3.0, 2.0, size=(32, 4)).astype("float32")
    y_data = x_data.sum(axis=1, keepdims=True)
    preprocessing_layer = layers.Normalization()
    preprocessing_layer.adapt(x_data)

    # Option 1: part of the model.
    input_shape = (4,)
    inputs = ef.Input(shape=input_shape)
    x = preprocessing_layer(inputs)
    outputs = layers.Dense(1)(x)
    model = ef.Model(inputs, outputs)
    np.testing.assert_allclose(model.layers[1](x_data).numpy().mean(axis=0), 0, atol=1e-5)

    # Option 2: in the dataset.
    dataset = ef.data.Dataset.from_tensor_slices((x_data, y_data)).batch(8)
    dataset = dataset.map(lambda x, y: (preprocessing_layer(x), y))
    dataset = dataset.prefetch(ef.data.AUTOTUNE)
    training_model = ef.Sequential([ef.Input(shape=input_shape), layers.Dense(1)])
    training_model.compile(optimizer="adam", loss="mse")
    history = training_model.fit(dataset, epochs=2, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
    first_x, _ = next(iter(dataset))
    np.testing.assert_allclose(first_x.numpy(), preprocessing_layer(x_data[:8]).numpy())


def test_benefits_of_doing_preprocessing_inside_the_model_at_inference_time():
    x_data = np.random.default_rng(1).normal(5.0, 3.0, size=(16, 4)).astype("float32")
    preprocessing_layer = layers.Normalization()
    preprocessing_layer.adapt(x_data)
    training_model = ef.Sequential([ef.Input(shape=(4,)), layers.Dense(2)])

    input_shape = (4,)
    inputs = ef.Input(shape=input_shape)
    x = preprocessing_layer(inputs)
    outputs = training_model(x)
    inference_model = ef.Model(inputs, outputs)
    np.testing.assert_allclose(inference_model(x_data).numpy(),
                               training_model(preprocessing_layer(x_data)).numpy(), rtol=1e-6)


def test_preprocessing_during_multi_worker_training():
    strategy = ef.distribute.MPIStrategy()
    input_shape = (1,)
    with strategy.scope():
        inputs = ef.Input(shape=input_shape, dtype="int64")
        preprocessing_layer = ef.layers.Hashing(10)
        dense_layer = ef.layers.Dense(16)
    hashed = preprocessing_layer(np.array([[3], [12345], [3]]))
    assert hashed.numpy()[0, 0] == hashed.numpy()[2, 0] and 0 <= hashed.numpy().min()
    assert hashed.numpy().max() < 10
    assert dense_layer(ef.cast(hashed, "float32")).shape == (3, 16)
    assert inputs.dtype == ef.int64


def test_image_data_augmentation():
    # Create a data augmentation stage with horizontal flipping, rotations, zooms
    data_augmentation = ef.Sequential(
        [
            layers.RandomFlip("horizontal"),
            layers.RandomRotation(0.1),
            layers.RandomZoom(0.1),
        ]
    )

    # Load some data (random 16x16 "CIFAR" images)
    rng = np.random.default_rng(2)
    x_train = rng.integers(0, 256, size=(64, 16, 16, 3)).astype("uint8")
    y_train = rng.integers(0, 10, size=(64, 1))
    input_shape = x_train.shape[1:]
    classes = 10

    # As in Keras 3, called directly (as in a dataset's map) the layers augment; with
    # training=False (and so in predict/evaluate) they pass the images through.
    batch = x_train[:4].astype("float32")
    assert not np.allclose(data_augmentation(batch).numpy(), batch)
    np.testing.assert_array_equal(data_augmentation(batch, training=False).numpy(), batch)

    # Create a pipeline of augmented images (and their labels)
    train_dataset = ef.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.batch(16).map(lambda x, y: (data_augmentation(x), y))

    # No ef.applications: a small convnet plays ResNet50's part.
    with pytest.raises(AttributeError, match="'applications': there is no model zoo"):
        ef.applications.ResNet50(weights=None, input_shape=input_shape, classes=classes)
    inputs = ef.Input(shape=input_shape)
    x = layers.Rescaling(1.0 / 255)(inputs)  # Rescale inputs
    x = layers.Conv2D(4, 3, activation="relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(classes, activation="softmax")(x)
    model = ef.Model(inputs, outputs)
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy")
    history = model.fit(train_dataset, steps_per_epoch=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_normalizing_numerical_features():
    rng = np.random.default_rng(3)
    x_train = rng.integers(0, 256, size=(128, 4, 4, 3)).astype("uint8")
    y_train = rng.integers(0, 10, size=(128, 1))
    x_train = x_train.reshape((len(x_train), -1))
    input_shape = x_train.shape[1:]
    classes = 10

    # Create a Normalization layer and set its internal state using the training data
    normalizer = layers.Normalization()
    normalizer.adapt(x_train)
    np.testing.assert_allclose(normalizer.mean.numpy().ravel(), x_train.mean(axis=0),
                               rtol=1e-5)
    np.testing.assert_allclose(normalizer.variance.numpy().ravel(), x_train.var(axis=0),
                               rtol=1e-4)

    # Create a model that include the normalization layer
    inputs = ef.Input(shape=input_shape)
    x = normalizer(inputs)
    outputs = layers.Dense(classes, activation="softmax")(x)
    model = ef.Model(inputs, outputs)

    # Train the model
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    history = model.fit(x_train, y_train, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_encoding_string_categorical_features_via_one_hot_encoding():
    # Define some toy data
    data = ef.constant([["a"], ["b"], ["c"], ["b"], ["c"], ["a"]])

    # Use StringLookup to build an index of the feature values and encode output.
    lookup = layers.StringLookup(output_mode="one_hot")
    lookup.adapt(data)

    # Convert new test data (which includes unknown feature values)
    test_data = ef.constant([["a"], ["b"], ["c"], ["d"], ["e"], [""]])
    encoded_data = lookup(test_data)
    assert lookup.get_vocabulary() == ["[UNK]", "c", "b", "a"]
    assert encoded_data.numpy().tolist() == [
        [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]


def test_encoding_integer_categorical_features_via_one_hot_encoding():
    # Define some toy data
    data = ef.constant([[10], [20], [20], [10], [30], [0]])

    # Use IntegerLookup to build an index of the feature values and encode output.
    lookup = layers.IntegerLookup(output_mode="one_hot")
    lookup.adapt(data)

    # Convert new test data (which includes unknown feature values)
    test_data = ef.constant([[10], [10], [20], [50], [60], [0]])
    encoded_data = lookup(test_data)
    # Keras 3: no mask token by default, so 0 is an ordinary value (the guide's text
    # predates that); -1 is the OOV token.
    assert lookup.get_vocabulary() == [-1, 20, 10, 30, 0]
    assert encoded_data.numpy().tolist() == [
        [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0],
        [0, 0, 0, 0, 1]]


def test_applying_the_hashing_trick_to_an_integer_categorical_feature():
    # Sample data: 10,000 random integers with values between 0 and 100,000
    data = np.random.randint(0, 100000, size=(10000, 1))

    # Use the Hashing layer to hash the values to the range [0, 64]
    hasher = layers.Hashing(num_bins=64, salt=1337)

    # Use the CategoryEncoding layer to multi-hot encode the hashed values
    encoder = layers.CategoryEncoding(num_tokens=64, output_mode="multi_hot")
    encoded_data = encoder(hasher(data))
    assert encoded_data.shape == (10000, 64)
    assert np.all(encoded_data.numpy().sum(axis=1) == 1)
    # The same bins as Keras 3 for the same salt.
    assert hasher(np.array([[1], [2], [99999], [12345]])).numpy().ravel().tolist() == [
        45, 25, 22, 25]


ADAPT_DATA = [
    "The Brain is wider than the Sky",
    "For put them side by side",
    "The one the other will contain",
    "With ease and You beside",
]
TRAIN = (["The Brain is deeper than the sea", "for if they are held Blue to Blue"], [1, 0])


def test_encoding_text_as_a_sequence_of_token_indices():
    # Define some text data to adapt the layer
    adapt_data = ef.constant(ADAPT_DATA)

    # Create a TextVectorization layer
    text_vectorizer = layers.TextVectorization(output_mode="int")
    # Index the vocabulary via `adapt()`
    text_vectorizer.adapt(adapt_data)

    encoded = text_vectorizer(["The Brain is deeper than the sea"]).numpy()
    assert encoded.tolist() == [[2, 19, 14, 1, 9, 2, 1]]  # as Keras 3
    assert text_vectorizer.vocabulary_size() == 22

    # Create a simple model
    inputs = ef.Input(shape=(None,), dtype="int64")
    x = layers.Embedding(input_dim=text_vectorizer.vocabulary_size(), output_dim=16)(inputs)
    x = layers.GRU(8)(x)
    outputs = layers.Dense(1)(x)
    model = ef.Model(inputs, outputs)

    # Create a labeled dataset (which includes unknown tokens)
    train_dataset = ef.data.Dataset.from_tensor_slices(TRAIN)

    # Preprocess the string inputs, turning them into int sequences
    train_dataset = train_dataset.batch(2).map(lambda x, y: (text_vectorizer(x), y))
    # Train the model on the int sequences
    model.compile(optimizer="rmsprop", loss="mse")
    history = model.fit(train_dataset, verbose=0)
    assert np.isfinite(history.history["loss"][0])

    # For inference, you can export a model that accepts strings as input
    inputs = ef.Input(shape=(1,), dtype="string")
    x = text_vectorizer(inputs)
    outputs = model(x)
    end_to_end_model = ef.Model(inputs, outputs)

    # Call the end-to-end model on test data (which includes unknown tokens)
    test_data = ef.constant(["The one the other will absorb"])
    test_output = end_to_end_model(test_data)
    assert test_output.shape == (1, 1)
    np.testing.assert_allclose(test_output.numpy(),
                               model(text_vectorizer(test_data)).numpy(), rtol=1e-6)


def _bigram_model_roundtrip(output_mode):
    adapt_data = ef.constant(ADAPT_DATA)
    text_vectorizer = layers.TextVectorization(output_mode=output_mode, ngrams=2)
    text_vectorizer.adapt(adapt_data)
    encoded = text_vectorizer(["The Brain is deeper than the sea"]).numpy()

    inputs = ef.Input(shape=(text_vectorizer.vocabulary_size(),))
    outputs = layers.Dense(1)(inputs)
    model = ef.Model(inputs, outputs)
    train_dataset = ef.data.Dataset.from_tensor_slices(TRAIN)
    train_dataset = train_dataset.batch(2).map(lambda x, y: (text_vectorizer(x), y))
    model.compile(optimizer="rmsprop", loss="mse")
    history = model.fit(train_dataset, verbose=0)
    assert np.isfinite(history.history["loss"][0])

    inputs = ef.Input(shape=(1,), dtype="string")
    x = text_vectorizer(inputs)
    outputs = model(x)
    end_to_end_model = ef.Model(inputs, outputs)
    test_data = ef.constant(["The one the other will absorb"])
    test_output = end_to_end_model(test_data)
    np.testing.assert_allclose(test_output.numpy(),
                               model(text_vectorizer(test_data)).numpy(), rtol=1e-6)
    return text_vectorizer, encoded


def test_encoding_text_as_a_dense_matrix_of_ngrams_with_multi_hot_encoding():
    text_vectorizer, encoded = _bigram_model_roundtrip("multi_hot")
    assert text_vectorizer.vocabulary_size() == 41
    assert np.flatnonzero(encoded[0]).tolist() == [0, 1, 16, 17, 18, 28, 36, 37]  # Keras 3
    assert set(np.unique(encoded).tolist()) == {0, 1}


def test_encoding_text_as_a_dense_matrix_of_ngrams_with_tf_idf_weighting():
    text_vectorizer, encoded = _bigram_model_roundtrip("tf-idf")
    assert text_vectorizer.vocabulary_size() == 41
    want = np.zeros(41, "float32")
    want[[0, 1]] = [5.461647, 1.6945957]
    want[[16, 17, 18, 28, 36, 37]] = 1.0986123
    np.testing.assert_allclose(encoded[0], want, rtol=1e-5)  # as Keras 3


def test_important_gotchas_vocabulary_from_a_file(tmp_path):
    # "load the vocabulary into the layer at construction time by passing the file path"
    path = tmp_path / "vocab.txt"
    path.write_text("brain\nsky\nthe\n", encoding="utf-8")
    layer = layers.TextVectorization(vocabulary=str(path))
    assert layer(["the sky is the brain"]).numpy().tolist() == [[4, 3, 1, 4, 2]]
    lookup = layers.StringLookup(vocabulary=str(path))
    assert lookup(ef.constant(["sky", "moon"])).numpy().tolist() == [2, 0]

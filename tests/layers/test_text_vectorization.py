"""TextVectorization: vocabularies and outputs checked against Keras 3.15.1 (the literals
were produced by it) for every standardize/split/ngrams option and output mode, adapt on
arrays, Datasets and iterables, configs, models (traced fit, saved files) and errors."""

import numpy as np
import pytest

import eagerflow as ef

TV = ef.layers.TextVectorization
TEXTS = np.array(["The cat sat on the mat.", "The dog ate my HOMEWORK!", "cat, dog; cat?"])
VOCAB = ["", "[UNK]", "the", "cat", "dog", "sat", "on", "my", "mat", "homework", "ate"]


def adapted(**kwargs):
    layer = TV(**kwargs)
    layer.adapt(TEXTS)
    return layer


def values(layer, inputs):
    return np.asarray(layer(inputs))


def test_int_mode_matches_keras():
    layer = adapted()
    assert layer.get_vocabulary() == VOCAB and layer.vocabulary_size() == 11
    expected = [[2, 3, 5, 6, 2, 8], [2, 4, 10, 7, 9, 0], [3, 4, 3, 0, 0, 0]]
    out = values(layer, TEXTS)
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(values(layer, TEXTS[:, None]), expected)
    np.testing.assert_array_equal(values(layer, np.array("the cat")), [2, 3])
    assert values(layer, ["", "!!"]).shape == (2, 0)
    np.testing.assert_array_equal(values(adapted(output_sequence_length=4), TEXTS),
                                  [[2, 3, 5, 6], [2, 4, 10, 7], [3, 4, 3, 0]])
    np.testing.assert_array_equal(values(adapted(output_sequence_length=8), TEXTS)[2],
                                  [3, 4, 3, 0, 0, 0, 0, 0])
    assert adapted(max_tokens=5).get_vocabulary() == ["", "[UNK]", "the", "cat", "dog"]


@pytest.mark.parametrize("mode, expected", [
    ("multi_hot", [[1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]]),
    ("count", [[2, 2, 1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]]),
    ("tf_idf", [[1.68382, 1.38629, 0.69315, 0, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, 0.69315, 0, 0, 0, 0, 0, 0]]),
])
def test_vector_modes_match_keras(mode, expected):
    layer = adapted(output_mode=mode)
    assert layer.get_vocabulary() == VOCAB[1:]  # no padding index outside "int"
    out = values(layer, ["the cat and the bird", "dog"])
    np.testing.assert_allclose(out, expected, atol=1e-5)
    assert out.dtype == np.float32
    assert layer.compute_output_shape((None,)) == (None, 10)


def test_limited_and_padded_vocabularies_match_keras():
    docs = np.array(["a b b c", "c d e", "e e f"])
    tfidf = TV(output_mode="tf_idf", max_tokens=6, pad_to_max_tokens=True)
    tfidf.adapt(docs)
    assert tfidf.get_vocabulary() == ["[UNK]", "e", "c", "b", "f", "d"]
    np.testing.assert_allclose(values(tfidf, ["b e z", ""]),
                               [[0.82703, 0.69315, 0, 0.91629, 0, 0], [0, 0, 0, 0, 0, 0]],
                               atol=1e-5)
    count = TV(max_tokens=4, output_mode="count")
    count.adapt(docs)
    assert count.get_vocabulary() == ["[UNK]", "e", "c", "b"]
    np.testing.assert_array_equal(values(count, ["b e z e"]), [[1, 2, 0, 1]])


def test_padding_to_max_tokens_and_ngrams_match_keras():
    padded = adapted(output_mode="multi_hot", max_tokens=12, pad_to_max_tokens=True)
    np.testing.assert_array_equal(values(padded, ["the cat"]),
                                  [[0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
    bigrams = adapted(ngrams=2)
    assert bigrams.get_vocabulary() == [
        "", "[UNK]", "the", "cat", "dog", "the mat", "the dog", "the cat", "sat on", "sat",
        "on the", "on", "my homework", "my", "mat", "homework", "dog cat", "dog ate",
        "cat sat", "cat dog", "ate my", "ate"]
    np.testing.assert_array_equal(values(bigrams, ["the cat sat", "dog"]),
                                  [[2, 3, 9, 7, 18], [4, 0, 0, 0, 0]])
    widths = TV(ngrams=(1, 3))
    widths.adapt(["a b c d"])
    assert widths.get_vocabulary() == ["", "[UNK]", "d", "c", "b c d", "b", "a b c", "a"]


def test_standardize_and_split_options_match_keras():
    chars = TV(split="character", standardize="lower")
    chars.adapt(["abBa!", "Éa"])  # only ASCII letters are lowered, as tf.strings.lower
    assert chars.get_vocabulary() == ["", "[UNK]", "a", "b", "É", "!"]
    np.testing.assert_array_equal(values(chars, ["ab", "zÉ!"]), [[2, 3, 0], [1, 4, 5]])
    raw = TV(standardize=None)
    raw.adapt(["A a, A"])
    assert raw.get_vocabulary() == ["", "[UNK]", "A", "a,"]
    strip = TV(standardize="strip_punctuation")
    strip.adapt(["A a, A"])
    assert strip.get_vocabulary() == ["", "[UNK]", "A", "a"]
    unicode = TV()
    unicode.adapt(["É é Straße  tab\there\u00a0nbsp"])  # splits on ASCII whitespace only
    assert unicode.get_vocabulary() == ["", "[UNK]", "é", "É", "tab", "straße", "here\xa0nbsp"]
    whole = TV(split=None)
    whole.adapt(["New York", "Paris", "new york", "Paris"])
    assert whole.get_vocabulary() == ["", "[UNK]", "paris", "new york"]
    np.testing.assert_array_equal(values(whole, ["paris", "rome"]), [2, 1])
    np.testing.assert_array_equal(values(whole, [["paris"], ["new york"]]), [[2], [3]])
    hot = TV(split=None, output_mode="multi_hot")
    hot.adapt(["x", "y", "x"])
    np.testing.assert_array_equal(values(hot, ["x", "y"]), [0, 1, 1])
    np.testing.assert_array_equal(values(hot, [["x"], ["y"]]), [[0, 1, 0], [0, 0, 1]])
    one_hot = TV(output_mode="one_hot", split=None, vocabulary=["a", "b"])
    np.testing.assert_array_equal(values(one_hot, ["a", "b", "c"]),
                                  [[0, 1, 0], [0, 0, 1], [1, 0, 0]])


def test_callables_for_standardize_and_split():
    layer = TV(standardize=ef.strings.upper, split=lambda t: [s.split("-") for s in t],
               vocabulary=["A", "B"])
    np.testing.assert_array_equal(values(layer, ["a-b-c", "b"]), [[2, 3, 1], [3, 0, 0]])
    bad = TV(standardize=lambda t: t[:1], vocabulary=["a"])
    with pytest.raises(ValueError, match=r"standardize` callable must return.*\(2,\)"):
        bad(["a", "b"])
    short = TV(split=lambda t: [["x"]], vocabulary=["a"])
    with pytest.raises(ValueError, match=r"one list of tokens per string \(2\)"):
        short(["a", "b"])


def test_given_vocabulary_and_adapt_on_datasets_and_iterables():
    given = TV(vocabulary=["cat", "dog"])
    assert given.get_vocabulary() == ["", "[UNK]", "cat", "dog"]
    np.testing.assert_array_equal(values(given, ["cat bird dog", ""]), [[2, 1, 3], [0, 0, 0]])
    for data in (ef.data.Dataset.from_tensor_slices(TEXTS).batch(2), iter([TEXTS[:2], TEXTS[2:]]),
                 ef.data.Dataset.from_tensor_slices((TEXTS, np.arange(3))).batch(2)):
        layer = TV()
        layer.adapt(data)
        assert layer.get_vocabulary() == VOCAB
    for data in (ef.data.Dataset.from_tensor_slices(TEXTS).batch(2),
                 ef.data.Dataset.from_tensor_slices(TEXTS)):
        idf = TV(output_mode="tf_idf")
        idf.adapt(data)
        np.testing.assert_allclose(values(idf, ["the cat"]),
                                   [[0, 0.69315, 0.69315, 0, 0, 0, 0, 0, 0, 0]], atol=1e-5)
    limited = TV()
    limited.adapt(ef.data.Dataset.from_tensor_slices(TEXTS).batch(1), steps=1)
    assert limited.get_vocabulary() == ["", "[UNK]", "the", "sat", "on", "mat", "cat"]


def test_config_round_trip():
    layer = adapted(output_mode="tf_idf", ngrams=(1, 2), name="text")
    config = layer.get_config()
    assert config["ngrams"] == (1, 2) and config["vocabulary"][0] == "[UNK]"
    clone = TV.from_config(config)
    sample = ["the cat sat", "a dog"]
    np.testing.assert_allclose(values(clone, sample), values(layer, sample))
    given = TV(vocabulary=["cat", "dog"], output_sequence_length=3).get_config()
    assert given["vocabulary"] == ["cat", "dog"] and given["vocabulary_size"] == 4
    assert TV.from_config({**given, "ngrams": [1]}).get_config()["ngrams"] == (1,)


def test_registered_callables_survive_a_saved_model(tmp_path):
    @ef.saving.register_serializable(name="test_text_upper")
    def upper(text):
        return ef.strings.upper(text)

    layer = TV(standardize=upper, output_mode="count", vocabulary=["A"])
    assert layer.get_config()["standardize"] == {"class_name": "test_text_upper",
                                                 "config": None}
    inputs = ef.Input(shape=(1,), dtype="string")
    model = ef.Model(inputs, layer(inputs))
    restored = ef.models.load_model(model.save(str(tmp_path / "upper.h5")))
    np.testing.assert_array_equal(restored.predict(np.array([["a b a"]]), verbose=0),
                                  [[1, 2]])


def test_in_a_dataset_pipeline_and_in_traced_models(tmp_path):
    layer = adapted(output_sequence_length=4)
    ds = ef.data.Dataset.from_tensor_slices((TEXTS, np.ones(3))).batch(3).map(
        lambda x, y: (layer(x), y))
    features, _ = next(iter(ds))
    np.testing.assert_array_equal(np.asarray(features)[0], [2, 3, 5, 6])
    bag = adapted(output_mode="multi_hot")
    inputs = ef.Input(shape=(1,), dtype="string")
    model = ef.Model(inputs, ef.layers.Dense(1, activation="sigmoid")(bag(inputs)))
    model.compile(optimizer="adam", loss="binary_crossentropy")  # fit traces the step
    history = model.fit(TEXTS[:, None], np.array([1.0, 0.0, 1.0]), batch_size=2, epochs=2,
                        verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    path = model.save(str(tmp_path / "text.h5"))
    restored = ef.models.load_model(path)
    np.testing.assert_allclose(restored.predict(TEXTS[:, None], verbose=0),
                               model.predict(TEXTS[:, None], verbose=0), rtol=1e-6)
    ids = adapted()  # variable row length: shape unknown to the functional API
    inputs = ef.Input(shape=(1,), dtype="string")
    assert ids(inputs).shape == (None, None)

    @ef.function
    def traced(x):
        return ids(x)

    with pytest.raises(ValueError, match=r"inside a traced function.*output_sequence_length"):
        traced(ef.constant(TEXTS))


@pytest.mark.parametrize("kwargs, match", [
    ({"standardize": "upper"}, r"standardize.*one of.*'upper'"),
    ({"split": "comma"}, r"split.*one of.*'comma'"),
    ({"output_mode": "bag"}, r"output_mode.*one of.*'bag'"),
    ({"ngrams": 0}, r"ngrams.*positive int.*ngrams=0"),
    ({"ngrams": (1, "2")}, r"ngrams.*tuple of positive ints"),
    ({"output_mode": "count", "output_sequence_length": 3}, r"must not be set.*'count'"),
    ({"output_sequence_length": 0}, r"output_sequence_length.*positive int.*=0"),
    ({"ragged": True}, r"ragged=True is not supported"),
    ({"sparse": True}, r"sparse=True is not supported"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TV(**kwargs)


def test_bad_inputs_are_refused():
    layer = TV(vocabulary=["a"])
    with pytest.raises(ValueError, match=r"TextVectorization expects string inputs.*int64"):
        layer(np.array([1, 2]))
    with pytest.raises(ValueError, match=r"rank 1 or shape \(batch, 1\).*\(2, 2\)"):
        layer(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match=r"Cannot adapt layer 'fixed'.*static vocabulary"):
        TV(vocabulary=["a"], name="fixed").adapt(["a"])


def test_standardize_callable_gets_a_string_tensor_as_in_keras():
    seen = []

    def standardize(text):
        seen.append((type(text), text.dtype, text.shape))
        return ef.strings.regex_replace(ef.strings.lower(text), "é", "e")

    layer = TV(standardize=standardize, vocabulary=["cafe", "bar"])
    np.testing.assert_array_equal(values(layer, ["Café BAR", "bar"]), [[2, 3], [3, 0]])
    assert seen == [(ef.Tensor, ef.string, (2,))]

"""StringLookup and IntegerLookup: values, vocabularies and idf weights checked against
Keras 3.15.1 (the literals below were produced by it), every output mode, adapt on arrays,
Datasets and iterables, invert, masks and OOV buckets, configs, graphs and errors."""

import os

import numpy as np
import pytest

import eagerflow as ef

L = ef.layers
VOCAB = ["a", "b", "c", "d"]
X = np.array([["a", "c", "d"], ["d", "z", "b"]])
DATA = np.array([["x", "y", "y", "a"], ["b", "b", "a", "c"], ["c", "c", "x", "z"]])


def values(layer, inputs):
    return np.asarray(layer(inputs))


def test_int_mode_mask_and_vocabulary_match_keras():
    out = values(L.StringLookup(vocabulary=VOCAB), X)
    np.testing.assert_array_equal(out, [[1, 3, 4], [4, 0, 2]])
    assert out.dtype == np.int64
    masked = L.StringLookup(vocabulary=VOCAB, mask_token="")
    np.testing.assert_array_equal(values(masked, [["a", "", "z"]]), [[2, 0, 1]])
    assert masked.get_vocabulary() == ["", "[UNK]", "a", "b", "c", "d"]
    assert masked.vocabulary_size() == 6
    assert masked.get_vocabulary(include_special_tokens=False) == VOCAB
    np.testing.assert_array_equal(values(L.StringLookup(vocabulary=VOCAB), np.array("b")), 2)
    no_oov = L.StringLookup(vocabulary=VOCAB, num_oov_indices=0)
    np.testing.assert_array_equal(values(no_oov, ["a", "d"]), [0, 3])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"num_oov_indices=0.*out-of-vocabulary values \['zz'\]"):
        no_oov(["a", "zz"])


@pytest.mark.parametrize("mode, inputs, expected", [
    ("one_hot", ["a", "b", "z", "a"],
     [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]),
    ("one_hot", [["a"], ["z"]], [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]),
    ("one_hot", X, [[[0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]],
                    [[0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]]]),
    ("multi_hot", ["a", "b", "z", "a"], [1, 1, 1, 0, 0]),
    ("multi_hot", X, [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]),
    ("multi_hot", np.array("b"), [0, 0, 1, 0, 0]),
    ("multi_hot", [[["a", "b"], ["b", "c"]]], [[[0, 1, 1, 0, 0], [0, 0, 1, 1, 0]]]),
    ("count", ["a", "b", "z", "a"], [1, 2, 1, 0, 0]),
    ("count", [["a"], ["z"]], [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]),
])
def test_vector_modes_match_keras(mode, inputs, expected):
    layer = L.StringLookup(vocabulary=VOCAB, output_mode=mode)
    out = values(layer, np.asarray(inputs))
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.float32
    assert layer.compute_output_shape(np.shape(inputs)) == out.shape


def test_mask_padding_and_given_idf_weights_match_keras():
    masked = L.StringLookup(vocabulary=VOCAB, output_mode="multi_hot", mask_token="")
    np.testing.assert_array_equal(values(masked, [["a", "", "b"]]), [[0, 1, 1, 0, 0]])
    assert masked.get_vocabulary() == ["[UNK]", *VOCAB]  # no mask index outside "int"
    padded = L.StringLookup(vocabulary=VOCAB, output_mode="multi_hot", max_tokens=8,
                            pad_to_max_tokens=True)
    np.testing.assert_array_equal(values(padded, X), [[0, 1, 0, 1, 1, 0, 0, 0],
                                                      [1, 0, 1, 0, 1, 0, 0, 0]])
    assert padded.compute_output_shape((None, 3)) == (None, 8)
    tfidf = L.StringLookup(vocabulary=VOCAB, output_mode="tf_idf",
                           idf_weights=[0.5, 1.0, 1.5, 2.0])
    np.testing.assert_allclose(values(tfidf, X), [[0.0, 0.5, 0.0, 1.5, 2.0],
                                                  [1.25, 0.0, 1.0, 0.0, 2.0]], rtol=1e-6)


def test_adapt_orders_by_count_then_token_as_keras():
    layer = L.StringLookup()
    layer.adapt(DATA)
    assert layer.get_vocabulary() == ["[UNK]", "c", "y", "x", "b", "a", "z"]
    np.testing.assert_array_equal(values(layer, [["y", "c", "q", "c"]]), [[2, 1, 0, 1]])
    limited = L.StringLookup(max_tokens=4)
    limited.adapt(DATA)
    assert limited.get_vocabulary() == ["[UNK]", "c", "y", "x"]
    column = L.StringLookup()
    column.adapt(np.array(["q", "r", "q", "s"]))
    assert column.get_vocabulary() == ["[UNK]", "q", "s", "r"]
    ints = L.IntegerLookup()
    ints.adapt(np.array([[3, 3, 1, 2], [2, 2, 7, 7], [9, 1, 1, 0]]))
    assert ints.get_vocabulary() == [-1, 2, 1, 7, 3, 9, 0]
    masked = L.IntegerLookup(mask_token=0)
    masked.adapt(np.array([[3, 3, 1, 2], [2, 2, 7, 7], [9, 1, 1, 0]]))
    assert masked.get_vocabulary() == [0, -1, 2, 1, 7, 3, 9]


def test_adapt_tf_idf_on_arrays_datasets_and_iterables_matches_keras():
    layer = L.StringLookup(output_mode="tf_idf")
    layer.adapt(DATA)
    np.testing.assert_allclose(values(layer, [["y", "c", "q", "c"]]),
                               [[0.80472, 1.38629, 0.91629, 0, 0, 0, 0]], atol=1e-5)
    column = L.StringLookup(output_mode="tf_idf")
    column.adapt(np.array(["q", "r", "q", "s"]))  # rank 1: four one-token documents
    np.testing.assert_allclose(values(column, ["q", "r", "s", "t"]),
                               [1.01484, 0.8473, 1.09861, 1.09861], atol=1e-5)
    expected = [0.80472, 0.69315, 0.91629, 0.69315, 0.0, 0.69315, 0.0]
    for data in (ef.data.Dataset.from_tensor_slices(DATA).batch(2),
                 ef.data.Dataset.from_tensor_slices(DATA),  # rank-1 elements: documents
                 iter(list(DATA)), ((row, 0) for row in DATA)):
        layer = L.StringLookup(output_mode="tf_idf")
        layer.adapt(data)
        np.testing.assert_allclose(values(layer, ["x", "y", "a", "c", "t"]), expected,
                                   atol=1e-5)
    ints = L.IntegerLookup(output_mode="tf_idf")
    ints.adapt(np.array([[3, 3, 1, 2], [2, 2, 7, 7], [9, 1, 1, 0]]))
    np.testing.assert_allclose(values(ints, [[3, 1, 2, 5]]),
                               [[0.84191, 0.69315, 0.69315, 0, 0.91629, 0, 0]], atol=1e-5)


def test_padded_tf_idf_bytes_inputs_and_small_max_tokens_match_keras():
    padded = L.StringLookup(output_mode="tf_idf", max_tokens=10, pad_to_max_tokens=True)
    padded.adapt(DATA)
    expected = [[0.80472, 1.38629, 0.91629, 0, 0, 0, 0, 0, 0, 0]]
    np.testing.assert_allclose(values(padded, [["y", "c", "q", "c"]]), expected, atol=1e-5)
    masked = L.StringLookup(output_mode="tf_idf", mask_token="", max_tokens=10,
                            pad_to_max_tokens=True)
    masked.adapt(DATA)
    np.testing.assert_allclose(values(masked, [["y", "c", "", "c"]]),
                               [[0, 1.38629, 0.91629, 0, 0, 0, 0, 0, 0, 0]], atol=1e-5)
    encoded = np.array(["é".encode(), b"b", b"q"], dtype=object)
    np.testing.assert_array_equal(values(L.StringLookup(vocabulary=["é", "b"]), encoded),
                                  [1, 2, 0])
    tiny = L.StringLookup(max_tokens=3, num_oov_indices=2)
    tiny.adapt(DATA)
    assert tiny.get_vocabulary() == ["[UNK]", "[UNK]", "c"]
    one_hot = L.IntegerLookup(vocabulary=np.array([5, 9]), output_mode="one_hot")
    np.testing.assert_array_equal(values(one_hot, [[5], [9], [7]]),
                                  [[0, 1, 0], [0, 0, 1], [1, 0, 0]])


def test_adapt_steps_and_readapting():
    layer = L.StringLookup()
    layer.adapt(ef.data.Dataset.from_tensor_slices(DATA).batch(1), steps=1)
    assert layer.get_vocabulary() == ["[UNK]", "y", "x", "a"]
    layer.adapt(["k"])
    assert layer.get_vocabulary() == ["[UNK]", "k"]
    frozen = L.StringLookup(output_mode="multi_hot")
    frozen.adapt(["a", "b"])
    frozen(["a"])
    with pytest.raises(RuntimeError, match="cannot change after the layer is called"):
        frozen.adapt(["a", "b", "c"])


def test_several_oov_buckets_hash_as_keras():
    words = ["z", "qq", "hello", "abcd", "abcdefgh", "abcdefghijklmnopq", "x" * 40, "y" * 70,
             "The quick brown fox jumps over the lazy dog and more text here to be long "
             "enough" * 2, ""]
    out = values(L.StringLookup(vocabulary=VOCAB, num_oov_indices=3), words)
    np.testing.assert_array_equal(out, [1, 0, 1, 0, 1, 2, 0, 0, 2, 2])
    masked = L.StringLookup(vocabulary=VOCAB, num_oov_indices=3, mask_token="")
    np.testing.assert_array_equal(values(masked, words), [2, 1, 2, 1, 2, 3, 1, 1, 3, 0])


def test_salted_oov_buckets_use_siphash_as_keras():
    salted = L.StringLookup(vocabulary=["a"], num_oov_indices=4, salt=5)
    np.testing.assert_array_equal(values(salted, ["q", "rr", "sss", "tttt", "a"]),
                                  [0, 2, 2, 2, 4])
    assert salted.get_config()["salt"] == [5, 5]
    ints = L.IntegerLookup(vocabulary=[1], num_oov_indices=4, salt=5, oov_method="farmhash")
    np.testing.assert_array_equal(values(ints, [7, 8, 9, 10, 1]), [3, 1, 0, 2, 4])
    with pytest.raises(ValueError, match=r"salt` can only be used when oov_method='farmhash'"):
        L.IntegerLookup(salt=5)


def test_integer_lookup_matches_keras():
    vocab = [12, 36, 1138, 42]
    x = np.array([[12, 1138, 42], [42, 1000, 36]])
    np.testing.assert_array_equal(values(L.IntegerLookup(vocabulary=vocab), x),
                                  [[1, 3, 4], [4, 0, 2]])
    assert L.IntegerLookup(vocabulary=vocab, mask_token=0).get_vocabulary() == [0, -1, *vocab]
    np.testing.assert_array_equal(
        values(L.IntegerLookup(vocabulary=vocab, mask_token=0), [[12, 0, 5]]), [[2, 0, 1]])
    np.testing.assert_array_equal(
        values(L.IntegerLookup(vocabulary=vocab, num_oov_indices=2), [[12, 1000, 1001, -3]]),
        [[2, 0, 1, 1]])
    np.testing.assert_array_equal(
        values(L.IntegerLookup(vocabulary=vocab, num_oov_indices=2, mask_token=0),
               [[12, 1000, 1001, -3, 0]]), [[3, 1, 2, 2, 0]])
    np.testing.assert_array_equal(
        values(L.IntegerLookup(vocabulary=vocab, output_mode="count"), [[12, 12, 7, 7, 7]]),
        [[3, 2, 0, 0, 0]])
    np.testing.assert_array_equal(values(L.IntegerLookup(vocabulary=vocab), [12.0, 36.0]),
                                  [1, 2])
    hashed = L.IntegerLookup(vocabulary=vocab, num_oov_indices=3, oov_method="farmhash")
    np.testing.assert_array_equal(values(hashed, [1000, 7, -5]), [2, 1, 0])  # Keras's


def test_invert_round_trips():
    back = L.StringLookup(vocabulary=VOCAB, invert=True)
    np.testing.assert_array_equal(values(back, [[1, 2, 0], [4, 7, 3]]),
                                  [[b"a", b"b", b"[UNK]"], [b"d", b"[UNK]", b"c"]])
    masked = L.StringLookup(vocabulary=VOCAB, invert=True, mask_token="[M]")
    np.testing.assert_array_equal(values(masked, [[1, 2, 0], [5, 7, 3]]),
                                  [[b"[UNK]", b"a", b"[M]"], [b"d", b"[UNK]", b"b"]])
    forward = L.StringLookup(vocabulary=VOCAB)
    np.testing.assert_array_equal(values(back, forward(X)), [[b"a", b"c", b"d"],
                                                             [b"d", b"[UNK]", b"b"]])
    ints = L.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    np.testing.assert_array_equal(values(ints, [[1, 2, 0], [4, 7, 3]]),
                                  [[12, 36, -1], [42, -1, 1138]])


def test_vocabulary_from_a_file_and_set_vocabulary(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("b\na\n", encoding="utf-8")
    layer = L.StringLookup(vocabulary=str(path))
    assert layer.get_vocabulary() == ["[UNK]", "b", "a"]
    ints_path = tmp_path / "ints.txt"
    ints_path.write_text("7\n3\n")
    assert L.IntegerLookup(vocabulary=os.fspath(ints_path)).get_vocabulary() == [-1, 7, 3]
    layer.set_vocabulary(["[UNK]", "q"])  # special tokens at the start are recognized
    assert layer.get_vocabulary() == ["[UNK]", "q"]
    tfidf = L.StringLookup(output_mode="tf_idf")
    tfidf.set_vocabulary(["a", "b"], idf_weights=[1.0, 3.0])
    np.testing.assert_allclose(values(tfidf, ["b", "z"]), [2.0, 0.0, 3.0])


def test_config_round_trip_keeps_the_vocabulary_and_idf():
    adapted = L.StringLookup(output_mode="tf_idf", name="words")
    adapted.adapt(DATA)
    config = adapted.get_config()
    assert config["vocabulary"][:3] == ["[UNK]", "c", "y"] and config["name"] == "words"
    clone = L.StringLookup.from_config(config)
    np.testing.assert_allclose(values(clone, X), values(adapted, X))
    fresh = L.StringLookup.from_config(config)
    fresh.adapt(["again"])  # an adapted layer stays adaptable
    assert fresh.get_vocabulary() == ["[UNK]", "again"]
    given = L.IntegerLookup(vocabulary=[5, 6], mask_token=0).get_config()
    assert given["vocabulary"] == [5, 6] and given["mask_token"] == 0
    assert L.IntegerLookup.from_config(given).get_vocabulary() == [0, -1, 5, 6]
    assert L.StringLookup(vocabulary=VOCAB).get_config()["vocabulary"] == VOCAB


def test_traced_functions_datasets_and_models():
    layer = L.StringLookup(vocabulary=VOCAB)

    @ef.function
    def lookup(x):
        return layer(x)

    np.testing.assert_array_equal(lookup(ef.constant([["a", "q", "d"]])).numpy(), [[1, 0, 4]])
    np.testing.assert_array_equal(lookup(ef.constant([["b", "c", "a"]])).numpy(), [[2, 3, 1]])
    back = L.StringLookup(vocabulary=VOCAB, invert=True)
    traced_back = ef.function(lambda ids: back(ids))
    np.testing.assert_array_equal(traced_back(ef.constant([4, 0])).numpy(),
                                  [b"d", b"[UNK]"])
    ds = ef.data.Dataset.from_tensor_slices(X).batch(2).map(layer)
    np.testing.assert_array_equal(np.asarray(next(iter(ds))), [[1, 3, 4], [4, 0, 2]])
    inputs = ef.Input(shape=(3,), dtype="string")
    encoded = L.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")(inputs)
    assert encoded.shape == (None, 5)
    strict = L.StringLookup(vocabulary=VOCAB, num_oov_indices=0)(inputs)  # probes pass
    assert strict.shape == (None, 3)
    model = ef.Model(inputs, L.Dense(1)(encoded))
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(X, np.ones((2, 1)), batch_size=2, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_saved_model_file_keeps_the_vocabulary(tmp_path):
    lookup = L.StringLookup(output_mode="count")
    lookup.adapt(DATA)
    inputs = ef.Input(shape=(4,), dtype="string")
    model = ef.Model(inputs, L.Dense(2)(lookup(inputs)))
    path = model.save(str(tmp_path / "model.h5"))
    restored = ef.models.load_model(path)
    np.testing.assert_allclose(restored.predict(DATA, verbose=0), model.predict(DATA, verbose=0),
                               rtol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_tokens": 1}, r"max_tokens.*greater than 1.*max_tokens=1"),
    ({"pad_to_max_tokens": True}, r"pad_to_max_tokens=True needs `max_tokens`"),
    ({"num_oov_indices": -1}, r"num_oov_indices.*>= 0.*-1"),
    ({"output_mode": "bag"}, r"output_mode.*one of.*'bag'"),
    ({"invert": True, "output_mode": "count"}, r"must be 'int' when `invert`"),
    ({"sparse": True}, r"sparse=True is not supported"),
    ({"salt": "x"}, r"salt` must be an int or a tuple of 2 ints.*'x'"),
    ({"idf_weights": [1.0], "vocabulary": ["a"]}, r"idf_weights.*only be set.*tf_idf"),
    ({"output_mode": "tf_idf", "vocabulary": ["a"]}, r"idf_weights` argument must also"),
    ({"vocabulary": ["a", "a"]}, r"repeated terms \['a'\]"),
    ({"vocabulary": []}, r"cannot set an empty vocabulary"),
    ({"vocabulary": ["a", "", "b"], "mask_token": ""}, r"reserved mask_token='' at .*index 1"),
    ({"vocabulary": ["a", "b", "c"], "max_tokens": 3}, r"4 entries.*max_tokens=3"),
    ({"vocabulary": "/no/such/vocab.txt"}, r"vocabulary file '/no/such/vocab.txt' does not"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        L.StringLookup(**kwargs)


def test_bad_inputs_and_states_are_refused():
    with pytest.raises(ValueError, match=r"StringLookup expects string inputs.*int64"):
        L.StringLookup(vocabulary=VOCAB)(np.array([1, 2]))
    with pytest.raises(ValueError, match=r"IntegerLookup expects integer inputs.*<U1"):
        L.IntegerLookup(vocabulary=[1])(np.array(["a"]))
    with pytest.raises(ValueError, match=r"IntegerLookup expects integer inputs.*float"):
        L.IntegerLookup(vocabulary=[1])(np.array([1.5]))
    with pytest.raises(ValueError, match=r"invert=True expects integer indices.*<U1"):
        L.StringLookup(vocabulary=VOCAB, invert=True)(np.array(["a"]))
    with pytest.raises(ValueError, match=r"Cannot adapt layer 'fixed'.*static vocabulary"):
        L.StringLookup(vocabulary=VOCAB, name="fixed").adapt(["a"])
    with pytest.raises(RuntimeError, match=r"vocabulary must be set before.*adapt"):
        L.StringLookup(output_mode="multi_hot")(["a"])
    with pytest.raises(TypeError, match=r"adapt\(\) takes.*Received: data of type int"):
        L.StringLookup().adapt(3)
    with pytest.raises(ValueError, match=r"only vocabulary_dtype='int64'.*int32"):
        L.IntegerLookup(vocabulary_dtype="int32")
    with pytest.raises(ValueError, match=r"oov_method.*'floormod' or 'farmhash'.*'md5'"):
        L.IntegerLookup(oov_method="md5")
    with pytest.raises(ValueError, match=r"idf_weights` must be set"):
        L.StringLookup(output_mode="tf_idf").set_vocabulary(["a"])
    with pytest.raises(ValueError, match=r"idf_weights` must be 1-D with one weight.*\(1,\)"):
        L.StringLookup(output_mode="tf_idf").set_vocabulary(["a", "b"], idf_weights=[1.0])
    with pytest.raises(ValueError, match=r"not an integer: 'x'"):
        L.IntegerLookup()._token_from_line("x")

"""`ef.string`, the text dtype, against TensorFlow's `tf.string`: equality, conversion,
`numpy()`, printing, specs, datasets. Expected values recorded from TensorFlow 2.21."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import eagerflow as ef


def test_the_dtype_compares_equal_to_its_names_and_numpys_object_dtype():
    t = ef.constant(["a", "b"])
    assert t.dtype == "string" and t.dtype == ef.string and t.dtype is ef.string
    assert not t.dtype != "string"
    # tf.string == np.object_ == object == np.dtype("O"), and np.dtype("O") == tf.string
    assert ef.string == np.object_ and ef.string == object and ef.string == np.dtype("O")
    assert np.dtype("O") == ef.string
    assert ef.string != "float32" and ef.string != ef.float32 and ef.string != None  # noqa: E711
    assert ef.string != "not a dtype"
    assert {ef.string: 1}[np.dtype(object)] == 1 and hash(ef.string) == hash(ef.string)
    assert ef.dtypes.as_dtype("string") is ef.string is ef.dtypes.string
    assert ef.dtypes.as_dtype(str) is ef.string and ef.dtypes.as_dtype(bytes) is ef.string
    assert ef.dtypes.as_dtype(ef.string) is ef.string
    assert np.dtype(ef.string) == np.dtype(object) and np.empty(2, ef.string).dtype == object
    assert (repr(ef.string), str(ef.string), ef.string.name) == ("ef.string", "string",
                                                                 "string")
    assert pickle.loads(pickle.dumps(ef.string)) is ef.string


def test_text_is_stored_as_bytes_and_numpy_gives_what_tensorflow_gives():
    # tf.constant(["a", b"b\x00", "é"]).numpy(), tf.constant("a").numpy(), ...
    got = ef.constant(["a", b"b\x00", "é"]).numpy()
    assert got.dtype == object and got.tolist() == [b"a", b"b\x00", b"\xc3\xa9"]
    assert ef.constant([["x"], ["yz"]]).numpy().tolist() == [[b"x"], [b"yz"]]
    assert ef.constant(np.array(["u"])).numpy().tolist() == [b"u"]
    assert ef.constant(np.array([b"s"])).numpy().tolist() == [b"s"]
    scalar = ef.constant("a").numpy()
    assert type(scalar) is bytes and scalar == b"a" and ef.constant("").numpy() == b""
    assert ef.constant("é").numpy().decode() == "é"
    empty = ef.constant([], ef.string).numpy()
    assert empty.dtype == object and empty.shape == (0,)
    assert np.asarray(ef.constant("a")).shape == ()  # __array__ stays an array


def test_printing_matches_tensorflow():
    assert str(ef.constant("Gray wolf")) == "ef.Tensor(b'Gray wolf', shape=(), dtype=string)"
    assert str(ef.constant(["a", "bb"])) == "ef.Tensor([b'a' b'bb'], shape=(2,), dtype=string)"
    assert repr(ef.TensorSpec([None], ef.string)) == (
        "TensorSpec(shape=(None,), dtype=string, name=None)")
    assert ef.TensorSpec([None], "string") == ef.TensorSpec([None], ef.string)


def test_comparison_and_concatenation_as_tensorflow():
    np.testing.assert_array_equal((ef.constant(["a", "b"]) == "a").numpy(), [True, False])
    assert (ef.constant("ab") + ef.constant("c")).numpy() == b"abc"
    assert ef.function(lambda a: a + a)(ef.constant("a")).numpy() == b"aa"


def test_conversions_between_text_and_numbers_are_refused():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Cannot convert 1 to dtype string.*ef.strings.as_string"):
        ef.constant(1, ef.string)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Cannot convert '1' to dtype float32: it holds strings.*to_number"):
        ef.constant("1", ef.float32)


def test_variables_specs_inputs_and_datasets_carry_the_dtype():
    v = ef.Variable(["a", "b"])
    assert v.dtype == "string" and not v.trainable
    v.assign(["c", "d"])
    assert v.numpy().tolist() == [b"c", b"d"]
    assert ef.Variable("abc").numpy() == b"abc"  # tf.Variable("abc").numpy()
    assert ef.layers.Input(shape=(1,), dtype="string").dtype == "string"
    # {'t': TensorSpec(shape=(), dtype=tf.string, name=None), 'n': ... tf.int32 ...}
    ds = ef.data.Dataset.from_tensor_slices({"t": ["a", "b"], "n": [1, 2]})
    assert ds.element_spec["t"] == ef.TensorSpec((), ef.string)
    [batch] = list(ds.batch(2).as_numpy_iterator())
    assert batch["t"].dtype == object and batch["t"].tolist() == [b"a", b"b"]
    padded = list(ef.data.Dataset.from_tensor_slices(["x", "yy", "z"]).padded_batch(2)
                  .as_numpy_iterator())
    assert [p.tolist() for p in padded] == [[b"x", b"yy"], [b"z"]]


def test_a_string_dataset_round_trips_through_a_file_cache(tmp_path):
    text = ef.data.Dataset.from_tensor_slices(["a\x00", "", "é"]).cache(str(tmp_path / "c"))
    first = list(text.as_numpy_iterator())
    assert first == [b"a\x00", b"", b"\xc3\xa9"] == list(text.as_numpy_iterator())


@given(st.lists(st.text(), max_size=4))
def test_any_text_converts_to_its_utf8_bytes(texts):
    assert ef.constant(texts, ef.string).numpy().tolist() == [t.encode() for t in texts]


def test_zeros_are_empty_strings_and_casts_to_or_from_text_are_refused():
    # tf.zeros([2], tf.string), tf.zeros_like(tf.constant(["a"])), tf.fill([2], "a")
    assert ef.zeros([2], ef.string).numpy().tolist() == [b"", b""]
    assert ef.zeros_like(ef.constant(["a"])).numpy().tolist() == [b""]
    assert ef.fill([2], "a").numpy().tolist() == [b"a", b"a"]
    with pytest.raises(ef.errors.InvalidArgumentError, match="dtype string has no one"):
        ef.ones([2], "string")
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"no one.*\[Op:OnesLike\]"):
        ef.ones_like(ef.constant(["a"]))
    # tf.cast(1, tf.string): UnimplementedError "Cast int32 to string is not supported"
    with pytest.raises(ef.errors.UnimplementedError,
                       match=r"Cast int32 to string is not supported: use ef.strings.as_string"):
        ef.cast([1, 2], ef.string)
    with pytest.raises(ef.errors.UnimplementedError, match="Cast string to float32 is not"):
        ef.cast(["1"], ef.float32)
    assert ef.cast(["a"], "string").numpy().tolist() == [b"a"]

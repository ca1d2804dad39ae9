"""ef.strings against Python's own string functions (hypothesis), inside ef.function and
Dataset.map, and its errors. TensorFlow's values are in tests/conformance/tf/."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.core import dispatch

S = ef.strings
texts = st.lists(st.text(max_size=8), min_size=1, max_size=4)
ascii_texts = st.lists(st.text(st.characters(max_codepoint=127), max_size=8), min_size=1,
                       max_size=4)


def _bytes(values):
    return [v.encode() for v in values]


@given(texts)
def test_case_strip_and_length_match_python(values):
    encoded = _bytes(values)
    assert S.lower(values).numpy().tolist() == [b.lower() for b in encoded]
    assert S.upper(values).numpy().tolist() == [b.upper() for b in encoded]
    assert S.lower(values, encoding="utf-8").numpy().tolist() == _bytes(
        v.lower() for v in values)
    assert S.strip(values).numpy().tolist() == [b.strip() for b in encoded]
    assert S.length(values).numpy().tolist() == [len(b) for b in encoded]
    assert S.length(values, unit="UTF8_CHAR").numpy().tolist() == [len(v) for v in values]


@given(texts, st.sampled_from([None, ",", "ab"]), st.integers(-1, 3))
def test_split_matches_python(values, sep, maxsplit):
    for value in values:
        expected = value.encode().split(None if sep is None else sep.encode(), maxsplit)
        assert S.split(value, sep, maxsplit).numpy().tolist() == expected
    rows = S.split(values, sep, maxsplit, padding=b"<pad>").numpy()
    for row, value in zip(rows.tolist(), values, strict=True):
        pieces = value.encode().split(None if sep is None else sep.encode(), maxsplit)
        assert row[:len(pieces)] == pieces and set(row[len(pieces):]) <= {b"<pad>"}


@given(texts, st.text(max_size=2))
def test_join_reduce_join_and_unicode_split_match_python(values, separator):
    sep = separator.encode()
    assert S.reduce_join(values, separator=separator).numpy() == sep.join(_bytes(values))
    assert S.join([values, values], separator=separator).numpy().tolist() == [
        sep.join([b, b]) for b in _bytes(values)]
    for value in values:
        assert S.unicode_split(value, "UTF-8").numpy().tolist() == _bytes(value)


@given(ascii_texts, st.integers(-3, 3), st.integers(-1, 4))
def test_substr_matches_slicing(values, pos, size):
    for value in values:
        if not -len(value) <= pos <= len(value):
            continue
        start = pos % len(value) if pos < 0 else pos
        end = len(value) if size < 0 else start + size
        assert S.substr(value, pos, size).numpy() == value.encode()[start:end]


@given(st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=4))
def test_to_number_reads_back_repr(values):
    text = [repr(v) for v in values]
    np.testing.assert_array_equal(S.to_number(text).numpy(), np.float32(values))


def test_the_ops_run_in_ef_function_and_dataset_map():
    @ef.function
    def standardize(x):
        return S.lower(S.regex_replace(x, "<br />", " "))

    x = ef.constant(["A<br />B", "C"])
    np.testing.assert_array_equal(standardize(x).numpy(), [b"a b", b"c"])
    words = ef.function(lambda t: S.split(t))
    spec = ef.TensorSpec((), ef.string)
    concrete = words.get_concrete_function(spec)
    assert concrete(ef.constant("a b c")).numpy().tolist() == [b"a", b"b", b"c"]
    assert "StringSplitV2" in str(concrete.graph) and "string[None]" in str(concrete.graph)
    lines = ef.data.Dataset.from_tensor_slices(["1 2", "3"])
    numbers = lines.map(lambda t: S.reduce_join(S.split(t), separator="+"))
    assert list(numbers.as_numpy_iterator()) == [b"1+2", b"3"]
    assert numbers.element_spec == ef.TensorSpec((), ef.string)


def test_string_ops_are_not_differentiable_and_never_recorded():
    for name in ("StringLower", "StringUpper", "StringStrip", "RegexReplace", "RegexFullMatch",
                 "StringSplitV2", "UnicodeSplit", "StringJoin", "ReduceJoin", "StringLength",
                 "Substr", "StringToNumber", "AsString"):
        assert not dispatch.OPS[name].differentiable
    x = ef.Variable([1.5, 2.0])
    with ef.GradientTape() as tape:
        y = S.to_number(S.as_string(x * 2.0)) * x
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 4.0]  # the parsed copy is a constant


def test_errors_name_the_op_and_what_was_expected():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"input must be a string tensor, got dtype int32 .*as_string"
                             r".*\[Op:StringLower\]"):
        S.lower(ef.constant([1]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Cannot convert \[1\] to dtype "
                                                             "string"):
        S.upper([1])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"RaggedTensor for a batch.*padding=b''.*\[Op:StringSplitV2\]"):
        S.split(["a b", "c"])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"RaggedTensor.*UnicodeSplit"):
        S.unicode_split(["ab"], "UTF-8")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"padding must be bytes, str or None. Received: padding=0"):
        S.split(["a"], padding=0)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Pattern must be scalar"):
        S.regex_full_match("a", ef.constant(["a", "b"]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Rewrite must be a string"):
        S.regex_replace("a", "a", ef.constant(1))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"pos and len must be integer tensors, got float64 and float64"):
        S.substr("abc", 1.0, 1.0)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Incompatible shapes: \(2,\) vs"):
        S.substr(["ab", "cd"], [0, 0, 0], [1, 1, 1])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="scientific and shortest format not supported for datatype int32"):
        S.as_string([1], shortest=True)


def test_eager_tensor_patterns_and_rewrites_work_like_python_strings():
    pattern, rewrite = ef.constant(r"(\d)"), ef.constant(r"<\1>")
    assert S.regex_replace("a1b2", pattern, rewrite).numpy() == b"a<1>b<2>"
    assert S.regex_replace(b"\xff1", r"\d", "#").numpy() == b"\xff#"  # invalid UTF-8 kept

"""ef.utils.pad_sequences against a plain-Python transcription of Keras's rules."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import eagerflow as ef


def _reference(sequences, maxlen, padding, truncating, value):
    maxlen = max(map(len, sequences), default=0) if maxlen is None else maxlen
    rows = []
    for s in sequences:
        s = list(s)
        if len(s) > maxlen:
            s = s[len(s) - maxlen:] if truncating == "pre" else s[:maxlen]
        pad = [value] * (maxlen - len(s))
        rows.append(pad + s if padding == "pre" else s + pad)
    return np.array(rows, dtype="int32").reshape(len(sequences), maxlen)


@given(st.lists(st.lists(st.integers(-100, 100), max_size=6), min_size=1, max_size=5),
       st.one_of(st.none(), st.integers(0, 7)), st.sampled_from(["pre", "post"]),
       st.sampled_from(["pre", "post"]), st.integers(-3, 3))
def test_matches_the_rules(sequences, maxlen, padding, truncating, value):
    got = ef.utils.pad_sequences(sequences, maxlen=maxlen, padding=padding,
                                 truncating=truncating, value=value)
    np.testing.assert_array_equal(got, _reference(sequences, maxlen, padding, truncating,
                                                  value))
    assert got.dtype == np.int32


def test_trailing_dimensions_and_floats():
    got = ef.utils.pad_sequences([np.ones((2, 3)), np.ones((1, 3))], dtype="float32",
                                 value=0.5)
    assert got.shape == (2, 2, 3) and got.dtype == np.float32
    np.testing.assert_array_equal(got[1, 0], [0.5] * 3)


def test_text_needs_an_object_dtype():
    got = ef.utils.pad_sequences([["a", "b"], ["c"]], dtype=object, value="<pad>")
    assert got.tolist() == [["a", "b"], ["<pad>", "c"]]
    with pytest.raises(ValueError, match="value '<pad>' is a string"):
        ef.utils.pad_sequences([["a"]], value="<pad>")


@pytest.mark.parametrize("kwargs, match", [
    ({"padding": "middle"}, "padding must be 'pre' or 'post'"),
    ({"truncating": "both"}, "truncating must be"),
    ({"maxlen": -1}, "maxlen must be non-negative"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.utils.pad_sequences([[1]], **kwargs)


def test_bad_sequences():
    with pytest.raises(ValueError, match="sequence 1 is not a sequence"):
        ef.utils.pad_sequences([[1], 5])
    with pytest.raises(ValueError, match="sequence 1 has items of shape"):
        ef.utils.pad_sequences([np.ones((1, 2)), np.ones((1, 3))])

"""Runs one recorded `tf.strings` case on `ef.strings` and compares (shared by the
``test_strings_*.py`` files).

A case is ``(op name, args, kwargs, expected)``: an argument ``(dtype name, value)``
is a tensor of that dtype; ``expected`` is ``("ok", dtype name, shape, value)``
(floats as ``("floats", [repr, ...])``) or ``("error", TF's error class, TF's message)``,
recorded from TensorFlow 2.21. TensorFlow's ragged results are recorded as
``.to_tensor(default_value=padding)``, eagerflow's ``padding=`` argument.
"""

import re

import numpy as np
import pytest

import eagerflow as ef

_DTYPES = ("int8", "int64", "float64", "float32", "bool", "complex64", "string")


def _argument(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] in _DTYPES:
        return ef.constant(value[1], ef.dtypes.as_dtype(value[0]))
    return value


def run(name, args, kwargs):
    kwargs = dict(kwargs)
    if "out_type" in kwargs:
        kwargs["out_type"] = ef.dtypes.as_dtype(kwargs["out_type"])
    return getattr(ef.strings, name)(*[_argument(a) for a in args], **kwargs)


def check(case, refused=None):
    """Checks `case`; `refused` is the message eagerflow gives where it raises and
    TensorFlow returns a value (a documented difference)."""
    name, args, kwargs, expected = case
    if expected[0] == "error" or refused is not None:
        message = refused if refused is not None else re.escape(expected[2])
        error = ef.errors.OutOfRangeError if expected[1] == "OutOfRangeError" else \
            ef.errors.InvalidArgumentError
        with pytest.raises(error, match=message):
            run(name, args, kwargs)
        return
    _, dtype, shape, value = expected
    result = run(name, args, kwargs)
    assert result.dtype == dtype
    assert result.shape == tuple(shape)
    array = np.asarray(result)
    if isinstance(value, tuple) and value[0] == "floats":
        assert [repr(x) for x in array.reshape(-1).tolist()] == value[1]
    else:
        assert array.tolist() == value

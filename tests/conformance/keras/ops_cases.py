"""Shared helpers of the `keras.ops` conformance tables (test_ops_*.py): each row is
`(name, args, kwargs, expected)`, the expected value recorded from Keras 3.15 (TensorFlow
backend) as a literal; arrays are `A(values, dtype)`."""

import numpy as np

import eagerflow as ef

INF = float("inf")
NAN = float("nan")


def A(values, dtype):  # noqa: N802 - short on purpose: the tables are long
    return np.asarray(values, dtype=dtype)


def as_inputs(value):
    """Arrays become eagerflow tensors (of their dtype); Python values stay as they are."""
    if isinstance(value, np.ndarray):
        return ef.constant(value)
    if isinstance(value, tuple):
        return tuple(as_inputs(v) for v in value)
    if isinstance(value, dict):
        return {k: as_inputs(v) for k, v in value.items()}
    return value


def check(actual, expected, where=""):
    """Same structure, dtype, shape and values (to float32 tolerance) as Keras."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            check(a, e, f"{where}[{i}]")
        return
    if not isinstance(expected, np.ndarray):
        assert actual == expected, where
        return
    assert isinstance(actual, ef.Tensor), f"{where}: {type(actual).__name__}, not a tensor"
    value = actual.numpy()
    assert value.dtype == expected.dtype, f"{where}: dtype {value.dtype} != {expected.dtype}"
    assert value.shape == expected.shape, f"{where}: shape {value.shape} != {expected.shape}"
    if expected.dtype.kind == "f":
        tol = 1e-3 if expected.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(value, expected, err_msg=where)

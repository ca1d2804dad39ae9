"""Replays a Keras test's calls on the eagerflow class of the same name.

A recorded case is ``(keras_test, class_name, args, kwargs, calls)``: the object is built as
``cls(*args, **kwargs)``, then each ``(method, args, kwargs, expected)`` in ``calls`` is run
in order (``"__call__"``, ``"update_state"``, ``"result"``, ``"reset_state"``) and the
value of a call or ``result`` compared with the one Keras 3.15 returned, or, when ``expected`` is
``("raises", name)``, the call must raise (the builtin exception of that name, or any
``Exception`` for a Keras-specific one).
"""

import builtins
from typing import Any

import numpy as np

RTOL = 1e-5
ATOL = 1e-6


def A(data: Any, dtype: str) -> np.ndarray:  # noqa: N802 - reads like np.array in tables
    """An array literal of a recorded case (bfloat16 values were recorded as float32)."""
    return np.array(data, "float32" if dtype == "bfloat16" else dtype)


def check_result(got: Any, expected: Any, where: str) -> None:
    """Compares one returned value (array, scalar or dict of them) with Keras's."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(expected), where
        for key, value in expected.items():
            check_result(got[key], value, f"{where}[{key!r}]")
        return
    if isinstance(expected, (list, tuple)) and expected and not np.isscalar(expected[0]):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            check_result(g, e, f"{where}[{i}]")
        return
    got_np = np.asarray(got.numpy() if hasattr(got, "numpy") else got, "float64")
    np.testing.assert_allclose(got_np, np.asarray(expected, "float64"), rtol=RTOL, atol=ATOL,
                               err_msg=where)


def raised(name: str) -> type[BaseException]:
    """The exception type a Keras error of ``name`` corresponds to."""
    found = getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, Exception) else Exception


def replay(factory: Any, args: list[Any], kwargs: dict[str, Any], calls: list[tuple]) -> None:
    """Builds ``factory(*args, **kwargs)`` and checks every recorded call against Keras."""
    import pytest

    obj = factory(*args, **kwargs)
    for step, (method, call_args, call_kwargs, expected) in enumerate(calls):
        where = f"call {step}: {method}"
        if isinstance(expected, tuple) and expected[:1] == ("raises",):
            with pytest.raises(raised(expected[1])):
                getattr(obj, method)(*call_args, **call_kwargs)
            continue
        got = getattr(obj, method)(*call_args, **call_kwargs)
        if method in ("__call__", "result"):  # what update_state returns is not Keras's API
            check_result(got, expected, where)


def assert_same(got: Any, expected: Any, where: str = "") -> None:
    """Structures equal (dict keys, list lengths, strings), numbers close (NaN equals NaN)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(expected), f"{where}: {sorted(got)} != {sorted(expected)}"
        for key in expected:
            assert_same(got[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)), f"{where}: {got!r}"
        assert len(got) == len(expected), f"{where}: {got!r} != {expected!r}"
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, (str, bool)) or expected is None:
        assert got == expected, f"{where}: {got!r} != {expected!r}"
    else:
        np.testing.assert_allclose(float(got), expected, rtol=RTOL, atol=ATOL, err_msg=where)


def outcome(scenario: Any, namespace: Any) -> Any:
    """``scenario(namespace)``, or ``{"raises": name}`` with the builtin exception type the
    error it raised derives from (the same rule recorded Keras's outcome)."""
    try:
        return scenario(namespace)
    except Exception as error:  # noqa: BLE001 - the type is the outcome compared
        builtin = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        return {"raises": builtin.__name__}


def replay_layer(factory: Any, args: list[Any], kwargs: dict[str, Any], call_args: list[Any],
                 call_kwargs: dict[str, Any], weights: list[Any], expected: Any) -> None:
    """Builds the layer, gives it Keras's weights, calls it and compares the output."""
    layer = factory(*args, **kwargs)
    if weights:
        layer(*call_args, **call_kwargs)  # builds the weights
        layer.set_weights(weights)
    check_result(layer(*call_args, **call_kwargs), expected, type(layer).__name__)

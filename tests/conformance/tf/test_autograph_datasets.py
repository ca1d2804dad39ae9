"""TensorFlow's AutoGraph reference test `autograph/tests/datasets_test.py` on
`ef.function`: each function gives inside `ef.function` what it gives eagerly, as in
TensorFlow 2.21 (the exceptions are TensorFlow's too)."""

import pytest

import eagerflow as ef


def dataset_no_vars_loop(ds):
    for e in ds:
        ef.print(e)


def iterator_no_vars_loop(ds):
    for e in iter(ds):
        ef.print(e)


def dataset_single_var_loop(ds):
    s = ef.constant(0, dtype=ef.int64)
    for e in ds:
        s = s * 10 + e
    return s


def iterator_single_var_loop(ds):
    s = ef.constant(0, dtype=ef.int64)
    for e in iter(ds):
        s = s * 10 + e
    return s


def dataset_two_vars_loop(ds):
    s = ef.constant(0, dtype=ef.int64)
    p = ef.constant(1, dtype=ef.int64)
    for e in ds:
        s += e
        p *= e
    return s, p


def iterator_two_vars_loop(ds):
    s = ef.constant(0, dtype=ef.int64)
    p = ef.constant(1, dtype=ef.int64)
    for e in iter(ds):
        s += e
        p *= e
    return s, p


def dataset_loop_with_break(ds):
    s = ef.constant(0, dtype=ef.int64)
    for e in ds:
        s = s * 10 + e
        if s > 100:
            break
    return s


def iterator_loop_with_break(ds):
    s = ef.constant(0, dtype=ef.int64)
    for e in iter(ds):
        s = s + e
        if s > 100:
            break
    return s


def iterator_resuming_loop(ds):
    s = ef.constant(0, dtype=ef.int64)
    itr = iter(ds)
    for e in itr:
        s = s * 10 + e
        break
    for e in itr:
        s = s * 10 + e
        break
    for e in itr:
        s = s * 10 + e
    return s


def iterator_next(ds):
    itr = iter(ds)
    return next(itr)


def iterator_next_multiple_calls(ds):
    itr = iter(ds)
    return 10 * next(itr) + next(itr)


def iterator_next_in_loop(ds, n):
    itr = iter(ds)
    s = ef.constant(0, dtype=ef.int64)
    for _ in range(n):
        s = s * 10 + next(itr)
    return s


def iterator_next_stopping(ds, cond):
    itr = iter(ds)
    while cond:
        next(itr)


def iterator_next_with_catching_stop_iteration(ds, cond):
    itr = iter(ds)
    try:
        while cond:
            next(itr)
    except StopIteration:
        pass


def _ds():
    return ef.data.Dataset.range(7)


def _values(result):
    if isinstance(result, (tuple, list)):
        return [int(v) for v in result]
    return None if result is None else int(result)


@pytest.mark.parametrize("fn, args", [
    (dataset_no_vars_loop, ()),
    (iterator_no_vars_loop, ()),
    (dataset_single_var_loop, ()),
    (iterator_single_var_loop, ()),
    (dataset_two_vars_loop, ()),
    (iterator_two_vars_loop, ()),
    (dataset_loop_with_break, ()),
    (iterator_loop_with_break, ()),
    (iterator_resuming_loop, ()),
    (iterator_next, ()),
    (iterator_next_multiple_calls, ()),
    (iterator_next_in_loop, (7,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_function_matches_eager(fn, args, capfd):
    eager = _values(fn(_ds(), *args))
    eager_out = capfd.readouterr().err
    traced = _values(ef.function(fn)(_ds(), *args))
    assert traced == eager
    assert capfd.readouterr().err == eager_out


def test_iterator_next_stopping():
    # graph ops raise OutOfRangeError where eager code raises StopIteration
    with pytest.raises(ef.errors.OutOfRangeError):
        ef.function(iterator_next_stopping)(_ds(), ef.constant(True))


def test_iterator_next_with_catching_stop_iteration():
    with pytest.raises(ef.errors.OutOfRangeError):
        ef.function(iterator_next_with_catching_stop_iteration)(_ds(), ef.constant(True))

"""AutoGraph: Python control flow on tensors, converted for `ef.function`.

Inside a traced function, ``if``/``while``/``for`` whose condition (or iterable) is a
tensor cannot run as Python: the value is only known when the graph runs. `convert`
rewrites the function's source once, before its first trace, so that each such statement
calls this module at trace time, which decides by the *value it gets*:

* a Python value (a bool, an int, a list, a `range`): the statement runs as plain Python,
  exactly as written (unrolled, for loops);
* a tensor: the statement becomes `ef.cond` or `ef.while_loop`, whose branches and body
  are the statement's own blocks. The variables a block assigns and the code after it
  uses are the outputs of the conditional or the loop variables.

The rewrite, in the spirit of TensorFlow's AutoGraph (its design is public), works on the
syntax tree:

1. ``return``, ``break`` and ``continue`` become data: the code after an ``if`` that may
   leave the block moves into the branches that do not (so early returns need no flags), a
   ``break`` sets a flag the loop condition tests, and a ``return`` inside a loop sets a
   flag and the return value and breaks out;
2. each ``if``/``while``/``for`` becomes nested functions for its blocks (sharing the
   function's variables with ``nonlocal``) and a call to `if_stmt`, `while_stmt` or
   `for_stmt`; ``and``/``or``/``not`` and ``x if c else y`` in conditions become
   `and_`/`or_`/`not_`/`if_exp`, and ``range`` in a ``for`` becomes `range_`;
3. the new function keeps the original's globals, closure cells, defaults and line
   numbers, so errors name the user's file and line.

Layers' ``call`` methods are converted too when they run inside a converted trace.
Conversion needs the function's source; functions without one (built-ins, lambdas,
code typed into ``python -c``) run as written. ``ef.function(autograph=False)`` turns
conversion off. What cannot be converted raises `ConversionError` naming the line and the
reason.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def collatz_steps(n):
    ...     steps = 0
    ...     while n != 1:
    ...         if n % 2 == 0:
    ...             n = n // 2
    ...         else:
    ...             n = 3 * n + 1
    ...         steps += 1
    ...     return steps
    >>> int(collatz_steps(ef.constant(27)))
    111
    >>> [op.type for op in collatz_steps.get_concrete_function(ef.constant(6)).graph.operations]
    ['Placeholder', 'NotEqual', 'Const', 'While']
"""

from __future__ import annotations

import builtins
import inspect
import os
import sys
import threading
import types
import weakref
from typing import Any

import numpy as np

from eagerflow.core import context, errors, nest, tensor
from eagerflow.core.variable import Variable
from eagerflow.graph import control_flow, conversion, graph, trace
from eagerflow.graph.conversion import ConversionError

_RETVAL = conversion.RETVAL
_PREFIX = conversion.PREFIX


# -- run time: what converted code calls --------------------------------------------------
class Undefined:
    """The value of a variable not assigned on every path (a stand-in that refuses use)."""

    __slots__ = ("name",)

    def __init__(self, name):  # noqa: D107
        self.name = name

    def _error(self, *args, **kwargs):
        raise NameError(
            f"variable {self.name!r} is used, but it is not assigned on every path before "
            "this point: inside ef.function, a variable first assigned in one branch of an "
            "`if` on a tensor, or inside a loop over a tensor, must be assigned before the "
            "statement too (or in every branch)."
        )

    __getattr__ = __call__ = __bool__ = __iter__ = __getitem__ = __len__ = _error
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _error
    __array__ = __index__ = __int__ = __float__ = _error

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"


def ld(getter, name):
    """The value of a variable (or of `obj.attr`, `d["key"]`), or `Undefined` when it has
    none yet."""
    try:
        return getter()
    except (NameError, AttributeError, KeyError, IndexError):
        return Undefined(name)


def is_undefined(value) -> bool:
    """Whether `value` is the `Undefined` stand-in (the setter leaves such items alone)."""
    return isinstance(value, Undefined)


def _is_tensor(value) -> bool:
    return isinstance(value, (tensor.Tensor, Variable))


def _is_graph_tensor(value) -> bool:
    """A tensor whose value is only known when the graph runs."""
    if isinstance(value, Variable):
        return context.thread.tracer is not None
    return graph.is_symbolic(value) and value._const is None


def not_(value):
    """``not value``: `ef.logical_not` for a tensor."""
    if _is_tensor(value):
        from eagerflow.ops import logic

        return logic.logical_not(_as_bool(value))
    return not value


def and_(left, right):
    """``left() and right()``: as Python for Python values and known tensors; for a tensor
    known only when the graph runs, `ef.cond` evaluates `right` only when `left` is true
    (its ops and effects run only then), as TensorFlow's AutoGraph does."""
    a = left()
    if not _is_tensor(a):
        return a and right()
    if not _is_graph_tensor(a):
        return right() if _python_bool(a, "and") else a
    return _lazy_bool(a, right, "and")


def or_(left, right):
    """``left() or right()``: `right` runs only when `left` is false (see `and_`)."""
    a = left()
    if not _is_tensor(a):
        return a or right()
    if not _is_graph_tensor(a):
        return a if _python_bool(a, "or") else right()
    return _lazy_bool(a, right, "or")


def _bool_operand(value, op, side):
    """An operand of a tensor ``and``/``or`` as a scalar bool tensor, or a clear error."""
    from eagerflow.ops import array_ops as array, creation

    if isinstance(value, Variable):
        value = value.value
    if isinstance(value, Undefined):
        value._error()
    if isinstance(value, (bool, np.bool_)):
        return creation.convert_to_tensor(bool(value))
    if not isinstance(value, tensor.Tensor) or value.dtype.kind != "b":
        what = (f"a {value.dtype.name} tensor" if isinstance(value, tensor.Tensor)
                else f"{type(value).__name__} {value!r}")
        raise TypeError(
            f"ef.function: the {side} operand of `{op}` is {what}; `{op}` on a tensor known "
            f"only when the graph runs becomes ef.cond and needs bool tensors (as in "
            f"TensorFlow). Compare first (e.g. `x != 0`), or choose values with ef.where.")
    if any(d != 1 for d in value.shape):
        raise errors.InvalidArgumentError(
            f"ef.function: the {side} operand of `{op}` is a bool tensor of shape "
            f"{tuple(value.shape)}; `{op}` needs a scalar. For an elementwise result use "
            f"ef.logical_{op}, or reduce first (ef.reduce_all, ef.reduce_any).")
    return array.reshape(value, []) if value.shape else value


def _lazy_bool(a, right, op):
    a = _bool_operand(a, op, "left")

    def rest():
        return _bool_operand(right(), op, "right")

    if op == "and":
        return control_flow.cond(a, rest, lambda: a)
    return control_flow.cond(a, lambda: a, rest)


def _as_bool(value):
    from eagerflow.ops import logic, math

    if isinstance(value, Variable):
        value = value.value
    elif not isinstance(value, tensor.Tensor):
        return bool(value)
    return value if value.dtype.kind == "b" else logic.not_equal(value, math.cast(0, value.dtype))


def if_exp(test, body, orelse):
    """``body() if test else orelse()``: `ef.cond` for a tensor condition."""
    if _is_graph_tensor(test):
        return control_flow.cond(_scalar_condition(test, "ef.function", "x if c else y"), body,
                                 orelse)
    return body() if _python_bool(test, "conditional expression") else orelse()


def _scalar_condition(test, where, statement):
    """`test` as a scalar bool tensor, or an error naming the user's line."""
    if tuple(test.shape) not in ((), (1,)) and any(d != 1 for d in test.shape):
        raise errors.InvalidArgumentError(
            f"{where}: the condition of this `{statement}` is a tensor of shape "
            f"{tuple(test.shape)}; it must be a scalar. Reduce it first (ef.reduce_all, "
            "ef.reduce_any), or use ef.where(condition, x, y) for an elementwise choice.")
    return _as_bool(test)


def _python_bool(test, what):
    if isinstance(test, tensor.Tensor):  # an eager tensor or a trace-time constant
        # (`_const` exists on symbolic tensors, which `is_symbolic` checks)
        return bool(test._const) if graph.is_symbolic(test) else bool(test)  # type: ignore[attr-defined]
    return bool(test)


def _tensor_state(value, name, where, what):
    """A state value as a tensor for ef.cond / ef.while_loop, or a clear error."""
    from eagerflow.ops import creation

    if isinstance(value, Variable):
        return value.value
    if isinstance(value, tensor.Tensor):
        return value
    if hasattr(value, "_loop_components"):  # a TensorArray: the tensors it is made of
        return tuple(value._loop_components())
    if isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy":
        return creation.convert_to_tensor(value)
    if _is_structure(value):  # a list or tuple of tensors: one state, as in TensorFlow
        return type(value)(_tensor_state(v, f"{name}[{k}]", where, what)
                           for k, v in enumerate(value))
    if isinstance(value, Undefined):
        raise ValueError(  # TensorFlow's class, at trace time
            f"{where}: variable {name!r} is assigned in only one branch of an `if` whose "
            f"condition is a tensor, and used afterwards: assign it in both branches (or "
            "before the `if`)."
        )
    raise TypeError(
        f"{where}: variable {name!r} holds {type(value).__name__} {value!r} {what}; the "
        "values a tensor-dependent `if` or loop changes must be tensors or numbers."
    )


def if_stmt(test, body, orelse, get_state, set_state, names, where):
    """An ``if`` statement: Python when `test` is a Python value, else `ef.cond`."""
    if not _is_graph_tensor(test):
        body() if _python_bool(test, "if") else orelse()
        return
    initial = get_state()
    records = {}

    def branch(fn, label):
        def run():
            set_state(initial)
            fn()
            values = records[label] = get_state()
            # Tensors and numbers are the conditional's outputs; other values (and
            # variables left unassigned) must be the same object in both branches.
            return [_tensor_state(v, n, where, "in a branch")
                    for n, v in zip(names, values, strict=True) if _tensorlike(v)]
        return run

    try:
        result = control_flow.cond(_scalar_condition(test, where, "if"), branch(body, "true"),
                                   branch(orelse, "false"))
    except TypeError as e:
        if "true" in records and "false" in records:
            _explain_mismatch(names, records["true"], records["false"], where, e)
        raise
    final, outputs = [], iter(result)
    for name, a, b in zip(names, records["true"], records["false"], strict=True):
        if _tensorlike(a):
            final.append(next(outputs))
        elif a is b or (isinstance(a, Undefined) and isinstance(b, Undefined)):
            final.append(a)
        else:
            _explain_mismatch([name], [a], [b], where, None)
    set_state(final)


def _tensorlike(value) -> bool:
    return _is_tensor(value) or isinstance(value, (bool, int, float)) or (
        type(value).__module__ == "numpy") or _is_structure(value)


def _is_structure(value) -> bool:
    """A plain list or tuple of tensors (and numbers) with at least one tensor."""
    return (type(value) in (list, tuple) and any(_is_tensor(v) or _is_structure(v)
                                                 for v in value)
            and all(_tensorlike(v) for v in value))


def _explain_mismatch(names, true_values, false_values, where, error):
    tensors = []
    for name, a, b in zip(names, true_values, false_values, strict=True):
        if isinstance(a, Undefined) != isinstance(b, Undefined):
            branch = "else" if isinstance(b, Undefined) else "if"
            raise ValueError(  # TensorFlow's class, at trace time
                f"{where}: {name!r} must also be assigned in the {branch} branch: the `if` "
                "depends on a tensor, so both branches run in the graph and the variable "
                "must have a value after either.") from None
        if name == _RETVAL and (a is None) != (b is None):
            raise TypeError(
                f"{where}: a `return` depends on a tensor condition, but another path of the "
                "`if` (or of the loop around it) returns None: inside ef.function both run in "
                "the graph, so every path must return a value of the same kind. Return a "
                "value after the `if`; inside a loop, assign the result, `break`, and return "
                "it after the loop.") from None
        if _tensorlike(a) != _tensorlike(b) or (not _tensorlike(a) and a is not b):
            raise TypeError(
                f"{where}: {name!r} is {type(a).__name__} in the if branch and "
                f"{type(b).__name__} in the else branch of an `if` that depends on a tensor; "
                "only tensors and numbers may differ between the branches.") from None
        if _tensorlike(a):
            tensors.append(name)
    if error is not None and "output " in str(error):
        index = int(str(error).split("output ")[1].split()[0])
        raise TypeError(f"{where}: variable {tensors[index]!r}: {error}") from None


def while_stmt(test, body, get_state, set_state, names, where):
    """A ``while`` loop: Python while its condition is a Python value, else `ef.while_loop`."""
    condition = test()
    if _may_break(condition, names):
        _tensor_loop(test, body, get_state, set_state, names, where)
        return
    if not _is_graph_tensor(condition):
        while _python_bool(condition, "while"):
            body()
            condition = test()
            if _is_graph_tensor(condition):
                raise ConversionError(
                    f"{where}: the loop condition became a tensor after Python iterations "
                    "(a variable of the condition turned into a tensor inside the loop). "
                    "Make it a tensor before the loop (e.g. ef.constant(0)) so the whole loop "
                    "runs in the graph.")
        return
    _tensor_loop(lambda: test(), body, get_state, set_state, names, where)


def _may_break(value, names) -> bool:
    """A loop over a tensor known at trace time (`ef.range(3)`, `i = ef.constant(0)`)
    whose body may `break`: a graph loop, as in TensorFlow, since the `break` may depend
    on a tensor known only when the graph runs (unrolled, it could not)."""
    return (isinstance(value, tensor.Tensor) and context.thread.tracer is not None
            and any(n.startswith(f"{_PREFIX}break_") for n in names))


class _Retype(Exception):
    """A loop variable that started as a Python number changed dtype in the body."""


class _Restart(Exception):
    """A TensorArray whose element shape the body's first write gave: the loop starts
    again with the array's tensors of that shape."""


def _rebuild(initial, values):
    """A loop's values as the Python objects the state held (a TensorArray from its
    tensors); other values as they are."""
    if hasattr(initial, "_from_loop_components"):
        return initial._from_loop_components(tuple(values))
    return values


def _tensor_loop(test, body, get_state, set_state, names, where):
    if _RETVAL in names:
        raise ConversionError(
            f"{where}: `return` inside a loop whose condition is a tensor is not supported: "
            "assign the result to a variable, `break`, and return it after the loop.")
    initial = get_state()
    carried = [i for i, v in enumerate(initial) if not isinstance(v, Undefined)]
    start = {i: _tensor_state(initial[i], names[i], where, "before the loop") for i in carried}
    for _ in range(3):
        try:
            result = _run_tensor_loop(test, body, get_state, set_state, names, where,
                                      initial, carried, start)
            break
        except _Retype as retype:  # `total = 0` then `total += x` (a float): start as float
            index, dtype = retype.args
            from eagerflow.ops import math

            start[index] = math.cast(start[index], dtype)
        except _Restart as restart:
            index, components = restart.args
            start[index] = components
    else:
        raise errors.InternalError(f"{where}: loop variable dtypes do not settle")
    final = list(initial)
    for i, v in zip(carried, result, strict=True):
        final[i] = _rebuild(initial[i], v)
    set_state(final)


def _run_tensor_loop(test, body, get_state, set_state, names, where, initial, carried, start):
    current = list(initial)
    loop_vars = [start[i] for i in carried]

    def load(values):
        for i, v in zip(carried, values, strict=True):
            current[i] = _rebuild(initial[i], v)
        set_state(current)

    def cond_fn(*values):
        load(values)
        return _scalar_condition(test(), where, "loop")

    def body_fn(*values):
        load(values)
        body()
        after = get_state()
        outs = []
        for i in carried:
            value = after[i]
            if isinstance(value, Undefined):
                raise NameError(f"{where}: {names[i]!r} is deleted inside the loop")
            out = _tensor_state(value, names[i], where, "inside the loop")
            if hasattr(initial[i], "_loop_components"):
                if out[0].ndim != start[i][0].ndim:
                    raise _Restart(i, value._loop_start())
                value = out
            outs.append(_same_dtypes(i, value, out, initial[i], start[i], names[i], where))
        return outs

    result = control_flow.while_loop(cond_fn, body_fn, loop_vars)
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _same_dtypes(index, value, out, initial, start, name, where):
    """`out` (a loop variable after the body) with the dtypes of `start`, see `_loop_dtype`."""
    if isinstance(start, (list, tuple)):
        if type(out) is not type(start) or len(out) != len(start):
            raise TypeError(
                f"{where}: loop variable {name!r} is a {type(start).__name__} of "
                f"{len(start)} before the loop but {type(value).__name__} "
                f"{value!r} after one iteration; its structure must stay the same.")
        return type(start)(
            _same_dtypes(index, v, o, s, s, f"{name}[{k}]", where)  # no restart: a TypeError
            for k, (v, o, s) in enumerate(zip(value, out, start, strict=True)))
    if out.dtype != start.dtype:
        return _loop_dtype(index, value, out, initial, start, name, where)
    return out


def _loop_dtype(index, value, out, initial, start, name, where):
    """A loop variable whose dtype changed in the body: a Python number the start dtype
    holds exactly keeps that dtype; a variable that started as a Python number restarts
    with the new dtype (`total = 0` then `total += x`, a float tensor); otherwise a
    TypeError as in TensorFlow (a silent cast would change the values)."""
    from eagerflow.ops import math

    is_number = isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy"
    if is_number and np.asarray(value).size == 1:
        exact = np.asarray(value).astype(start.dtype)
        if exact == np.asarray(value):
            return math.cast(out, start.dtype)
    if not _is_tensor(initial):
        raise _Retype(index, out.dtype)
    raise TypeError(
        f"{where}: loop variable {name!r} is {start.dtype.name} before the loop but "
        f"{out.dtype.name} after one iteration; a loop over a tensor keeps each variable's "
        f"dtype. Cast it before the loop (e.g. {name} = ef.cast({name}, ef.{out.dtype.name})) "
        "or cast the new value back inside it.")


_NO_ITEM = object()  # the end of a Python iterable in `for_stmt`


class _TensorRange:
    """``range(start, limit, delta)`` with a tensor bound, for `for_stmt`."""

    def __init__(self, start, limit, delta):  # noqa: D107
        self.start, self.limit, self.delta = start, limit, delta


def range_(*args):
    """``range(...)`` in a ``for``: the builtin, or a tensor range when a bound is a tensor."""
    if any(_is_graph_tensor(a) for a in args):
        start, limit, delta = (0, args[0], 1) if len(args) == 1 else (
            (args[0], args[1], 1) if len(args) == 2 else args)
        return _TensorRange(start, limit, delta)
    return builtins.range(*(int(a) if isinstance(a, tensor.Tensor) else a for a in args))


def range_call(fn, *args, **kwargs):
    """``fn(...)`` in a ``for``: `ef.range` with a graph-tensor bound loops with
    `ef.while_loop` (its length is only known when the graph runs); any other call runs."""
    from eagerflow.ops import creation

    if fn is not creation.range or not any(
            _is_graph_tensor(a) for a in (*args, *kwargs.values())):
        return converted_call(fn, *args, **kwargs)
    bound = inspect.signature(creation.range).bind(*args, **kwargs).arguments
    start, limit = bound["start"], bound.get("limit")
    if limit is None:
        start, limit = 0, start
    delta, dtype = bound.get("delta", 1), bound.get("dtype")
    if dtype is not None:
        from eagerflow.ops import math

        start, limit, delta = (math.cast(v, dtype) for v in (start, limit, delta))
    return _TensorRange(start, limit, delta)


def for_stmt(iterable, extra_test, body, get_state, set_state, names, where, target=None):
    """A ``for`` loop: Python over Python iterables, `ef.while_loop` over a tensor range or
    a tensor's first axis (`target`: the loop's variable, when it is a plain name used
    after the loop)."""
    if isinstance(iterable, _TensorRange):
        _tensor_for(iterable.start, iterable.limit, iterable.delta, None, extra_test, body,
                    get_state, set_state, names, where, target)
        return
    if _is_graph_tensor(iterable) or (extra_test is not None
                                      and _may_break(iterable, [f"{_PREFIX}break_"])):
        if not iterable.shape:
            raise TypeError(f"{where}: cannot iterate over a scalar tensor")
        from eagerflow.ops import array_ops as array

        _tensor_for(0, array.shape(iterable)[0], 1, iterable, extra_test, body, get_state,
                    set_state, names, where, target)
        return
    if getattr(iterable, "_made_in_trace", True) is False:
        raise ConversionError(
            f"{where}: a `for` loop over an ef.data iterator made outside ef.function is "
            "not supported (the graph cannot see where it ends); loop over the dataset "
            "itself, or call next(iterator) once per call.")
    ran = False
    items = iter(iterable)
    while True:
        # the `break` flag is checked before the next item is taken, as Python does: a
        # loop that breaks leaves the rest of an iterator to the next loop over it
        if extra_test is not None and not _python_bool(extra_test(), "for"):
            break
        item = next(items, _NO_ITEM)
        if item is _NO_ITEM:
            break
        ran = True
        body(item)
        if extra_test is not None and _is_graph_tensor(extra_test()):
            raise ConversionError(
                f"{where}: `break` depends on a tensor inside a loop over a Python iterable "
                f"({type(iterable).__name__}); iterate over a tensor or ef.range instead.")
    if not ran and target is not None and _is_tensor(iterable) and iterable.ndim \
            and context.thread.tracer is not None:
        _zero_target(iterable, get_state, set_state, names, target)


def _zero_target(items, get_state, set_state, names, target, index_dtype=None):
    """Gives the variable of a loop over a tensor (a range when `items` is None) a value
    before the loop when it has none: zero, or zeros of a row's shape (what TensorFlow
    gives after such a loop that never ran; the loop's values replace it)."""
    from eagerflow.ops import math, reduce

    values = list(get_state())
    position = names.index(target)
    if not isinstance(values[position], Undefined):
        return
    if items is None:
        values[position] = math.cast(0, index_dtype)
    elif items.dtype.kind in "iuf":
        values[position] = reduce.reduce_sum(items[:0], axis=0)
    set_state(values)


def _tensor_for(start, limit, delta, items, extra_test, body, get_state, set_state, names,
                where, target=None):
    from eagerflow.ops import creation, logic, math

    counter_name = f"{_PREFIX}itr"
    index = [creation.convert_to_tensor(start)]
    limit = creation.convert_to_tensor(limit)
    index[0] = math.cast(index[0], limit.dtype)
    step_sign: Any = (1 if delta > 0 else -1) if isinstance(delta, int) else None
    delta = math.cast(creation.convert_to_tensor(delta), limit.dtype)
    if step_sign is None:
        step_sign = logic.greater(delta, math.cast(0, delta.dtype))

    if target is not None:
        _zero_target(items, get_state, set_state, names, target, limit.dtype)

    def state():
        return [index[0], *get_state()]

    def restore(values):
        index[0] = values[0]
        set_state(values[1:])

    def test():
        if isinstance(step_sign, int):
            inside = (logic.less if step_sign > 0 else logic.greater)(index[0], limit)
        else:
            inside = math.where(step_sign, logic.less(index[0], limit),
                                logic.greater(index[0], limit))
        if extra_test is None:
            return inside
        return logic.logical_and(inside, _as_bool(extra_test()))

    def step():
        i = index[0]
        item = i if items is None else items[i]
        body(item)
        index[0] = i + delta

    _tensor_loop(test, step, state, restore, [counter_name, *names], where)


_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.RLock()

_LIBRARY_PREFIXES = tuple({p for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_user_function(fn) -> bool:
    """Whether `fn` is the user's Python code (not eagerflow's, a library's or built-in)."""
    if not isinstance(fn, types.FunctionType):
        return False
    filename = fn.__code__.co_filename
    if os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep):
        return False  # eagerflow's own code (a wrapper may carry the user's __module__)
    if filename.startswith("<") and not filename.startswith(("<doctest", "<ipython")):
        return False
    return not (filename.startswith(_LIBRARY_PREFIXES) and "site-packages" in filename)


def converted_call(fn, *args, **kwargs):
    """Calls `fn` converted when it is the user's function or method (converted code calls
    everything through this, while tracing only)."""
    target = fn
    if isinstance(fn, types.MethodType) and _is_user_function(fn.__func__):
        target = convert(fn)
    elif _is_user_function(fn):
        target = convert(fn)
    return target(*args, **kwargs)


def convert(fn):
    """The converted version of the user's function `fn` (cached), or `fn` itself when it
    has nothing to convert, no source to convert from, or is not the user's code
    (eagerflow's own functions, libraries and built-ins are never converted).

    Raises:
        ConversionError: for control flow that cannot be converted (naming the line).

    Examples:
        >>> from eagerflow.graph import autograph
        >>> def relu(x):
        ...     if x > 0:
        ...         return x
        ...     return 0.0 * x
        >>> autograph.convert(relu) is relu, autograph.convert(relu)(3.0)
        (False, 3.0)
    """
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    if getattr(fn, "__ag_converted__", False) or not _is_user_function(fn):
        return fn  # eagerflow's own code, libraries and built-ins run as written
    with _lock:
        try:
            cached = _cache.get(fn)
        except TypeError:
            cached = None
        if cached is not None:
            return cached
        converted = conversion.convert_function(fn, sys.modules[__name__])
        try:
            _cache[fn] = converted
        except TypeError:
            pass
        return converted


def call_converted(fn, *args, **kwargs):
    """Calls `fn` converted when AutoGraph is on for the trace in progress (used by
    `Layer.__call__` for ``call``), else as it is."""
    if not trace.options.autograph or context.thread.tracer is None:
        return fn(*args, **kwargs)
    return convert(fn)(*args, **kwargs)


del nest


_UNSPECIFIED = object()


def set_loop_options(parallel_iterations: Any = _UNSPECIFIED, swap_memory: Any = _UNSPECIFIED,
                     maximum_iterations: Any = _UNSPECIFIED,
                     shape_invariants: Any = _UNSPECIFIED) -> None:
    """Hints for the converted loop it is called in (TensorFlow's
    ``tf.autograph.experimental.set_loop_options``); a no-op elsewhere, as in TensorFlow.

    `parallel_iterations` and `swap_memory` are scheduling hints TensorFlow's runtime
    uses; eagerflow runs a loop's iterations in order and keeps its values in memory, so
    they change nothing. `shape_invariants` is not needed: a loop variable whose shape
    changes between iterations gets unknown (None) dimensions by itself.

    Args:
        parallel_iterations: accepted (a hint).
        swap_memory: accepted (a hint).
        maximum_iterations: not supported (it changes the result): write the bound into
            the loop's condition, or use ``ef.while_loop(..., maximum_iterations=n)``.
        shape_invariants: accepted: a list of ``(variable, shape)`` pairs.

    Raises:
        UnimplementedError: if `maximum_iterations` is given.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function
        ... def total(n):
        ...     s = ef.constant(0)
        ...     for i in ef.range(n):
        ...         ef.autograph.experimental.set_loop_options(parallel_iterations=1)
        ...         s += i
        ...     return s
        >>> total(ef.constant(4))
        ef.Tensor(6, shape=(), dtype=int32)
    """
    del parallel_iterations, swap_memory, shape_invariants
    if maximum_iterations is not _UNSPECIFIED and maximum_iterations is not None:
        raise errors.UnimplementedError(
            "set_loop_options(maximum_iterations=...) is not supported in converted loops: "
            "write the bound into the loop's condition (`while i < n and ...`), or call "
            "ef.while_loop(cond, body, loop_vars, maximum_iterations=n).")

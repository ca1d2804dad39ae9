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

Example:
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

import ast
import builtins
import functools
import inspect
import sys
import textwrap
import threading
import types
import weakref

from eagerflow.core import context, errors, nest, tensor
from eagerflow.core.variable import Variable
from eagerflow.graph import control_flow, graph

_PREFIX = "ag__"
_RETVAL, _DO_RETURN = "ag__retval", "ag__do_return"


class ConversionError(errors.UnimplementedError):
    """A function's control flow cannot be converted for `ef.function` (names the line).

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.autograph import ConversionError
        >>> issubclass(ConversionError, ef.errors.UnimplementedError)
        True
    """


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
    """The value of a variable, or `Undefined` when it has none yet."""
    try:
        return getter()
    except NameError:
        return Undefined(name)


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
    """``left() and right()``: `ef.logical_and` when either side is a tensor."""
    a = left()
    if not _is_tensor(a):
        return a and right()
    from eagerflow.ops import logic

    return logic.logical_and(_as_bool(a), _as_bool(right()))


def or_(left, right):
    """``left() or right()``: `ef.logical_or` when either side is a tensor."""
    a = left()
    if not _is_tensor(a):
        return a or right()
    from eagerflow.ops import logic

    return logic.logical_or(_as_bool(a), _as_bool(right()))


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
        return control_flow.cond(_as_bool(test), body, orelse)
    return body() if _python_bool(test, "conditional expression") else orelse()


def _python_bool(test, what):
    if isinstance(test, tensor.Tensor):  # an eager tensor or a trace-time constant
        return bool(test._const) if graph.is_symbolic(test) else bool(test)
    return bool(test)


def _tensor_state(value, name, where, what):
    """A state value as a tensor for ef.cond / ef.while_loop, or a clear error."""
    from eagerflow.ops import creation

    if isinstance(value, Variable):
        return value.value
    if isinstance(value, tensor.Tensor):
        return value
    if isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy":
        return creation.convert_to_tensor(value)
    if isinstance(value, Undefined):
        raise NameError(
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
        result = control_flow.cond(_as_bool(test), branch(body, "true"),
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
        type(value).__module__ == "numpy")


def _explain_mismatch(names, true_values, false_values, where, error):
    tensors = []
    for name, a, b in zip(names, true_values, false_values, strict=True):
        if isinstance(a, Undefined) != isinstance(b, Undefined):
            branch = "else" if isinstance(b, Undefined) else "if"
            raise NameError(
                f"{where}: {name!r} must also be assigned in the {branch} branch: the `if` "
                "depends on a tensor, so both branches run in the graph and the variable "
                "must have a value after either.") from None
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


class _Retype(Exception):
    """A loop variable that started as a Python number changed dtype in the body."""


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
    else:
        raise errors.InternalError(f"{where}: loop variable dtypes do not settle")
    final = list(initial)
    for i, v in zip(carried, result, strict=True):
        final[i] = v
    set_state(final)


def _run_tensor_loop(test, body, get_state, set_state, names, where, initial, carried, start):
    current = list(initial)
    loop_vars = [start[i] for i in carried]

    def load(values):
        for i, v in zip(carried, values, strict=True):
            current[i] = v
        set_state(current)

    def cond_fn(*values):
        load(values)
        return _as_bool(test())

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
            if out.dtype != start[i].dtype:
                if not _is_tensor(initial[i]) and not isinstance(value, (int, float)):
                    raise _Retype(i, out.dtype)
                if not isinstance(value, tensor.Tensor) or out.dtype.kind == start[i].dtype.kind:
                    from eagerflow.ops import math

                    out = math.cast(out, start[i].dtype)
            outs.append(out)
        return outs

    result = control_flow.while_loop(cond_fn, body_fn, loop_vars)
    return list(result) if isinstance(result, (list, tuple)) else [result]


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


def for_stmt(iterable, extra_test, body, get_state, set_state, names, where):
    """A ``for`` loop: Python over Python iterables, `ef.while_loop` over a tensor range or
    a tensor's first axis."""
    if isinstance(iterable, _TensorRange):
        _tensor_for(iterable.start, iterable.limit, iterable.delta, None, extra_test, body,
                    get_state, set_state, names, where)
        return
    if _is_graph_tensor(iterable):
        if not iterable.shape:
            raise TypeError(f"{where}: cannot iterate over a scalar tensor")
        from eagerflow.ops import array

        _tensor_for(0, array.shape(iterable)[0], 1, iterable, extra_test, body, get_state,
                    set_state, names, where)
        return
    for item in iterable:
        if extra_test is not None and not _python_bool(extra_test(), "for"):
            break
        body(item)
        if extra_test is not None and _is_graph_tensor(extra_test()):
            raise ConversionError(
                f"{where}: `break` depends on a tensor inside a loop over a Python iterable "
                f"({type(iterable).__name__}); iterate over a tensor or ef.range instead.")


def _tensor_for(start, limit, delta, items, extra_test, body, get_state, set_state, names,
                where):
    from eagerflow.ops import creation, logic, math

    counter_name = f"{_PREFIX}itr"
    index = [creation.convert_to_tensor(start)]
    limit = creation.convert_to_tensor(limit)
    index[0] = math.cast(index[0], limit.dtype)
    step_sign = (1 if delta > 0 else -1) if isinstance(delta, int) else None
    delta = math.cast(creation.convert_to_tensor(delta), limit.dtype)
    if step_sign is None:
        step_sign = logic.greater(delta, math.cast(0, delta.dtype))

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


# -- conversion: the source transformation ------------------------------------------------
_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _contains(nodes, kinds, stop=(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
    """Whether any node of `nodes` (not inside nested functions) is one of `kinds`."""
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, stop):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _loop_exits(nodes):
    """Whether `nodes` contain a break/continue of the current loop (not of inner loops)."""
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.While)):
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _always_exits(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _may_exit(stmt, in_loop: bool) -> bool:
    if _contains([stmt], (ast.Return,)):
        return True
    return in_loop and _loop_exits([stmt])


class _Names(ast.NodeVisitor):
    """Names stored and loaded in a block (not inside nested functions)."""

    def __init__(self):  # noqa: D107
        self.stored: list[str] = []
        self.loaded: set[str] = set()
        self.declared: set[str] = set()

    def visit_Name(self, node):  # noqa: N802
        if isinstance(node.ctx, ast.Store) or isinstance(node.ctx, ast.Del):
            if node.id not in self.stored:
                self.stored.append(node.id)
        else:
            self.loaded.add(node.id)

    def visit_Global(self, node):  # noqa: N802
        self.declared.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_FunctionDef(self, node):  # noqa: N802
        if node.name not in self.stored:
            self.stored.append(node.name)  # the def binds its name, its body is its own

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):  # noqa: N802
        for child in ast.walk(node.body):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                self.loaded.add(child.id)

    def visit_AugAssign(self, node):  # noqa: N802
        if isinstance(node.target, ast.Name):
            self.loaded.add(node.target.id)
        self.generic_visit(node)


def _names(nodes) -> _Names:
    visitor = _Names()
    for node in nodes:
        visitor.visit(node)
    return visitor


class _Lowering(ast.NodeTransformer):
    """Step 1: return/break/continue become data (see the module docstring)."""

    def __init__(self, filename):  # noqa: D107
        self.filename = filename
        self.loop_count = 0
        self.loop_flags: list[str | None] = []
        self.uses_return = False

    def block(self, stmts):
        in_loop = bool(self.loop_flags)
        out = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If) and _may_exit(stmt, in_loop):
                rest = stmts[i + 1:]
                body = stmt.body + ([] if _always_exits(stmt.body) else _copy(rest))
                orelse = stmt.orelse + ([] if _always_exits(stmt.orelse) else _copy(rest))
                stmt.body = self.block(body) or [ast.Pass()]
                stmt.orelse = self.block(orelse)
                out.append(stmt)
                return out
            if isinstance(stmt, (ast.While, ast.For)):
                out.extend(self.loop(stmt))
                if _contains([stmt], (ast.Return,)) and stmts[i + 1:]:
                    rest = self.block(stmts[i + 1:])
                    guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(_DO_RETURN)),
                                   body=rest or [ast.Pass()], orelse=[])
                    out.append(_locate(guard, stmt))
                    return out
                continue
            if isinstance(stmt, (ast.With, ast.Try, ast.AsyncWith, ast.AsyncFor)) and \
                    _may_exit(stmt, in_loop):
                raise ConversionError(
                    f"{self.filename}:{stmt.lineno}: `return`, `break` or `continue` inside a "
                    "`with` or `try` block cannot be converted for ef.function. Move it out of "
                    "the block, or use ef.function(autograph=False).")
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list) and not isinstance(
                        stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    setattr(stmt, field, self.block(getattr(stmt, field)) or (
                        [ast.Pass()] if field == "body" else []))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self.block(handler.body) or [ast.Pass()]
            new = self.visit(stmt) if isinstance(
                stmt, (ast.Return, ast.Break, ast.Continue)) else stmt
            out.extend(new if isinstance(new, list) else [new])
            if isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
                return out
        return out

    def loop(self, node):
        self.loop_count += 1
        has_break = _loop_exits(node.body) or _contains(node.body, (ast.Return,))
        flag = f"{_PREFIX}break_{self.loop_count}" if has_break else None
        self.loop_flags.append(flag)
        node.body = self.block(node.body) or [ast.Pass()]
        self.loop_flags.pop()
        orelse = self.block(node.orelse)
        node.orelse = []
        result = []
        if flag:
            result.append(_locate(_assign(flag, ast.Constant(False)), node))
            node.ag_break = flag  # read by the control-flow conversion
        result.append(node)
        if orelse:
            if flag:
                guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(flag)), body=orelse,
                               orelse=[])
                result.append(_locate(guard, node))
            else:
                result.extend(orelse)
        return result

    def visit_Return(self, node):  # noqa: N802
        self.uses_return = True
        value = node.value if node.value is not None else ast.Constant(None)
        stmts = [_assign(_RETVAL, value)]
        if self.loop_flags:
            stmts.append(_assign(_DO_RETURN, ast.Constant(True)))
            stmts.append(_assign(self.loop_flags[-1], ast.Constant(True)))
        return [_locate(s, node) for s in stmts]

    def visit_Break(self, node):  # noqa: N802
        return _locate(_assign(self.loop_flags[-1], ast.Constant(True)), node)

    def visit_Continue(self, node):  # noqa: N802
        return _locate(ast.Pass(), node)


def _copy(stmts):
    import copy

    return [copy.deepcopy(s) for s in stmts]


def _name(name, store=False):
    return ast.Name(id=name, ctx=ast.Store() if store else ast.Load())


def _assign(name, value):
    return ast.Assign(targets=[_name(name, store=True)], value=value)


def _locate(new, old):
    ast.copy_location(new, old)
    return ast.fix_missing_locations(new)


def _lambda(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]), body=body)


def _call(function, args):
    return ast.Call(func=ast.Attribute(value=_name(_PREFIX), attr=function, ctx=ast.Load()),
                    args=args, keywords=[])


class _Conditions(ast.NodeTransformer):
    """and/or/not and conditional expressions, in tests, become runtime calls."""

    def visit_BoolOp(self, node):  # noqa: N802
        self.generic_visit(node)
        function = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for left in reversed(node.values[:-1]):
            result = _call(function, [_lambda(left), _lambda(result)])
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("not_", [node.operand]), node)
        return node

    def visit_IfExp(self, node):  # noqa: N802
        self.generic_visit(node)
        return ast.copy_location(
            _call("if_exp", [node.test, _lambda(node.body), _lambda(node.orelse)]), node)

    def visit_Lambda(self, node):  # noqa: N802
        return node


class _ControlFlow(ast.NodeTransformer):
    """Step 2: if/while/for become calls of `if_stmt`/`while_stmt`/`for_stmt`."""

    def __init__(self, function_node, filename):  # noqa: D107
        self.function = function_node
        self.filename = filename
        self.count = 0
        self.hoisted: set[str] = set()
        all_names = _names(function_node.body)
        self.user_declared = all_names.declared

    def _where(self, node) -> str:
        return f"{self.filename}:{node.lineno}"

    def _state(self, node, assigned):
        """The variables a statement hands on: assigned in it and used elsewhere."""
        outside = _Outside(node)
        outside.visit(self.function)
        names = [n for n in assigned if n in outside.names]
        for name in names:
            if name in self.user_declared:
                raise ConversionError(
                    f"{self._where(node)}: variable {name!r} is declared global or nonlocal "
                    "and assigned inside control flow; ef.function cannot convert that. Use "
                    "ef.function(autograph=False) and ef.cond/ef.while_loop, or keep the "
                    "state in an ef.Variable.")
        self.hoisted.update(names)
        return names

    def _state_functions(self, names, node):
        k = self.count
        get_name, set_name = f"{_PREFIX}get_{k}", f"{_PREFIX}set_{k}"
        values = ast.Tuple(elts=[_call("ld", [_lambda(_name(n)), ast.Constant(n)])
                                 for n in names], ctx=ast.Load())
        getter = _function(get_name, [], [ast.Return(value=values)], [])
        if names:
            target = ast.Tuple(elts=[_name(n, store=True) for n in names], ctx=ast.Store())
            setter_body = [ast.Assign(targets=[target], value=_name(f"{_PREFIX}values"))]
        else:
            setter_body = [ast.Pass()]
        setter = _function(set_name, [f"{_PREFIX}values"], setter_body, names)
        return [_locate(getter, node), _locate(setter, node)], get_name, set_name

    def visit_If(self, node):  # noqa: N802
        assigned = _names(node.body + node.orelse).stored  # before inner blocks become defs
        self.generic_visit(node)
        self.count += 1
        k = self.count
        names = self._state(node, assigned)
        body = _function(f"{_PREFIX}if_true_{k}", [], node.body, names)
        orelse = _function(f"{_PREFIX}if_false_{k}", [], node.orelse or [ast.Pass()], names)
        helpers, get_name, set_name = self._state_functions(names, node)
        call = _call("if_stmt", [node.test, _name(body.name),
                                 _name(orelse.name), _name(get_name), _name(set_name),
                                 _names_tuple(names), ast.Constant(self._where(node))])
        return [_locate(body, node), _locate(orelse, node), *helpers,
                _locate(ast.Expr(value=call), node)]

    def visit_While(self, node):  # noqa: N802
        assigned = _names(node.body).stored  # before inner blocks become defs
        self.generic_visit(node)
        self.count += 1
        k = self.count
        flag = getattr(node, "ag_break", None)
        test = node.test
        if flag:
            test = _call("and_", [_lambda(_call("not_", [_name(flag)])), _lambda(test)])
        if flag and flag not in assigned:
            assigned.append(flag)
        names = self._state(node, assigned)
        body = _function(f"{_PREFIX}loop_body_{k}", [], node.body, names)
        test_fn = _function(f"{_PREFIX}loop_test_{k}", [], [ast.Return(value=test)], [])
        helpers, get_name, set_name = self._state_functions(names, node)
        call = _call("while_stmt", [_name(test_fn.name), _name(body.name), _name(get_name),
                                    _name(set_name), _names_tuple(names),
                                    ast.Constant(self._where(node))])
        return [_locate(test_fn, node), _locate(body, node), *helpers,
                _locate(ast.Expr(value=call), node)]

    def visit_For(self, node):  # noqa: N802
        target_names = _names([ast.Assign(targets=[node.target], value=ast.Constant(None))])
        assigned = target_names.stored + [n for n in _names(node.body).stored
                                          if n not in target_names.stored]
        self.generic_visit(node)
        self.count += 1
        k = self.count
        flag = getattr(node, "ag_break", None)
        item = f"{_PREFIX}item_{k}"
        assign_target = ast.Assign(targets=[node.target], value=_name(item))
        if flag and flag not in assigned:
            assigned.append(flag)
        names = self._state(node, assigned)
        body = _function(f"{_PREFIX}for_body_{k}", [item],
                         [_locate(assign_target, node), *node.body], names)
        iterable = node.iter
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id == "range"):
            iterable = ast.copy_location(_call("range_", iterable.args), iterable)
        extra = (_lambda(_call("not_", [_name(flag)])) if flag else ast.Constant(None))
        helpers, get_name, set_name = self._state_functions(names, node)
        call = _call("for_stmt", [iterable, extra, _name(body.name), _name(get_name),
                                  _name(set_name), _names_tuple(names),
                                  ast.Constant(self._where(node))])
        return [_locate(body, node), *helpers, _locate(ast.Expr(value=call), node)]

    def visit_FunctionDef(self, node):  # noqa: N802
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef


class _Outside(ast.NodeVisitor):
    """Names used anywhere in a function outside one statement (a liveness stand-in)."""

    def __init__(self, skip):  # noqa: D107
        self.skip = skip
        self.names: set[str] = set()

    def generic_visit(self, node):  # noqa: D102
        if node is self.skip:
            return
        super().generic_visit(node)

    def visit_Name(self, node):  # noqa: N802
        self.names.add(node.id)

    def visit_arg(self, node):  # noqa: D102
        self.names.add(node.arg)


def _names_tuple(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _function(name, params, body, nonlocals):
    decl = [ast.Nonlocal(names=list(nonlocals))] if nonlocals else []
    return ast.FunctionDef(
        name=name,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=decl + (body or [ast.Pass()]), decorator_list=[], returns=None, type_params=[])


def _source_tree(fn):
    try:
        source = inspect.getsource(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
        _, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None  # a lambda, or a callable object
    node = tree.body[0]
    if node.name != fn.__name__:
        return None
    ast.increment_lineno(tree, first_line - 1)
    return tree, node, filename


def _needs_conversion(node) -> bool:
    return _contains(node.body, (ast.If, ast.While, ast.For, ast.IfExp, ast.BoolOp)) or any(
        isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in ast.walk(node))


class _Super(ast.NodeTransformer):
    """``super()`` becomes ``super(__class__, self)``: blocks run as nested functions,
    where the zero-argument form has no first argument to use."""

    def __init__(self, first):  # noqa: D107
        self.first = first

    def visit_Call(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            node.args = [_name("__class__"), _name(self.first)]
        return node

    def visit_FunctionDef(self, node):  # noqa: N802
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef


def convert(fn):
    """The converted version of function `fn` (cached), or `fn` itself when it has no
    control flow to convert or no source to convert from.

    Raises:
        ConversionError: for control flow that cannot be converted (naming the line).

    Example:
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
    if not isinstance(fn, types.FunctionType) or getattr(fn, "__ag_converted__", False):
        return fn
    with _lock:
        try:
            cached = _cache.get(fn)
        except TypeError:
            cached = None
        if cached is not None:
            return cached
        converted = _convert(fn)
        try:
            _cache[fn] = converted
        except TypeError:
            pass
        return converted


def _convert(fn):
    found = _source_tree(fn)
    if found is None:
        return fn
    tree, node, filename = found
    if not _needs_conversion(node):
        return fn
    if _contains(node.body, (ast.Yield, ast.YieldFrom, ast.Await)):
        return fn  # generators and coroutines are not traced functions
    node.decorator_list = []
    lowering = _Lowering(filename)
    body = lowering.block(node.body)
    if lowering.uses_return:
        body = [_locate(_assign(_RETVAL, ast.Constant(None)), node),
                _locate(_assign(_DO_RETURN, ast.Constant(False)), node), *body,
                _locate(ast.Return(value=_name(_RETVAL)), node)]
    node.body = [_Conditions().visit(stmt) for stmt in body]
    if "__class__" in fn.__code__.co_freevars and (node.args.posonlyargs or node.args.args):
        first = (node.args.posonlyargs or node.args.args)[0].arg
        node.body = [_Super(first).visit(stmt) for stmt in node.body]
    flow = _ControlFlow(node, filename)
    new_body = []
    for stmt in node.body:
        result = flow.visit(stmt)
        new_body.extend(result if isinstance(result, list) else [result])
    # A variable first assigned inside a converted block must still be a local of the
    # function (for `nonlocal`): an assignment that never runs makes it one.
    params = {a.arg for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
    params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
    hoist = sorted(flow.hoisted - params)
    if hoist:
        never = ast.If(test=ast.Constant(False), body=[
            ast.Assign(targets=[_name(n, store=True) for n in hoist], value=ast.Constant(None))],
            orelse=[])
        new_body.insert(0, _locate(never, node))
    node.body = new_body
    ast.fix_missing_locations(tree)
    return _compile(fn, tree, node, filename)


def _compile(fn, tree, node, filename):
    freevars = list(fn.__code__.co_freevars)
    factory_params = [_PREFIX, *[v for v in freevars if v != _PREFIX]]
    factory = ast.FunctionDef(
        name=f"{_PREFIX}factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in factory_params],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[node, ast.Return(value=_name(node.name))], decorator_list=[], returns=None,
        type_params=[])
    module = ast.Module(body=[_locate(factory, node)], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec")
    except SyntaxError as e:
        raise ConversionError(
            f"{filename}:{e.lineno}: the control flow of {fn.__qualname__} cannot be converted "
            f"for ef.function ({e.msg}). Use ef.function(autograph=False) with "
            "ef.cond/ef.while_loop.") from None
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts
                      if isinstance(c, types.CodeType) and c.co_name == node.name)
    cells = dict(zip(freevars, fn.__closure__ or (), strict=True))
    module_ag = sys.modules[__name__]
    closure = tuple(cells[name] if name in cells else types.CellType(module_ag)
                    for name in inner_code.co_freevars)
    converted = types.FunctionType(inner_code, fn.__globals__, fn.__name__, fn.__defaults__,
                                   closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(converted, fn)
    del converted.__wrapped__
    converted.__ag_converted__ = True
    return converted


def call_converted(fn, *args, **kwargs):
    """Calls `fn` converted when AutoGraph is on for the trace in progress (used by
    `Layer.__call__` for ``call``), else as it is."""
    if not getattr(context.thread, "autograph", False) or context.thread.tracer is None:
        return fn(*args, **kwargs)
    return convert(fn)(*args, **kwargs)


del nest

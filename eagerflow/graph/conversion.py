r"""The source transformation behind AutoGraph (see `eagerflow.graph.autograph`).

`convert_function(fn, runtime)` parses a function's source, lowers ``return``, ``break``
and ``continue`` to data, turns each ``if``/``while``/``for`` into nested functions and a
call of the runtime's `if_stmt`/`while_stmt`/`for_stmt`, routes calls through the
runtime's `converted_call`, and compiles the result with the original globals, closure
cells, defaults and line numbers.

Examples:
    >>> import ast
    >>> from eagerflow.graph import conversion
    >>> tree = ast.parse("for i in range(3):\n    if i == 1:\n        break\n")
    >>> conversion.loop_exits(tree.body[0].body)
    True
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import sys
import textwrap
import types
from typing import Any

from eagerflow.core import errors

PREFIX = "ag__"
RETVAL, DO_RETURN = "ag__retval", "ag__do_return"
_PREFIX, _RETVAL, _DO_RETURN = PREFIX, RETVAL, DO_RETURN


class ConversionError(errors.UnimplementedError, NotImplementedError):
    """A function's control flow cannot be converted for `ef.function` (names the line).

    Also a `NotImplementedError`, the class TensorFlow's AutoGraph raises for these
    programs.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.autograph import ConversionError
        >>> issubclass(ConversionError, ef.errors.UnimplementedError)
        True
        >>> issubclass(ConversionError, NotImplementedError)
        True
    """


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


def loop_exits(nodes):
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


def _ends_in_its_only_exit(stmts, in_loop: bool) -> bool:
    """Whether `stmts` end in a `return` and hold no other return/break/continue."""
    return bool(stmts) and isinstance(stmts[-1], ast.Return) and not any(
        _may_exit(s, in_loop) for s in stmts[:-1])


def _may_exit(stmt, in_loop: bool) -> bool:
    if _contains([stmt], (ast.Return,)):
        return True
    return in_loop and loop_exits([stmt])


class _Names(ast.NodeVisitor):
    """Names stored and loaded in a block (not inside nested functions)."""

    def __init__(self):  # noqa: D107
        self.stored: list[str] = []
        self.loaded: set[str] = set()
        self.declared: set[str] = set()
        self.composites: list[str] = []  # `d["key"]`, `obj.attr` assigned in the block

    def visit_Name(self, node):  # noqa: N802
        if isinstance(node.ctx, ast.Store) or isinstance(node.ctx, ast.Del):
            if node.id not in self.stored:
                self.stored.append(node.id)
        else:
            self.loaded.add(node.id)

    def visit_Attribute(self, node):  # noqa: N802
        if isinstance(node.ctx, ast.Store) and _composite_root(node) is not None:
            text = ast.unparse(node)
            if text not in self.composites:
                self.composites.append(text)
        self.generic_visit(node)

    visit_Subscript = visit_Attribute

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


def _composite_root(node) -> str | None:
    """The variable under `obj.attr` / `d["key"]` chains with constant keys, else None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return None
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


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
        out: list[ast.stmt] = []
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
            if isinstance(stmt, ast.With) and _ends_in_its_only_exit(stmt.body, in_loop):
                # `with ...: ...; return x` (TF's forward-over-back HVP): the value is
                # taken inside the block, the block exits, and what follows is dead code.
                stmt.body = self.block(stmt.body)
                out.append(stmt)
                return out
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
        has_break = loop_exits(node.body) or _contains(node.body, (ast.Return,))
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
        self.generic_visit(node)  # `lambda t: t if t > 0 else -t`, as in TensorFlow
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

    def _composites(self, node, block):
        """The `obj.attr` / `d["key"]` a block assigns whose object lives outside it: state
        too (as in TensorFlow), so a loop or branch hands their new values on."""
        found = _names(block)
        outside = _Outside(node)
        outside.visit(self.function)
        return [c for c in found.composites
                if (root := _composite_root(ast.parse(c, mode="eval").body)) is not None
                and root in outside.names and root not in found.stored]

    def _state_functions(self, names, node, composites=()):
        k = self.count
        get_name, set_name = f"{_PREFIX}get_{k}", f"{_PREFIX}set_{k}"
        values = ast.Tuple(elts=[_call("ld", [_lambda(_name(n)), ast.Constant(n)])
                                 for n in names] + [
            _call("ld", [_lambda(ast.parse(c, mode="eval").body), ast.Constant(c)])
            for c in composites], ctx=ast.Load())
        getter = _function(get_name, [], [ast.Return(value=values)], [])
        setter_body: list[ast.stmt] = []
        if names:
            target = ast.Tuple(elts=[_name(n, store=True) for n in names], ctx=ast.Store())
            setter_body.append(ast.Assign(
                targets=[target],
                value=ast.Subscript(value=_name(f"{_PREFIX}values"),
                                    slice=ast.Slice(upper=ast.Constant(len(names))),
                                    ctx=ast.Load())))
        for i, c in enumerate(composites, start=len(names)):
            value = f"{_PREFIX}values[{i}]"
            # an item or attribute the statement's other branch (or an earlier trace of
            # a block) made, but the state has none: removed, as it was before
            setter_body += ast.parse(
                f"if not {_PREFIX}.is_undefined({value}):\n    {c} = {value}\n"
                f"else:\n    try:\n        del {c}\n"
                "    except (AttributeError, KeyError, IndexError):\n        pass").body
        setter = _function(set_name, [f"{_PREFIX}values"], setter_body or [ast.Pass()], names)
        return [_locate(getter, node), _locate(setter, node)], get_name, set_name

    def visit_If(self, node):  # noqa: N802
        assigned = _names(node.body + node.orelse).stored  # before inner blocks become defs
        composites = self._composites(node, node.body + node.orelse)
        self.generic_visit(node)
        self.count += 1
        k = self.count
        names = self._state(node, assigned)
        body = _function(f"{_PREFIX}if_true_{k}", [], node.body, names)
        orelse = _function(f"{_PREFIX}if_false_{k}", [], node.orelse or [ast.Pass()], names)
        helpers, get_name, set_name = self._state_functions(names, node, composites)
        call = _call("if_stmt", [node.test, _name(body.name),
                                 _name(orelse.name), _name(get_name), _name(set_name),
                                 _names_tuple(names + composites),
                                 ast.Constant(self._where(node))])
        return [_locate(body, node), _locate(orelse, node), *helpers,
                _locate(ast.Expr(value=call), node)]

    def visit_While(self, node):  # noqa: N802
        assigned = _names(node.body).stored  # before inner blocks become defs
        composites = self._composites(node, node.body)
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
        helpers, get_name, set_name = self._state_functions(names, node, composites)
        call = _call("while_stmt", [_name(test_fn.name), _name(body.name), _name(get_name),
                                    _name(set_name), _names_tuple(names + composites),
                                    ast.Constant(self._where(node))])
        return [_locate(test_fn, node), _locate(body, node), *helpers,
                _locate(ast.Expr(value=call), node)]

    def visit_For(self, node):  # noqa: N802
        target_names = _names([ast.Assign(targets=[node.target], value=ast.Constant(None))])
        assigned = target_names.stored + [n for n in _names(node.body).stored
                                          if n not in target_names.stored]
        composites = self._composites(node, [ast.Assign(targets=[node.target],
                                                        value=ast.Constant(None)), *node.body])
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
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
                and iterable.func.attr == "converted_call" and iterable.args
                and isinstance(iterable.args[0], ast.Name) and iterable.args[0].id == "range"
                and not iterable.keywords):
            iterable = ast.copy_location(_call("range_", iterable.args[1:]), iterable)
        elif (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
                and iterable.func.attr == "converted_call" and iterable.args
                and isinstance(iterable.args[0], ast.Attribute)
                and iterable.args[0].attr == "range"):
            # `for i in ef.range(n)`: a tensor `n` gives a loop, not a tensor of unknown length
            call = _call("range_call", iterable.args)
            call.keywords = iterable.keywords
            iterable = ast.copy_location(call, iterable)
        extra = (_lambda(_call("not_", [_name(flag)])) if flag else ast.Constant(None))
        helpers, get_name, set_name = self._state_functions(names, node, composites)
        call = _call("for_stmt", [iterable, extra, _name(body.name), _name(get_name),
                                  _name(set_name), _names_tuple(names + composites),
                                  ast.Constant(self._where(node))])
        if isinstance(node.target, ast.Name) and node.target.id in names:
            call.keywords = [ast.keyword(arg="target", value=ast.Constant(node.target.id))]
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
        body=decl + (body or [ast.Pass()]), decorator_list=[], returns=None,
        type_params=[])  # type: ignore[call-arg]  # (a field since Python 3.12)


def _source_tree(fn):
    code = fn.__code__  # the function's own code, never a `__wrapped__` one
    try:
        lines, first_line = inspect.getsourcelines(code)
        filename = inspect.getsourcefile(code) or code.co_filename
    except (OSError, TypeError):
        return None
    source = "".join(lines)
    source = textwrap.dedent(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None  # a lambda, or a callable object
    node = tree.body[0]
    if node.name != fn.__code__.co_name:
        return None
    ast.increment_lineno(tree, first_line - 1)
    return tree, node, filename


def _needs_conversion(node) -> bool:
    """Control flow to convert, or calls through which to convert the functions it calls."""
    return _contains(node.body, (ast.If, ast.While, ast.For, ast.IfExp, ast.BoolOp,
                                 ast.Call)) or any(
        isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in ast.walk(node))


class _Calls(ast.NodeTransformer):
    """``f(*args, **kwargs)`` becomes ``ag__.converted_call(f, *args, **kwargs)``, so the
    user's functions and methods the converted function calls are converted too."""

    def visit_Call(self, node):  # noqa: N802
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super":
            return node
        return ast.copy_location(ast.Call(
            func=ast.Attribute(value=_name(_PREFIX), attr="converted_call", ctx=ast.Load()),
            args=[func, *node.args], keywords=node.keywords), node)


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


def convert_function(fn, runtime):
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
    node.body = [_Calls().visit(_Conditions().visit(stmt)) for stmt in body]
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
    return _compile(fn, tree, node, filename, runtime)


def _compile(fn, tree, node, filename, runtime):
    # The converted def gets a name of its own inside the factory: under its real name, a
    # call of itself (recursion) would find the factory's local instead of the global.
    node.name = f"{_PREFIX}converted"
    freevars = list(fn.__code__.co_freevars)
    factory_params = [_PREFIX, *[v for v in freevars if v != _PREFIX]]
    factory = ast.FunctionDef(
        name=f"{_PREFIX}factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in factory_params],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[node, ast.Return(value=_name(node.name))], decorator_list=[], returns=None,
        type_params=[])  # type: ignore[call-arg]  # (a field since Python 3.12)
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
    closure = tuple(cells[name] if name in cells else types.CellType(runtime)
                    for name in inner_code.co_freevars)
    renamed: dict[str, Any] = {"co_name": fn.__code__.co_name}  # (tracebacks show it)
    if sys.version_info >= (3, 11):
        renamed["co_qualname"] = fn.__code__.co_qualname
    inner_code = inner_code.replace(**renamed)
    converted: Any = types.FunctionType(inner_code, fn.__globals__, fn.__name__,
                                        fn.__defaults__, closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(converted, fn)
    del converted.__wrapped__
    converted.__ag_converted__ = True
    return converted

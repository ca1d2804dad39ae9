"""Op definitions, the one op registry, and the single dispatch point every op goes through.

An op is data: a CamelCase name (used in errors as ``[Op:Name]``), a forward function
on ndarrays, a gradient rule written in eagerflow ops, and facts. `primitive` declares
one from its forward; `register` enters an op without a forward (the graph-only ops and
the control-flow ops of `ef.function`, which its executor runs). `OPS` holds them all, and
`Op.instance` makes the per-call op of a registered one (a `cond`, a `py_function`, a
concrete function's call, a custom gradient: one output count and gradient rule per call).
`execute` runs an op:

* eagerly, when no tape records, nothing is traced and numerics are not checked (the
  hot path: one flag read, one NumPy call, one wrap);
* otherwise through `_execute_slow`, which converts non-tensor inputs, hands the op to
  the tracer of an `ef.function` being traced, checks numerics, and records the op on
  every tape that watches one of its inputs.

Examples:
    >>> import numpy as np
    >>> from eagerflow.core import dispatch
    >>> @dispatch.primitive("Cube")
    ... def _cube(x):
    ...     return x * x * x
    >>> @_cube.gradient
    ... def _cube_grad(dy, y, x):
    ...     return dy * 3 * x * x
    >>> dispatch.execute(_cube, (np.float32(2.0),))
    ef.Tensor(8.0, shape=(), dtype=float32)
"""

from __future__ import annotations

import copy
import inspect
import warnings

import numpy as np

from eagerflow.core import context, dtypes, errors, tensor, variable

OPS: dict[str, Op] = {}
_NO_ATTRS: dict = {}

# NumPy's floating-point warnings ("overflow encountered in exp") would point at the
# dispatcher or an op module, not at the user's line, and fire on every step. Like
# TensorFlow, ops return inf/nan quietly; `ef.debugging.enable_check_numerics()` names the
# op that made one.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"eagerflow\.(core|ops)\.")


class Op:
    """One operation: forward on ndarrays, gradient in eagerflow ops, and flags.

    The flags from `pure` on are facts about the op that only `ef.function`'s tracer,
    passes and executor read, never `execute`. Each is declared with the op (`primitive`,
    `register`), never kept in a table of names elsewhere, and ``tests/ops/test_facts.py``
    checks the declared facts against the forward.

    Attributes:
        name: CamelCase op name, unique in `OPS`.
        forward: ``forward(*arrays, **attrs)`` returning an ndarray (or a tuple of them
            when `num_outputs` is not 1); None for an op only a graph holds (``If``,
            ``Placeholder``): the executor of `ef.function` runs it.
        jvp_rule: ``jvp(tangents, y, *inputs, **attrs)`` returning the output's tangent
            from one tangent (or None) per input, or a derivation named in
            `core/forwardprop.py`; see there.
        grad: ``grad(dy, y, *inputs, **attrs)`` returning one gradient (or None) per
            input; ``dy``/``y`` are tuples for multi-output ops. A rule that declares a
            ``needs`` parameter receives a tuple of booleans saying which inputs need a
            gradient, so it can skip the expensive ones.
        differentiable: False for ops whose outputs carry no gradient (comparisons,
            argmax, random draws); such ops are never recorded.
        num_outputs: 1, a fixed count, or -1 for "a tuple whose length depends on attrs".
        stateful: True when two runs with equal inputs may differ (random ops); graph
            optimisations must not fold or merge them.
        pure: False when running the op matters beyond its outputs (``CheckNumerics``
            raises on NaN): a graph never folds, merges or drops it. Stateful ops are
            never pure.
        elementwise: each output element comes from the matching (broadcast) input
            elements, and the kernel (`ufunc`, or a forward taking ``out=``) can write the
            result into a given buffer, so a graph may reuse the buffer of a dead input of
            the output's shape and dtype. Implies `fresh`.
        fresh: the forward always returns a newly allocated array, never a view of an
            input, so a graph may later write into it.
        neutral: ``{input index: number}`` for binary ops: with that input equal to the
            number everywhere, the op returns the other input unchanged (``x * 1``:
            ``Mul`` has ``{0: 1, 1: 1}``, ``x - 0``: ``Sub`` has ``{1: 0}``), when that
            changes neither its dtype nor its shape.
        elidable: True when the forward returns its (first) input unchanged
            (``Identity``); ``"dtype"`` or ``"shape"`` when it does so whenever the output
            keeps the input's dtype (``Cast``) or its fully known shape (``Reshape``).
        involution: applying the op twice gives the input back (``Neg``).
        shape_only: the result depends on the input's shape and dtype, never on its
            values (``ZerosLike``), so a graph computes it once the shape is known.
        ufunc: the NumPy ufunc the forward equals, or ``(ufunc, constant)`` when the
            forward passes it a constant last operand (``Relu``: ``np.maximum(x, 0)``);
            the executor calls it directly. Taken from the forward when that is a ufunc.
        promotes: binary arithmetic that applies the dtype table (`promote_inputs`);
            implied by `elementwise`.
        returns_array: the forward returns an ndarray (never a NumPy scalar or a list)
            for an output that is not 0-d, so the executor need not convert it.
        unknown_dims: the op accepts unknown (None) dimensions in its shape attributes
            (``Reshape``); a trace refuses them for other ops.
        value_shaped_axis: the axis along which the output's length depends on the input
            values (``Where``: 0), which a trace leaves unknown; None for none.
        family: for an op made by `instance`, the registered op it is an instance of
            (None for a registered op).
        origin: what an instance stands for (the Python function of a custom gradient,
            the concrete function of a call), or None.
    """

    __slots__ = ("differentiable", "elementwise", "elidable", "family", "forward", "fresh",
                 "grad", "grad_needs", "involution", "jvp_rule", "name", "neutral",
                 "num_outputs", "origin", "promotes", "pure", "returns_array", "shape_only",
                 "stateful", "ufunc", "unknown_dims", "value_shaped_axis")

    def __init__(self, name, forward, differentiable=True, num_outputs=1, stateful=False, *,
                 pure=True, elementwise=False, fresh=False, neutral=None, elidable=False,
                 involution=False, shape_only=False, ufunc=None, promotes=False,
                 returns_array=False, unknown_dims=False, value_shaped_axis=None):
        self.name = name
        self.forward = forward
        self.grad = None
        self.grad_needs = False
        self.jvp_rule = None
        self.differentiable = differentiable
        self.num_outputs = num_outputs
        self.stateful = stateful
        self.pure = pure and not stateful
        self.elementwise = elementwise
        self.fresh = fresh or elementwise
        self.neutral = neutral
        self.elidable = elidable
        self.involution = involution
        self.shape_only = shape_only
        self.ufunc = forward if ufunc is None and isinstance(forward, np.ufunc) else ufunc
        self.promotes = elementwise or promotes
        self.returns_array = returns_array
        self.unknown_dims = unknown_dims
        self.value_shaped_axis = value_shaped_axis
        self.family = self.origin = None

    def gradient(self, rule):
        """Registers `rule` as this op's gradient; use as a decorator."""
        if not self.differentiable:
            raise errors.InternalError(f"op {self.name} is not differentiable", op=self.name)
        self.grad = rule
        self.grad_needs = "needs" in inspect.signature(rule).parameters
        return rule

    def jvp(self, rule):
        """Registers `rule` as this op's forward-mode (JVP) rule; use as a decorator, or
        pass a derivation declared in `core/forwardprop.py` (``forwardprop.LINEAR``)."""
        if not self.differentiable:
            raise errors.InternalError(f"op {self.name} is not differentiable", op=self.name)
        self.jvp_rule = rule
        return rule

    def instance(self, num_outputs: int, grad=None, *, forward=None, name: str | None = None,
                 origin=None) -> Op:
        """A per-call op of this registered one: its facts, with `num_outputs` outputs, the
        gradient rule `grad` (making it differentiable), the kernel `forward` and the
        `name` of this one call when given, and `origin`; its `family` is this op.

        Examples:
            >>> from eagerflow.core import autodiff, dispatch
            >>> op = autodiff.CUSTOM_GRADIENT.instance(2, name="CustomGradient_f")
            >>> op.family is dispatch.OPS["CustomGradient"], op.name, op.num_outputs
            (True, 'CustomGradient_f', 2)
        """
        op = copy.copy(self)
        op.family, op.origin, op.num_outputs = self, origin, num_outputs
        op.name, op.forward = name or self.name, forward or self.forward
        op.differentiable = self.differentiable or grad is not None
        if grad is not None:
            op.gradient(grad)
        return op

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


def register(op: Op) -> Op:
    """Enters `op` in `OPS` under its name (once) and returns it.

    Raises:
        InternalError: if an op of that name is registered already.
    """
    if op.name in OPS:
        raise errors.InternalError(f"op {op.name!r} is defined twice", op=op.name)
    OPS[op.name] = op
    return op


def primitive(name: str, differentiable: bool = True, num_outputs: int = 1, stateful=False,
              **facts):
    """Declares an op from its NumPy forward function; decorate the gradient below it.

    Args:
        name: the CamelCase op name (TensorFlow's where one exists).
        differentiable: whether outputs carry gradients.
        num_outputs: number of outputs (-1: variable, decided by the forward).
        stateful: whether the op may return different values for equal inputs.
        **facts: what a trace, the graph passes and the executor may assume about the op
            (``pure``, ``elementwise``, ``fresh``, ``neutral``, ``elidable``,
            ``involution``, ``shape_only``, ``ufunc``, ``promotes``, ``returns_array``,
            ``unknown_dims``, ``value_shaped_axis``: see `Op`).

    Returns:
        A decorator turning the forward function into a registered `Op`.
    """

    def decorate(forward):
        return register(Op(name, forward, differentiable, num_outputs, stateful, **facts))

    return decorate


_Tensor = tensor.Tensor
_Variable = variable.Variable
_new = object.__new__
_ndarray = np.ndarray
_as_array = dtypes.as_array
_promotion = dtypes.promotion  # the dtype table
_flags = context.flags


def execute(op: Op, inputs: tuple | list, attrs: dict = _NO_ATTRS):
    """Runs `op` on `inputs` (tensors or convertible values) with keyword `attrs`.

    Returns:
        A Tensor, or a tuple of Tensors for multi-output ops.

    Raises:
        InvalidArgumentError (or another `OpError`): naming the op when the inputs are
            invalid.
    """
    # hot path: every public op funnels through here; see benchmarks/bench_ops.py.
    # Unrolling the one- and two-input cases saves ~0.1 us per op over a generic loop.
    if _flags.intercepted:
        return _execute_slow(op, inputs, attrs)
    # With no tape and no tracing a Variable is read straight from its buffer: a result
    # that is a view of it keeps the buffer referenced, so a later in-place write copies.
    # A Python float or int next to a tensor goes to NumPy as is: a weak scalar.
    count = len(inputs)
    if count == 2:
        x, y = inputs
        kind = type(x)
        if kind is _Tensor:
            a = x._value
        elif kind is _Variable:
            a = x._buf
        elif (kind is float or kind is int) and (type(y) is _Tensor or type(y) is _Variable):
            a = x
        else:
            return _execute_slow(op, inputs, attrs)
        kind = type(y)
        if kind is _Tensor or kind is _Variable:
            b = y._value if kind is _Tensor else y._buf
            # The dtype table (`promote_inputs`): one identity test in the common case.
            if a is x:  # a weak Python scalar first
                if type(a) is float and b.dtype.kind in "iu" and op.promotes:
                    return _execute_slow(op, inputs, attrs)
            elif a.dtype is not b.dtype and op.promotes and _promotion(a, b) is not None:
                return _execute_slow(op, inputs, attrs)
            values: tuple | list = (a, b)
        elif (kind is float or kind is int) and a is not x:
            if kind is float and a.dtype.kind in "iu" and op.promotes:
                return _execute_slow(op, inputs, attrs)
            values = (a, y)
        else:
            return _execute_slow(op, inputs, attrs)
    elif count == 1:
        x = inputs[0]
        if type(x) is not _Tensor:
            return _execute_slow(op, inputs, attrs)
        values = (x._value,)
    else:
        values = []
        for x in inputs:
            if type(x) is not _Tensor:
                return _execute_slow(op, inputs, attrs)
            values.append(x._value)
    try:
        out = op.forward(*values, **attrs) if attrs else op.forward(*values)
    except Exception as e:
        raise op_error(op, values, attrs, e) from None
    if op.num_outputs == 1:
        if type(out) is not _ndarray:
            out = _as_array(out)
        result = _new(_Tensor)
        result._value = out
        return result
    return _wrap_many(out)


def _wrap_many(outs) -> tuple:
    return tuple(tensor.new_tensor(o if type(o) is _ndarray else _as_array(o)) for o in outs)


def _execute_slow(op, inputs, attrs):
    # hot path while a tape records: keep the all-tensor case free of extra calls.
    state = context.thread
    if state.tracer is not None:
        return state.tracer.execute(op, inputs, attrs)
    tapes = state.tapes
    values = []
    for x in inputs:
        if type(x) is not _Tensor:
            inputs = convert_inputs(op, inputs, copy_arrays=bool(tapes))
            values = [x._value if isinstance(x, _Tensor) else x for x in inputs]
            break
        values.append(x._value)
    if len(values) == 2 and op.promotes and _promotion(*values) is not None:
        inputs = promote_inputs(op, inputs)
        values = [x._value if isinstance(x, _Tensor) else x for x in inputs]
    try:
        out = op.forward(*values, **attrs)
    except Exception as e:
        raise op_error(op, values, attrs, e) from None
    if op.num_outputs == 1:
        result = _new(_Tensor)
        result._value = out if type(out) is _ndarray else _as_array(out)
        outputs = (result,)
    else:
        outputs = result = _wrap_many(out)  # type: ignore[assignment]  # (a tuple)
    if _flags.check_numerics:
        _check_numerics(op, outputs)
    if tapes and op.differentiable:
        context.record_op(tapes, op, inputs, attrs, outputs)
    return result


_SCALARS = (float, int, complex, bool)


def promote_inputs(op, inputs) -> tuple:
    """Applies the dtype table (`dtypes.promotion`) to the inputs of binary arithmetic: the
    integer operand is cast to the float's dtype, eagerly and while tracing alike (the cast
    is an op), so ``int32 + float32`` is float32, never float64.

    Examples:
        >>> import eagerflow as ef
        >>> (ef.constant([1, 2]) + ef.constant([0.5, 0.5])).dtype
        dtype('float32')
        >>> (ef.constant([1, 2]) * 1.5).dtype
        dtype('float32')
    """
    if len(inputs) != 2 or not op.promotes:
        return inputs
    target = dtypes.promotion(*inputs)
    if target is None:
        return inputs
    return tuple(execute(OPS["Cast"], (x,), {"dtype": target})
                 if isinstance(x, _Tensor) and x.dtype.kind in "iu" else x for x in inputs)


def convert_inputs(op, inputs, copy_arrays=False) -> tuple:
    """Converts the inputs of one op call to Tensors.

    Python scalars next to a tensor input stay Python scalars, so NumPy treats them as
    weakly typed (``float32_tensor * 2.0`` stays float32); alone, they become tensors with
    the default dtypes.
    """
    converted = []
    for x in inputs:  # tensors and variables only: the common case while recording
        kind = type(x)
        if kind is _Tensor:
            converted.append(x)
        elif kind is _Variable:
            converted.append(x._read())
        else:
            break
    else:
        return tuple(converted)
    for x in inputs:
        if not isinstance(x, _SCALARS):
            partner = next((t.dtype for t in inputs if isinstance(t, (_Tensor, _Variable))),
                           None)
            weak = partner is not None and op is not None and op.promotes
            return tuple([_convert_weak_list(x, partner, op)
                          if weak and isinstance(x, (list, tuple))
                          else x if isinstance(x, _SCALARS)  # weak: NumPy keeps the dtype
                          else convert_input(x, op, copy_arrays) for x in inputs])
    # Only Python scalars: they convert together, like one Python list would (any float
    # makes them all float32; ints alone give int32).
    dtype = dtypes.to_array(list(inputs)).dtype
    return tuple(convert_input(x, op, dtype=dtype) for x in inputs)


def _convert_weak_list(value, partner, op):
    """A Python list of numbers next to a tensor of dtype `partner` (`dtypes.weak_list`)."""
    array = convert_input(value, op)._value
    return tensor.new_tensor(dtypes.weak_list(array, partner))


def convert_input(value, op: Op | None = None, copy: bool = False,
                  dtype: np.typing.DTypeLike | None = None) -> tensor.Tensor:
    """The engine's one converter of values to tensors (`ef.convert_to_tensor`,
    `ef.constant` and every op input go through it).

    Args:
        value: a tensor (returned as it is, whatever `dtype`: callers that need a dtype
            cast or check), a variable (read, so recording tapes watch it), a NumPy array
            (kept as it is, text included, unless `dtype` differs), Python data, or, while
            `ef.function` traces, a list holding traced tensors (packed by graph ops).
        op: the op whose input this is, named in errors.
        copy: copy an array even when it is read-only (a writable one always is: the
            tensor must not change when the array does).
        dtype: the dtype for data that is not a tensor, by `dtypes.to_array`'s rules
            (Python floats give float32 by default, ints int32; arrays keep theirs).

    Raises:
        InvalidArgumentError: when the value cannot be converted (to `dtype`).
    """
    if isinstance(value, _Tensor):
        return value
    if type(value) is _Variable:
        return value._read()
    if type(value) is _ndarray and (dtype is None or value.dtype == dtype):
        return tensor.new_tensor(value.copy() if copy or value.flags.writeable else value)
    tracer = context.thread.tracer
    if tracer is not None and isinstance(value, (list, tuple)) and tracer.holds_tensor(value):
        return tracer.pack(value, None if dtype is None else dtypes.as_dtype(dtype))
    try:
        return tensor.new_tensor(dtypes.to_array(value, dtype))
    except errors.OpError as e:
        raise type(e)(e.message, op=op.name if op is not None else None) from None


def _describe(values, attrs) -> str:
    parts = []
    for v in values:
        if isinstance(v, _ndarray):
            parts.append(f"{v.dtype.name}{list(v.shape)}")
        else:
            parts.append(repr(v))
    text = "inputs: " + ", ".join(parts)
    shown = {k: v for k, v in attrs.items() if not k.startswith("_")}
    if shown:
        text += "; attrs: " + ", ".join(f"{k}={v!r}" for k, v in shown.items())
    return text


def op_error(op, values, attrs, e: Exception) -> Exception:
    """Translates an exception raised by a forward function into a named OpError."""
    if isinstance(e, errors.OpError):
        return type(e)(e.message, op=e.op or op.name)
    if isinstance(e, OverflowError):
        return errors.InvalidArgumentError(f"{e} ({_describe(values, attrs)})", op.name)
    if isinstance(e, MemoryError):
        return errors.ResourceExhaustedError(
            f"out of memory ({_describe(values, attrs)})", op.name
        )
    message = str(e)
    if "could not be broadcast" in message:
        shapes = [tuple(v.shape) for v in values if isinstance(v, _ndarray)]
        text = " vs. ".join(str(s) for s in shapes)
        return errors.InvalidArgumentError(f"Incompatible shapes: {text}", op.name)
    if isinstance(e, (ValueError, TypeError, IndexError, np.exceptions.AxisError)):
        return errors.InvalidArgumentError(f"{message} ({_describe(values, attrs)})", op.name)
    return e


def _check_numerics(op, outputs) -> None:
    for index, out in enumerate(outputs):
        value = out._value
        if value.dtype.kind in "fc" and not np.isfinite(value).all():
            kind = "NaN" if np.isnan(value).any() else "Inf"
            where = np.argwhere(~np.isfinite(value))[0]
            raise errors.InvalidArgumentError(
                f"check_numerics: output {index} of {op.name} (shape {value.shape}) has {kind} "
                f"values, first at index {tuple(int(i) for i in where)}",
                op.name,
            )


"""Forward-mode autodiff: `ForwardAccumulator` pushes tangents through ops as they run.

How it hooks in. An accumulator inside its ``with`` block sits in the thread's list of
recording tapes (`context.thread.tapes`), so the dispatcher needs no second hook and
costs nothing more when no accumulator is active: every op whose inputs are watched is
handed to `ForwardAccumulator._record`, like a tape's. Instead of storing the op, the
accumulator runs the op's JVP rule at once and keeps the output's tangent (``_tracked``:
id -> (weak reference, tangent); an entry leaves with its tensor).

JVP rules sit beside the gradient rules in ``ops/`` (``@op.jvp``). A rule gets
``(tangents, y, *inputs, **attrs)`` with one tangent per input (None for an input that
has none) and returns the output's tangent (a tuple for multi-output ops; None = zero).
The engine broadcasts and casts a rule's result to the output, so rules may ignore
broadcasting. Three derivations are declared by constant instead of a function:

* `LINEAR`: the op is linear in its floating-point inputs together (``Reshape``,
  ``ConcatV2``, ``AddV2``): the tangent is the op applied to the tangents (zeros for the
  inputs that have none).
* `MULTILINEAR`: linear in each floating-point input separately (``Mul``,
  ``BatchMatMulV2``, ``Conv2D``): the sum over inputs of the op with that one input
  replaced by its tangent.
* `DIAGONAL`: an elementwise op (with broadcasting): its Jacobian is diagonal, so its own
  transpose, and the gradient rule with the (broadcast) tangent as ``dy`` is the JVP;
  one rule call per input that has a tangent, no extra pass.
* `FROM_VJP`: the transposed gradient ("double VJP"): a gradient rule is linear in
  ``dy``, so for ``g(u) = vjp(u)`` the JVP is ``d<g(u), t>/du``, computed by a tape
  around the rule at ``u = 0``. Exact, but it costs two backward passes; used for ops
  where a direct rule is no cheaper, and for ops made at run time (a `custom_gradient`
  call, an `ef.function` call, a traced `cond`/`while_loop`), as TensorFlow does.

A differentiable op with no rule raises `UnimplementedError` naming it.

Nesting. The ops a JVP rule runs are seen only by the tapes and accumulators entered
before this accumulator (lower in the stack), never by itself or those entered after it:
an outer accumulator then differentiates an inner one's tangents (higher-order JVPs), and
an outer `GradientTape` records the tangents (reverse-over-forward Hessian-vector
products); an accumulator around a tape sees the tape's backward pass
(forward-over-reverse). Inside `ef.function` the tangents' ops are traced into the graph.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([1.0, 2.0])
    >>> with ef.autodiff.ForwardAccumulator(x, ef.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> acc.jvp(y)
    ef.Tensor([2. 0.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from typing import Any
from weakref import ref as _weakref

from eagerflow.core import context, dispatch, errors, nest, tensor, variable
from eagerflow.core import tape as tape_lib

_Tensor = tensor.Tensor
LINEAR = "linear"
MULTILINEAR = "multilinear"
DIAGONAL = "diagonal"
FROM_VJP = "from_vjp"


def _run(name, inputs, **attrs):
    return dispatch.execute(dispatch.OPS[name], inputs, attrs)


def _is_float(x) -> bool:
    return type(x) is float or (isinstance(x, _Tensor) and x._value.dtype.kind in "fc")


def _zeros_like(x):
    return 0.0 if type(x) is float else _run("ZerosLike", (x,), dtype=None)


class ForwardAccumulator:
    """Computes Jacobian-vector products (forward-mode autodiff) of the ops run inside it.

    Args:
        primals: a Tensor or Variable, or a (nested) list of them, to differentiate with
            respect to; watched from construction, as in TensorFlow.
        tangents: the direction for each primal, in the same structure and shapes.

    Raises:
        ValueError: if `tangents` does not match `primals` in structure or shape, a
            primal is not floating-point, or a primal is given twice.

    Examples:
        >>> import eagerflow as ef
        >>> v = ef.Variable([1.0, 2.0])
        >>> with ef.autodiff.ForwardAccumulator(v, ef.constant([1.0, 1.0])) as acc:
        ...     y = ef.reduce_sum(v * v)
        >>> acc.jvp(y)
        ef.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._tracked: dict[int, tuple] = {}
        self._variables: dict[int, tuple] = {}
        self._left_by_numpy: set[int] = set()  # the tape protocol's; only tapes explain it
        self._entered = False
        flat_primals = nest.flatten(primals)
        # A single primal takes its tangent whole (a Python list is one tangent's value).
        single = isinstance(primals, (_Tensor, variable.Variable))
        flat_tangents = [tangents] if single else nest.flatten(tangents)
        if len(flat_primals) != len(flat_tangents):
            raise ValueError(
                f"ForwardAccumulator got {len(flat_primals)} primals but "
                f"{len(flat_tangents)} tangents; pass one tangent per primal."
            )
        if len({id(p) for p in flat_primals}) != len(flat_primals):
            raise ValueError("A tensor was specified as a primal multiple times; sum its "
                             "tangents and pass it once.")
        for primal, tangent in zip(flat_primals, flat_tangents, strict=True):
            self._watch(primal, tangent)

    def _watch(self, primal, tangent) -> None:
        value = primal if isinstance(primal, (_Tensor, variable.Variable)) else None
        if value is None:
            raise TypeError(f"ForwardAccumulator primals must be Tensors or Variables, got "
                            f"{type(primal).__name__}: {primal!r}")
        if value.dtype.kind not in "fc":
            raise ValueError(f"ForwardAccumulator primal of dtype {value.dtype.name}: only "
                             "floating-point tensors have tangents; cast it first.")
        tangent = _run("Cast", (dispatch.convert_input(tangent),), dtype=value.dtype)
        if tuple(tangent.shape) != tuple(value.shape):
            raise ValueError(f"ForwardAccumulator tangent of shape {tuple(tangent.shape)} for "
                             f"a primal of shape {tuple(value.shape)}; they must match.")
        if isinstance(primal, variable.Variable):
            self._variables[id(primal)] = (primal, tangent)
            self._variable_read(primal, primal._read())
        else:
            self._set(primal, tangent)

    def _set(self, x, tangent) -> None:
        key, table = id(x), self._tracked

        def forget(_: object) -> None:  # the primal died: its tangent goes with it
            table.pop(key, None)

        table[key] = (_weakref(x, forget), tangent)

    def _get(self, x):
        entry = self._tracked.get(id(x))
        return None if entry is None or entry[0]() is not x else entry[1]

    # -- hooks called by the dispatcher and by variables (like GradientTape's) ----------
    def _variable_read(self, var, snapshot) -> None:
        entry = self._variables.get(id(var))
        if entry is not None and entry[0] is var:
            self._set(snapshot, entry[1])

    def _record(self, op, inputs, attrs, outputs) -> None:
        """Computes the tangents of `outputs` when an input has one (called by dispatch)."""
        tracked = self._tracked
        for x in inputs:
            if id(x) in tracked:
                break
        else:
            return
        tangents = tuple(self._get(x) if isinstance(x, _Tensor) else None for x in inputs)
        if all(t is None for t in tangents):
            return
        state = context.thread
        saved = state.tapes
        # Only what was entered before this accumulator sees its JVP ops (none of them
        # when it is handed an op from outside its own stack).
        below = next((i for i, t in enumerate(saved) if t is self), 0)
        state.tapes = saved[:below]
        try:
            results = _jvp(op, tangents, inputs, attrs, outputs)
        finally:
            state.tapes = saved
        for out, result in zip(outputs, results, strict=True):
            if result is not None and out._value.dtype.kind in "fc":
                self._set(out, _fit(result, out, op))

    # -- public API ---------------------------------------------------------------------
    def __enter__(self) -> ForwardAccumulator:
        if self._entered:
            raise ValueError("This ForwardAccumulator is already recording; it cannot "
                             "be re-entered.")
        self._entered = True
        context.push_tape(self)
        return self

    def __exit__(self, *exc_info) -> None:
        self._entered = False
        context.pop_tape(self)

    def jvp(self, primals: Any,
            unconnected_gradients: str | tape_lib.UnconnectedGradients = "none") -> Any:
        """The tangents of `primals` (a Tensor, Variable or nested structure of them).

        Args:
            primals: tensors computed while the accumulator recorded (or watched ones).
            unconnected_gradients: ``"none"`` gives None for a tensor that does not
                depend on the watched primals, ``"zero"`` gives zeros of its shape.

        Returns:
            The tangents in the structure of `primals`.
        """
        zero = tape_lib._check_unconnected(unconnected_gradients)

        def one(primal):
            if isinstance(primal, variable.Variable):
                entry = self._variables.get(id(primal))
                if entry is not None and entry[0] is primal:
                    return entry[1]
                primal = primal._read()
            found = self._get(primal) if isinstance(primal, _Tensor) else None
            if found is None and zero:
                return _zeros_like(dispatch.convert_input(primal))
            return found

        return nest.map_structure(one, primals)


def _fit(tangent, out, op):
    """The rule's result broadcast (summed, never) and cast to the output's shape/dtype."""
    tangent = dispatch.convert_input(tangent)
    if tangent.shape != out.shape:
        tangent = _run("BroadcastTo", (tangent,), shape=tuple(out.shape))
    if tangent.dtype != out.dtype:
        tangent = _run("Cast", (tangent,), dtype=out.dtype)
    return tangent


def _jvp(op, tangents, inputs, attrs, outputs) -> tuple:
    rule = op.jvp_rule
    if rule is None and op.grad is not None and op.family is not None:
        rule = FROM_VJP  # made at run time: a custom gradient, a function or control flow
    if rule is None:
        raise errors.UnimplementedError(
            f"No JVP (forward-mode) rule is defined for op {op.name}; it cannot be "
            "differentiated by ForwardAccumulator. Wrap it in ef.stop_gradient or compute "
            "the derivative with a GradientTape.", op.name)
    if rule is LINEAR:
        result = dispatch.execute(op, tuple(
            (_zeros_like(x) if t is None else t) if _is_float(x) else x
            for x, t in zip(inputs, tangents, strict=True)), attrs)
    elif rule is MULTILINEAR:
        result = None
        for i, t in enumerate(tangents):
            if t is not None:
                term = dispatch.execute(op, inputs[:i] + (t,) + inputs[i + 1:], attrs)
                result = term if result is None else _run("AddV2", (result, term))
    elif rule is DIAGONAL:
        result = None
        out = outputs[0]
        for i, t in enumerate(tangents):
            if t is None:
                continue
            if t.shape != out.shape:
                t = _run("BroadcastTo", (t,), shape=tuple(out.shape))
            if op.grad_needs:
                needs = tuple(j == i for j in range(len(inputs)))
                grads = op.grad(t, out, *inputs, needs=needs, **attrs)
            else:
                grads = op.grad(t, out, *inputs, **attrs)
            term = grads[i] if type(grads) is tuple or type(grads) is list else grads
            if term is not None:
                result = term if result is None else _run("AddV2", (result, term))
    elif rule is FROM_VJP:
        return _transposed_vjp(op, tangents, inputs, attrs, outputs)
    else:
        y = outputs[0] if len(outputs) == 1 and op.num_outputs == 1 else outputs
        result = rule(tangents, y, *inputs, **attrs)
    if op.num_outputs == 1:
        return (result,)
    return tuple(result)


def _transposed_vjp(op, tangents, inputs, attrs, outputs) -> tuple:
    """``d<vjp(u), t>/du`` at ``u = 0``: the JVP of an op from its (linear in ``u``) VJP."""
    seeds = tuple(_run("ZerosLike", (o,), dtype=None) for o in outputs)
    single = len(outputs) == 1 and op.num_outputs == 1
    needs = tuple(t is not None for t in tangents)
    with tape_lib.GradientTape() as tape:
        floats = [s for s in seeds if s.dtype.kind in "fc"]  # an index output has no tangent
        tape.watch(floats)
        dy, y = (seeds[0], outputs[0]) if single else (seeds, outputs)
        if op.grad_needs:
            grads = op.grad(dy, y, *inputs, needs=needs, **attrs)
        else:
            grads = op.grad(dy, y, *inputs, **attrs)
        if type(grads) is not tuple and type(grads) is not list:
            grads = (grads,)
        targets, weights = [], []
        for g, t, x in zip(grads, tangents, inputs, strict=True):
            if g is not None and t is not None:
                g = dispatch.convert_input(g)
                targets.append(g)
                weights.append(_run("BroadcastTo", (_run("Cast", (t,), dtype=g.dtype),),
                                    shape=tuple(g.shape)) if t.shape != g.shape else t)
        # <vjp(u), t> summed over the inputs is linear in u; its gradient is the JVP.
        total = [_run("Sum", (_run("Mul", (g, w)),), axis=None, keepdims=False)
                 for g, w in zip(targets, weights, strict=True)]
    if not total:
        return tuple(None for _ in outputs)
    found = iter(tape.gradient(total, floats))
    return tuple(next(found) if s.dtype.kind in "fc" else None for s in seeds)


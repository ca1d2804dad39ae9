"""GradientTape: records ops while active and plays them backwards for gradients.

How recording works. Each tape keeps ``_tracked``, the ids of the tensors it can
differentiate through: those it watches (`watch`, or trainable variables read while it
records; held in ``_watched``) and the outputs of ops it recorded. The dispatcher hands
every op run while a tape is active to each recording tape of the thread through the tape
hook `context.record_op` (the list is in `context.thread`, so the dispatcher needs no
import of this module), and a tape appends the op when it tracks one of its inputs
(`_record`); a Variable read reaches the tapes the same way (`context.record_read`, then
`_variable_read`). Ops that touch nothing a tape tracks cost that tape one
set lookup per input.

A record holds its inputs but only a weak reference to a single output: a result nobody
keeps (and no later op consumed, since consumers hold their inputs) can never receive a
gradient, so it is freed at once instead of living as long as the tape. An id in
``_tracked`` whose tensor died may be reused by a new tensor; that only makes the new
tensor's ops recorded needlessly, since the backward pass skips records whose output died.

How gradients work. `gradient` calls `backprop`, in three named steps: `_reachable` walks
the records once forwards to find what depends on a source, `_seed` starts each target's
gradient, and `_apply_rule`, once per record walking backwards, calls the op's gradient
rule only for records whose outputs received a gradient and only for inputs that lead to
a source. Rules are written
in eagerflow ops, so while an outer tape is recording, the backward pass is itself
recorded, which is how gradients of gradients work to any order. The engine (not the
rules) sums a broadcast gradient back to its input's shape.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant(3.0)
    >>> with ef.GradientTape() as outer:
    ...     outer.watch(x)
    ...     with ef.GradientTape() as inner:
    ...         inner.watch(x)
    ...         y = x * x * x
    ...     dy_dx = inner.gradient(y, x)
    >>> dy_dx, outer.gradient(dy_dx, x)
    (ef.Tensor(27.0, shape=(), dtype=float32), ef.Tensor(18.0, shape=(), dtype=float32))
"""

from __future__ import annotations

import contextlib
import enum
import functools
import weakref
from typing import Any
from weakref import ref as _weakref

import numpy as np

from eagerflow.core import context, dispatch, errors, nest, tensor, variable

_Tensor = tensor.Tensor
_Variable = variable.Variable
# id(variable) -> (weakref to it, why its last gradient was None); read by optimizers so
# a skipped variable can be explained. Weak, so it never keeps a variable alive.
_VARIABLE_NONE_REASONS: dict[int, tuple] = {}


def none_reason(variable) -> str | None:
    """Why the most recent `tape.gradient` call returned None for `variable`, if it did."""
    entry = _VARIABLE_NONE_REASONS.get(id(variable))
    if entry is None or entry[0]() is not variable:
        return None
    return entry[1]


def _run(name, inputs, **attrs):
    """Runs the registered op `name`: the engine's own steps (summing broadcast gradients,
    casting, stacking Jacobian rows) are recorded ops like any other, found in the registry
    so that the engine never imports the ops package."""
    return dispatch.execute(dispatch.OPS[name], inputs, attrs)


def _reshape(value, shape):
    # A traced tensor's unknown dimension (None) is the one NumPy infers (-1).
    return _run("Reshape", (value,), shape=[-1 if d is None else d for d in shape])


def _zeros(shape, dtype):
    return tensor.new_tensor(np.zeros(shape, dtype))


class GradientTape:
    """Records operations for automatic differentiation.

    Args:
        persistent: allow `gradient` to be called more than once. A persistent tape
            holds every recorded tensor until it is deleted or `reset`.
        watch_accessed_variables: watch every trainable `Variable` read while recording.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0, 2.0])
        >>> with ef.GradientTape() as tape:
        ...     loss = ef.reduce_sum(w * w)
        >>> tape.gradient(loss, w)
        ef.Tensor([2. 4.], shape=(2,), dtype=float32)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._used = False
        self._entered = False
        self._none_reasons: dict[int, str] = {}
        self._clear()

    def _record(self, op, inputs, attrs, outputs) -> None:
        """Records one op call if this tape tracks one of its inputs (called by dispatch)."""
        # hot path while recording (see benchmarks/bench_ops.py).
        tracked = self._tracked
        for x in inputs:
            if id(x) in tracked:
                if op.num_outputs == 1:
                    out = outputs[0]
                    self._records.append((op, inputs, attrs, _weakref(out)))
                    tracked.add(id(out))
                else:
                    self._records.append((op, inputs, attrs, outputs))
                    tracked.update(id(o) for o in outputs)
                return

    def _variable_read(self, variable, snapshot) -> None:
        """Watches `variable`'s read `snapshot` if this tape watches that variable."""
        snapshot_id = id(snapshot)
        if snapshot_id in self._watched:
            return  # this very read is already registered (the common repeated read)
        key = id(variable)
        explicit = key in self._watched_vars
        if not explicit and not (self._watch_accessed and variable._trainable):
            return
        if not explicit:
            self._watched_vars[key] = variable
        self._tracked.add(snapshot_id)
        self._watched[snapshot_id] = snapshot
        self._var_reads.setdefault(key, []).append(snapshot)

    def _clear(self) -> None:
        self._records: list = []
        self._tracked: set[int] = set()
        self._watched: dict[int, object] = {}
        self._watched_vars: dict[int, object] = {}
        self._var_reads: dict[int, list] = {}
        self._left_by_numpy: set[int] = set()  # ids of tensors whose .numpy() was called

    # -- recording ----------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._entered:
            raise ValueError("This GradientTape is already recording; tapes do not re-enter.")
        self._entered = True
        context.push_tape(self)
        return self

    def __exit__(self, *exc_info) -> None:
        self._entered = False
        context.pop_tape(self)

    def _recording(self) -> bool:
        return any(t is self for t in context.thread.tapes)

    @contextlib.contextmanager
    def stop_recording(self) -> Any:
        """Temporarily stops recording ops on this tape (a context manager).

        Raises:
            RuntimeError: if the tape is not currently recording.

        Examples:
            >>> import eagerflow as ef
            >>> x = ef.constant(2.0)
            >>> with ef.GradientTape() as tape:
            ...     tape.watch(x)
            ...     with tape.stop_recording():
            ...         ignored = x * x
            ...     y = x * 3.0
            >>> print(tape.gradient(ignored, x), tape.gradient is not None)
            None True
        """
        if not self._recording():
            raise RuntimeError(
                "GradientTape.stop_recording() needs a tape that is recording: use it "
                "inside the tape's `with` block."
            )
        context.pop_tape(self)
        try:
            yield
        finally:
            context.push_tape(self)

    def reset(self) -> None:
        """Forgets everything recorded and watched, as if the tape had just been created."""
        self._clear()
        self._used = False

    def watch(self, tensor: np.typing.ArrayLike) -> None:
        """Makes the tape track `tensor` (a Tensor, a Variable, or a nested structure of them).

        Raises:
            ValueError: for anything that is not a Tensor or Variable (TensorFlow's class).
        """
        for item in nest.flatten(tensor):
            if isinstance(item, _Variable):
                self._watched_vars[id(item)] = item
                if self._recording():
                    context.record_read(item, item._read())
                continue
            if not isinstance(item, _Tensor):
                raise ValueError(  # TensorFlow's class
                    f"GradientTape.watch() expects Tensors or Variables, got "
                    f"{type(item).__name__}: {item!r}. Convert it first: x = ef.constant(x)."
                )
            if item.dtype.kind not in "fc":
                errors.warn_once(
                    "watch-int",
                    f"GradientTape.watch() of a {item.dtype.name} tensor: gradients exist only "
                    "for floating-point tensors, so its gradient will be None. Cast it first: "
                    "ef.cast(x, ef.float32).",
                )
            self._tracked.add(id(item))
            self._watched[id(item)] = item

    def watched_variables(self) -> tuple:
        """The variables this tape watched (explicitly or when read), in creation order (TF's)."""
        return tuple(sorted(self._watched_vars.values(), key=lambda v: v._creation_index))

    # -- gradients ----------------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(
                f"A non-persistent GradientTape can only be used to compute one set of "
                f"gradients; this `{what}` call is a second one. Create the tape with "
                "`ef.GradientTape(persistent=True)` to call it more than once."
            )
        if self._recording() and not self._persistent:
            errors.warn_once(
                "gradient-inside",
                "Calling GradientTape.gradient() inside the tape's `with` block also records "
                "the backward pass on the tape, which costs memory and time. Call it after the "
                "block unless you need higher-order gradients from this tape.",
                stacklevel=4,
            )

    def _release(self) -> None:
        if not self._persistent:
            self._used = True
            watched = self._watched_vars
            self._clear()
            self._watched_vars = watched  # still reported, as TensorFlow does

    def gradient(self, target: np.typing.ArrayLike, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: str | UnconnectedGradients = "none") -> Any:
        """Computes the gradient of `target` with respect to `sources`.

        Args:
            target: a Tensor (or nested structure of Tensors) to differentiate; several
                targets are summed.
            sources: a Tensor or Variable, or a list/tuple/dict of them.
            output_gradients: gradients of some outer loss with respect to `target`
                (same structure), or None for ones.
            unconnected_gradients: ``"none"`` returns None for a source the target does not
                depend on, ``"zero"`` returns zeros of its shape.

        Returns:
            Gradients in the structure of `sources`; `why_none(source)` says why one is None.

        Raises:
            RuntimeError: on a second call of a non-persistent tape.
            ValueError: for an unknown `unconnected_gradients` value.
        """
        self._check_usable("gradient")
        unconnected = _check_unconnected(unconnected_gradients)
        flat_sources = nest.flatten(sources)
        targets = [_target_tensor(t) for t in nest.flatten(target)]
        seeds = None if output_gradients is None else nest.flatten(output_gradients)
        if seeds is not None and len(seeds) != len(targets):
            raise ValueError(
                f"output_gradients has {len(seeds)} entries but target has {len(targets)}"
            )
        try:
            grads = self._gradients(targets, seeds, flat_sources, unconnected, self._persistent)
        finally:
            self._release()
        raw_targets = nest.flatten(target)
        for i, source in enumerate(flat_sources):
            # A variable differentiated with respect to itself: ones (times its seed), as in
            # TensorFlow, even when it was not read inside the tape's block.
            if not isinstance(source, _Variable) or source.dtype.kind not in "fc" or (
                    grads[i] is not None and id(source) not in self._none_reasons):
                continue
            for j, t in enumerate(raw_targets):
                if t is source:
                    seed = (_run("OnesLike", (targets[j],), dtype=None) if seeds is None
                            else seeds[j])
                    grads[i] = cast_like(dispatch.convert_input(seed), source)
                    self._none_reasons.pop(id(source), None)
        return nest.pack_sequence_as(sources, grads)

    def _source_keys(self, source) -> list[int]:
        if isinstance(source, _Variable):
            return [id(s) for s in self._var_reads.get(id(source), ())]
        if isinstance(source, _Tensor):
            return [id(source)] if id(source) in self._tracked else []
        raise TypeError(
            f"GradientTape.gradient() sources must be Tensors or Variables, got "
            f"{type(source).__name__}: {source!r}"
        )

    def _gradients(self, targets, seeds, flat_sources, unconnected, keep) -> list:
        keys = [self._source_keys(s) for s in flat_sources]
        wanted = {k for ks in keys for k in ks}
        grads = backprop(self._records, targets, seeds, wanted, free=not keep)
        results = []
        self._none_reasons = {}
        for source, source_keys in zip(flat_sources, keys, strict=True):
            found = [grads[k] for k in source_keys if k in grads]
            if isinstance(source, _Variable) or isinstance(source, _Tensor):
                if source.dtype.kind not in "fc":
                    found = []
            if found:  # one gradient per read of a variable: their sum
                total = functools.reduce(lambda a, b: _run("AddV2", (a, b)), found)
                results.append(cast_like(total, source))
                continue
            reason = self._explain(source, source_keys)
            self._none_reasons[id(source)] = reason
            if isinstance(source, _Variable):
                _VARIABLE_NONE_REASONS[id(source)] = (weakref.ref(source), reason)
            results.append(_zeros(source.shape, source.dtype) if unconnected else None)
        return results

    def _explain(self, source, keys) -> str:
        if source.dtype.kind not in "fc":
            return (
                f"the source has dtype {source.dtype.name}: gradients exist only for "
                "floating-point tensors and variables"
            )
        if isinstance(source, _Variable):
            if id(source) not in self._watched_vars:
                if not source.trainable:
                    return "the variable is not trainable (trainable=False) and was not watched"
                return "the variable was never read while the tape was recording " + (
                    "except by .numpy(), which leaves the tape (a NumPy array has no gradient): "
                    "use the variable itself in ef ops" if id(source) in self._left_by_numpy
                    else "(or the tape was created with watch_accessed_variables=False and did "
                    "not watch it)")
            if not keys:
                return "the variable was watched but never read while the tape was recording"
        elif not keys:
            return (
                "the tensor is not watched by this tape: it is a constant, or it was computed "
                "before the tape started or outside its `with` block. Call tape.watch(x) on it "
                "before computing the target, or use an ef.Variable"
            )
        return "the target does not depend on it: " + (
            ".numpy() was called inside the tape (on it or on a value computed from it), and "
            ".numpy() leaves the tape: a NumPy array has no gradient. Keep the computation in "
            "ef ops, on the tensor or variable itself" if self._left_by_numpy & self._tracked
            else "no path of differentiable ops leads from it to the target (the path may go "
            "through a non-differentiable op such as argmax, round, a comparison or a cast to "
            "an integer dtype, or through stop_gradient)"
        )

    def why_none(self, source: Any) -> str | None:
        """Why the last `gradient` call returned None for `source` (None if it did not).

        Examples:
            >>> import eagerflow as ef
            >>> x = ef.constant(1.0)
            >>> with ef.GradientTape() as tape:
            ...     y = x * 2.0
            >>> print(tape.gradient(y, x))
            None
            >>> tape.why_none(x).split(":")[0]
            'the tensor is not watched by this tape'
        """
        return self._none_reasons.get(id(source))

    def jacobian(self, target: np.typing.ArrayLike, sources: Any,
                 unconnected_gradients: str | UnconnectedGradients = "none",
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Computes the full Jacobian of `target` with respect to each source.

        Returns:
            For each source (in the structure of `sources`), a tensor of shape
            ``target.shape + source.shape``.
        """
        del parallel_iterations, experimental_use_pfor  # one backward pass per element
        self._check_usable("jacobian")
        unconnected = _check_unconnected(unconnected_gradients)
        target = _target_tensor(target)
        flat_sources = nest.flatten(sources)
        size = _static_size(target.shape, "jacobian")
        rows: list[list] = [[] for _ in flat_sources]
        try:
            for i in range(size):
                one_hot = np.zeros(size, target.dtype)
                one_hot[i] = 1
                seed = tensor.new_tensor(one_hot.reshape(target.shape))
                grads = self._gradients([target], [seed], flat_sources, True, True)
                for row, g in zip(rows, grads, strict=True):
                    row.append(g)
        finally:
            self._release()
        results = []
        for source, row in zip(flat_sources, rows, strict=True):
            shape = tuple(target.shape) + tuple(source.shape)
            if size == 0:
                results.append(_zeros(shape, source.dtype))
                continue
            if not unconnected and id(source) in self._none_reasons:
                results.append(None)  # computed with zeros above; no path at all
                continue
            results.append(_reshape(_run("Pack", tuple(row), axis=0), shape))
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target: np.typing.ArrayLike, source: Any,
                       unconnected_gradients: str | UnconnectedGradients = "none",
                       parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Jacobian of each batch row of `target` with respect to the same row of `source`.

        Args:
            target: tensor of shape ``(batch, ...)``.
            source: tensor of shape ``(batch, ...)``; row ``i`` of `target` must depend only
                on row ``i`` of `source`.

        Returns:
            A tensor of shape ``(batch,) + target.shape[1:] + source.shape[1:]``.

        Raises:
            InvalidArgumentError: (a ValueError, as in TF) for a rank below 2 or unequal batches.
        """
        del parallel_iterations, experimental_use_pfor
        self._check_usable("batch_jacobian")
        unconnected = _check_unconnected(unconnected_gradients)
        target = _target_tensor(target)
        for name, value in (("target", target), ("source", source)):
            if len(value.shape) < 2:  # TensorFlow refuses rank 1 too: no per-row part
                raise errors.InvalidArgumentError(
                    f"batch_jacobian needs a {name} of rank at least 2 (batch, ...), got "
                    f"shape {tuple(value.shape)}; use `jacobian` for a {name} without a "
                    "batch dimension"
                )
        if target.shape[0] != source.shape[0]:
            raise errors.InvalidArgumentError(
                f"batch_jacobian needs target and source with the same leading (batch) "
                f"dimension, got shapes {target.shape} and {tuple(source.shape)}"
            )
        batch = target.shape[0]
        inner = _static_size(target.shape[1:], "batch_jacobian") if batch != 0 else 0
        ones = _run("OnesLike", (target,), dtype=target.dtype)  # the batch may be unknown
        rows = []
        try:
            for j in range(inner):
                row = np.zeros(inner, target.dtype)
                row[j] = 1
                seed = _run("Mul", (ones, tensor.new_tensor(row.reshape(target.shape[1:]))))
                (g,) = self._gradients([target], [seed], [source], True, True)
                rows.append(g)
        finally:
            self._release()
        shape = (batch,) + tuple(target.shape[1:]) + tuple(source.shape[1:])
        if not rows:
            return _zeros(shape, source.dtype)
        if not unconnected and self._none_reasons.get(id(source)) is not None:
            return None
        return _reshape(_run("Pack", tuple(rows), axis=1), shape)


class UnconnectedGradients(enum.Enum):
    """What `GradientTape.gradient` returns for a source the target does not depend on.

    `NONE` gives None, `ZERO` a tensor of zeros of the source's shape; the strings
    ``"none"`` and ``"zero"`` mean the same.

    Examples:
        >>> import eagerflow as ef
        >>> x, y = ef.constant(1.0), ef.constant(2.0)
        >>> with ef.GradientTape() as tape:
        ...     tape.watch([x, y])
        ...     z = x * 3.0
        >>> tape.gradient(z, y, unconnected_gradients=ef.UnconnectedGradients.ZERO)
        ef.Tensor(0.0, shape=(), dtype=float32)
    """

    NONE = "none"
    ZERO = "zero"


def _check_unconnected(value) -> bool:
    text = getattr(value, "value", value)
    if text not in ("none", "zero"):
        raise ValueError(
            f"unconnected_gradients must be 'none' or 'zero'. Received: "
            f"unconnected_gradients={value!r}"
        )
    return text == "zero"


def _static_size(shape, method: str) -> int:
    """The number of elements of `shape` (one backward pass each), which must be known."""
    if None in shape:
        raise errors.InvalidArgumentError(
            f"GradientTape.{method}: the target's shape {tuple(shape)} has an unknown "
            "dimension (None) in ef.function, and each element needs its own backward "
            "pass: give that dimension a fixed size in the input_signature.")
    return int(np.prod(shape, dtype=np.int64))


def _target_tensor(value: Any) -> tensor.Tensor:
    if isinstance(value, _Tensor):
        return value
    if isinstance(value, _Variable):
        return value._read()
    raise TypeError(
        f"GradientTape.gradient() target must be a Tensor or Variable, got "
        f"{type(value).__name__}: {value!r}"
    )


def cast_like(grad, like):
    return grad if grad.dtype == like.dtype else _run("Cast", (grad,), dtype=like.dtype)


def _fit(grad, x, op):
    """Sums a broadcast gradient back to the shape of input `x` and casts it to x's dtype."""
    if grad.shape != x.shape:
        shape = x.shape
        extra = grad.ndim - len(shape)
        if extra < 0:
            raise errors.InternalError(
                f"gradient of shape {grad.shape} for an input of shape {shape}", op.name
            )
        axes = tuple(range(extra)) + tuple(
            i + extra for i, n in enumerate(shape) if n == 1 and grad.shape[i + extra] != 1
        )
        if axes:
            grad = _run("Sum", (grad,), axis=axes, keepdims=False)
        if grad.shape != shape:
            grad = _reshape(grad, shape)
    if grad.dtype != x.dtype:
        grad = _run("Cast", (grad,), dtype=x.dtype)
    return grad


def _live_outputs(entry):
    """The output tensors of a record, or None when its single output has died."""
    if type(entry) is tuple:
        return entry
    out = entry()
    return None if out is None else (out,)


def recorded(tape: GradientTape) -> tuple[list, dict]:
    """What `tape` recorded, for a compiler that keeps it as a graph's gradient information
    (`ef.function` does): the records ``(op, inputs, attrs, outputs or a weak reference to
    the single output)`` in order, and ``{id(variable): (variable, [read snapshots])}`` for
    each variable it watched. `backprop` plays the records."""
    watched = tape._watched_vars
    return tape._records, {key: (watched[key], list(reads))
                           for key, reads in tape._var_reads.items() if key in watched}


def backprop(records: list, targets: list, seeds: list | None, wanted: set,
             free: bool) -> dict:
    """Plays `records` backwards from `targets`; returns gradients keyed by tensor id.

    The backward pass in three named steps, as tinygrad writes ``Tensor.backward``:

    1. `_reachable`: one forward walk finds every tensor that depends on a wanted source
       (the ids in `wanted`); no rule runs for anything else.
    2. `_seed`: each target that depends on a source starts with its seed from `seeds`
       (ones when None).
    3. `_apply_rule`: one backward walk calls each record's gradient rule when its outputs
       received a gradient, for the inputs that lead to a source, and accumulates what the
       rule returns (summed back to each input's shape and dtype by `_fit`).

    With `free`, each record is dropped once played (a non-persistent tape), and only the
    gradients of `wanted` tensors are kept to the end.
    """
    depends = _reachable(records, wanted)
    grads = _seed(targets, seeds, depends)
    pending: dict[int, object] = {}
    for i in range(len(records) - 1, -1, -1):
        record = records[i]
        if free:
            records[i] = None
        outputs = _apply_rule(record, grads, depends)
        if outputs is None:
            continue
        # Freed records no longer hold their inputs: keep alive every tensor that has a
        # gradient waiting for its producer to be processed.
        pending.update((id(x), x) for x in record[1] if id(x) in grads)
        for out in outputs:
            pending.pop(id(out), None)
            if id(out) not in wanted:
                grads.pop(id(out), None)
    return grads


def _reachable(records, wanted: set) -> set:
    """Step 1: the ids of `wanted` and of every recorded output that depends on one."""
    depends = set(wanted)
    for _, inputs, _, entry in records:
        for x in inputs:
            if id(x) in depends:
                outputs = _live_outputs(entry)
                if outputs is not None:
                    depends.update(id(o) for o in outputs)
                break
    return depends


def _seed(targets, seeds, depends: set) -> dict:
    """Step 2: the starting gradients, ``{id(target): seed}`` (ones where no seed is given)."""
    grads: dict[int, object] = {}
    for i, t in enumerate(targets):
        if id(t) not in depends:
            continue
        seed = seeds[i] if seeds is not None else None
        if seed is None:
            seed = _run("OnesLike", (t,), dtype=None)
        _accumulate(grads, id(t), dispatch.convert_input(seed))
    return grads


def _apply_rule(record, grads: dict, depends: set):
    """Step 3, for one record: runs its op's gradient rule and accumulates the input
    gradients into `grads`. Returns the record's outputs, or None when it was skipped (its
    output died, received no gradient, or no input leads to a source)."""
    op, inputs, attrs, entry = record
    outputs = _live_outputs(entry)
    if outputs is None:
        return None
    if len(outputs) == 1 and type(entry) is not tuple:
        y = outputs[0]
        dy = grads.get(id(y))
        if dy is None:
            return None
    else:
        dys = [grads.get(id(o)) for o in outputs]
        if all(d is None for d in dys):
            return None
        dy = tuple(_run("ZerosLike", (o,), dtype=None) if d is None else d
                   for d, o in zip(dys, outputs, strict=True))
        y = outputs
    needs = tuple(id(x) in depends and isinstance(x, _Tensor) and x._value.dtype.kind in "fc"
                  for x in inputs)
    if True not in needs:
        return None
    if op.grad is None:
        raise errors.UnimplementedError(
            f"No gradient is defined for op {op.name}; it cannot be differentiated. "
            "Wrap the computation in ef.stop_gradient or define one with "
            "@ef.custom_gradient.",
            op.name,
        )
    if op.grad_needs:
        dxs = op.grad(dy, y, *inputs, needs=needs, **attrs)
    else:
        dxs = op.grad(dy, y, *inputs, **attrs)
    if type(dxs) is not tuple and type(dxs) is not list:
        dxs = (dxs,)
    if len(dxs) != len(inputs):
        raise errors.InternalError(
            f"gradient rule returned {len(dxs)} gradients for {len(inputs)} inputs",
            op.name,
        )
    for x, dx, need in zip(inputs, dxs, needs, strict=True):
        if need and dx is not None:
            if type(dx) is not _Tensor:
                dx = dispatch.convert_input(dx)
            if dx._value.shape != x._value.shape or dx._value.dtype != x._value.dtype:
                dx = _fit(dx, x, op)
            _accumulate(grads, id(x), dx)
    return outputs


def _accumulate(grads: dict, key: int, grad) -> None:
    previous = grads.get(key)
    grads[key] = grad if previous is None else _run("AddV2", (previous, grad))


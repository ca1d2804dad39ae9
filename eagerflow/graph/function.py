"""`ef.function`: trace a Python function into a graph once, then run the graph.

The first call with a new *signature* traces the function: it runs once with symbolic
tensors standing for the tensor arguments, and every op becomes a node of a graph (see
`trace.py`). Later calls with the same signature run the optimised graph (see
`passes/`, `executor.py`) without running the Python code. The signature is:

* the dtype and shape of each tensor argument (NumPy arrays count as tensors);
* the value of each Python argument (numbers, strings, None, other hashable objects);
  the identity of each Variable argument;
* the nesting structure of list, tuple and dict arguments.

``input_signature=[ef.TensorSpec([None, 784], ef.float32)]`` fixes the signature: one
graph serves every batch size. ``reduce_retracing=True`` makes the second trace for a
new shape use unknown (None) dimensions where the shapes differed. After five retraces a
warning names the argument that keeps changing.

What runs when:

* Python side effects (``print``, appending to a list, ...) happen only while tracing,
  i.e. on the first call of each signature. `ef.print` prints on every call.
* Variables are captured by reference: reads see the current value, ``assign``,
  ``assign_add`` and ``assign_sub`` happen in program order, once per call.
* The first call of a signature *is* the traced run: its results and effects come from
  the trace, so nothing happens twice.
* Python ``if``/``while``/``for`` on a tensor value are converted to `ef.cond` /
  `ef.while_loop` before the first trace (AutoGraph, see `eagerflow.graph.autograph`;
  off with ``autograph=False``); on Python values they run as Python. Calls of other
  `ef.function`s while tracing are inlined.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def scaled_sum(x, scale):
    ...     print("tracing with scale", scale)
    ...     return ef.reduce_sum(x) * scale
    >>> scaled_sum(ef.constant([1.0, 2.0]), 2.0)
    tracing with scale 2.0
    ef.Tensor(6.0, shape=(), dtype=float32)
    >>> scaled_sum(ef.constant([3.0, 4.0]), 2.0)
    ef.Tensor(14.0, shape=(), dtype=float32)
    >>> scaled_sum.experimental_get_tracing_count()
    1
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from eagerflow import config
from eagerflow.core import context, dispatch, errors, nest, spec, tensor
from eagerflow.graph import autograph, concrete, graph, shape_probe, signatures, trace
from eagerflow.graph.passes import fusion

_Tensor = tensor.Tensor
_flags = context.flags
_eager_mode = config._eager_mode
_RETRACE_WARNING = 5  # retraces before the warning, as in TensorFlow


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Any) -> Iterator[None]:
    """Makes every `Variable` created in the block go through `variable_creator`.

    ``variable_creator(next_creator, **kwargs)`` receives the arguments of the
    `Variable` call (``initial_value``, ``trainable``, ``name``, ``dtype``,
    ``constraint``, ``shape``) and returns a variable, usually ``next_creator(**kwargs)``
    with some changed; scopes nest, the innermost creator running first (TensorFlow's
    ``tf.variable_creator_scope``). Inside `ef.function` it applies while tracing.

    Args:
        variable_creator: the creator, a callable as above.

    Raises:
        TypeError: if `variable_creator` is not callable.

    Examples:
        >>> import eagerflow as ef
        >>> def frozen(next_creator, **kwargs):
        ...     kwargs["trainable"] = False
        ...     return next_creator(**kwargs)
        >>> with ef.variable_creator_scope(frozen):
        ...     v = ef.Variable(1.0)
        >>> v.trainable
        False
    """
    if not callable(variable_creator):
        raise TypeError(f"variable_creator_scope: variable_creator must be callable, got "
                        f"{type(variable_creator).__name__}")
    stack = _creators.stack
    stack.append(variable_creator)
    context.thread.variable_creator = _create_variable  # read by Variable's metaclass
    try:
        yield
    finally:
        stack.remove(variable_creator)
        if not stack:
            context.thread.variable_creator = None


class _CreatorStack(threading.local):
    """The creators of the `variable_creator_scope`s in force in this thread, outermost first."""

    def __init__(self) -> None:
        self.stack: list = []


_creators = _CreatorStack()
_VARIABLE_ARGUMENTS = ("initial_value", "trainable", "name", "dtype", "constraint", "shape")


def _create_variable(cls: type, args: tuple, kwargs: dict) -> Any:
    """``cls(*args, **kwargs)`` through the creators of the scopes in force, innermost
    first; the last `next_creator` makes the variable."""
    creators = _creators.stack
    if len(args) > len(_VARIABLE_ARGUMENTS):
        raise TypeError(f"Variable takes at most {len(_VARIABLE_ARGUMENTS)} positional "
                        f"arguments, got {len(args)}")
    arguments = {"initial_value": None, "trainable": True, "name": None, "dtype": None,
                 "constraint": None, "shape": None,
                 **dict(zip(_VARIABLE_ARGUMENTS, args)), **kwargs}

    def creator_at(index: int) -> Any:
        def next_creator(**given: Any) -> Any:
            if index < 0:
                return type.__call__(cls, **given)
            return creators[index](creator_at(index - 1), **given)
        return next_creator

    return creator_at(len(creators) - 1)(**arguments)


class name_scope:  # noqa: N801 - TensorFlow's name
    """A context manager: variables created in the block are named ``"<name>/..."``
    (nested scopes join with ``/``); entering it gives the full scope, ``"outer/inner/"``.
    As in TensorFlow 2, it names variables only (ops have no names here).

    Args:
        name: the scope's name (a string).

    Raises:
        ValueError: if `name` is not a string (TensorFlow's class).

    Examples:
        >>> import eagerflow as ef
        >>> with ef.name_scope("outer") as scope, ef.name_scope("inner"):
        ...     scope, ef.Variable(1.0, name="v").name
        ('outer/', 'outer/inner/v')
    """

    def __init__(self, name: str) -> None:  # noqa: D107
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string. Received: name={name!r}")
        self._name = name
        self._scope: Any = None

    @property
    def name(self) -> str:
        """The scope's own name, as given."""
        return self._name

    def __enter__(self) -> str:
        self._scope = context.name_scope(self._name)
        return self._scope.__enter__()

    def __exit__(self, *exc_info: object) -> None:
        self._scope.__exit__(*exc_info)


def get_static_value(tensor_value: Any, partial: bool = False) -> Any:
    """The value of a tensor when it is known without running the graph, else None.

    Eagerly every tensor's value is known. While tracing, a tensor is known when it is
    computed from constants alone, or is a shape of known size (``ef.shape(x)``), as
    TensorFlow's constant folding finds; a value that depends on an argument is not.

    Args:
        tensor_value: a tensor, a variable or a Python/NumPy value.
        partial: accepted for TensorFlow compatibility (a partly known value is None).

    Returns:
        A NumPy array (or the Python/NumPy value itself), or None.

    Examples:
        >>> import eagerflow as ef
        >>> ef.get_static_value(ef.constant([1, 2]))
        array([1, 2], dtype=int32)
        >>> @ef.function
        ... def f(x):
        ...     return ef.get_static_value(x), ef.get_static_value(ef.shape(x))
        >>> f.python_function(ef.constant([1.0, 2.0]))[1]
        array([2], dtype=int32)
    """
    del partial
    if hasattr(tensor_value, "_read") and hasattr(tensor_value, "assign"):
        return tensor_value.numpy() if context.thread.tracer is None else None
    if graph.is_symbolic(tensor_value):
        const = tensor_value._const
        return None if const is None else np.array(const)
    if isinstance(tensor_value, _Tensor):
        return tensor_value.numpy()
    return tensor_value


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str | None = "gradients",
              gate_gradients: bool = False, aggregation_method: Any = None,
              stop_gradients: Any = None, unconnected_gradients: Any = "none") -> list:
    """The symbolic gradients of the sum of `ys` with respect to each of `xs`, inside
    `ef.function` (TensorFlow's ``tf.gradients``): every op of the trace is recorded, so
    no tape is needed. Eagerly use `ef.GradientTape`.

    Args:
        ys: a tensor or a list of tensors of the trace.
        xs: a tensor or a list of tensors (arguments or intermediate values) or variables.
        grad_ys: the gradients of `ys` to start from (ones when None), one per `ys`.
        name, gate_gradients, aggregation_method: accepted for TensorFlow compatibility.
        stop_gradients: must be None (not supported: use `ef.stop_gradient` in the
            computation).
        unconnected_gradients: ``"none"`` (None for an `xs` that `ys` do not depend on)
            or ``"zero"``.

    Returns:
        A list with one gradient (or None) per entry of `xs`.

    Raises:
        RuntimeError: when called eagerly (as TensorFlow).
        UnimplementedError: inside a loop body or a branch, or with `stop_gradients`.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function
        ... def slope(x):
        ...     y = x * x
        ...     return ef.gradients(y, x)[0]
        >>> slope(ef.constant(3.0))
        ef.Tensor(6.0, shape=(), dtype=float32)
    """
    del name, gate_gradients, aggregation_method
    tracer = trace.current()
    if tracer is None:
        raise RuntimeError("ef.gradients is not supported when eager execution is enabled: "
                           "use ef.GradientTape (or call it inside an ef.function).")
    if stop_gradients is not None:
        raise errors.UnimplementedError(
            "ef.gradients: stop_gradients is not supported; apply ef.stop_gradient to those "
            "tensors in the computation instead.")
    recorder = tracer.private
    if recorder is None:
        raise errors.UnimplementedError(
            "ef.gradients inside a loop body or a branch (ef.while_loop, ef.cond, or a "
            "converted Python loop or if) is not supported; call it after the loop, or use "
            "an ef.GradientTape inside the body.")
    targets = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    sources = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    seeds = None
    if grad_ys is not None:
        seeds = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        if len(seeds) != len(targets):
            raise ValueError(f"ef.gradients: grad_ys has {len(seeds)} entries but ys has "
                             f"{len(targets)}; give one per ys.")
    return list(recorder.gradient(targets, sources, output_gradients=seeds,
                                  unconnected_gradients=unconnected_gradients))


class Function:
    """A Python function compiled by tracing; made by `ef.function` (see `function`).

    Calling it runs the graph traced for the call's signature (tracing it first if this
    signature is new). Used as a method decorator, each instance gets its own traces.

    Attributes:
        python_function: the wrapped Python function.
        input_signature: the input signature, or None.

    Examples:
        >>> import eagerflow as ef
        >>> square = ef.function(lambda x: x * x)
        >>> square(ef.constant(3.0)), square(ef.constant([1.0, 2.0]))
        (ef.Tensor(9.0, shape=(), dtype=float32), ef.Tensor([1. 4.], shape=(2,), dtype=float32))
        >>> square.experimental_get_tracing_count()
        2
    """

    def __init__(self, python_function, input_signature=None, reduce_retracing=False,
                 name=None, autograph=True, jit_compile=None):  # noqa: D107
        if not callable(python_function):
            raise TypeError(
                f"ef.function needs a callable, got {type(python_function).__name__}: "
                f"{python_function!r}"
            )
        functools.update_wrapper(self, python_function, updated=())
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", type(python_function).__name__)
        self._input_signature = signatures.check_signature(input_signature, self._name)
        self._reduce_retracing = bool(reduce_retracing)
        self._autograph = bool(autograph)
        if jit_compile not in (None, True, False):
            raise TypeError(f"ef.function: `jit_compile` must be None, True or False. "
                            f"Received: jit_compile={jit_compile!r}")
        if jit_compile:
            fusion.require()
        self._jit_compile = jit_compile
        self._converted = None
        self._cache: dict = {}
        self._fast: dict = {}  # flat (shape, dtype, ...) of all-tensor calls -> function
        self._relaxed: dict = {}
        self._tracing_count = 0
        # Whether a first trace that made variables is traced again to check that it makes
        # them once (model step functions build once by design and skip it: see
        # models/step_function.py)
        self._recheck_variables = True
        self._history: list = []
        self._described: dict[int, str] = {}  # id(cf) -> its concrete signature, as text
        self._lock = threading.RLock()
        self._bound: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        try:
            self._signature: inspect.Signature | None = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        params = list(self._signature.parameters.values()) if self._signature else []
        simple = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        self._nargs = len(params) if simple and self._signature is not None else -1

    @property
    def python_function(self):
        """The wrapped Python function."""
        return self._python_function

    @property
    def input_signature(self):
        """The input signature given to `ef.function`, or None."""
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the function has been traced (one per distinct signature).

        Examples:
            >>> import eagerflow as ef
            >>> f = ef.function(lambda x, n: x * n)
            >>> _ = f(ef.constant(1.0), 2), f(ef.constant(5.0), 2), f(ef.constant(1.0), 3)
            >>> f.experimental_get_tracing_count()
            2
        """
        return self._tracing_count

    def pretty_printed_concrete_signatures(self) -> str:
        """The input and output types of each traced graph, as text (one block per graph).

        Tensor arguments print as the `ef.TensorSpec` of their placeholder, Python values as
        ``Literal[value]`` (each value traced its own graph); ``Captures`` lists the
        variables the graph reads.

        Returns:
            The blocks, separated by an empty line ("" before the first trace).

        Examples:
            >>> import eagerflow as ef
            >>> f = ef.function(lambda x, n: x * n)
            >>> _ = f(ef.constant([1.0, 2.0]), 3)
            >>> print(f.pretty_printed_concrete_signatures())
            Input Parameters:
              x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=float32, name=None)
              n (POSITIONAL_OR_KEYWORD): Literal[3]
            Output Type:
              TensorSpec(shape=(2,), dtype=float32, name=None)
            Captures:
              None
        """
        return "\n\n".join(self._described.values())

    def _describe(self, cf, specs, values, names) -> str:
        leaves = iter(specs)

        def text(value):
            if signatures.is_tensor_leaf(value, allow_specs=True):
                shape, dtype = next(leaves, (value.shape, value.dtype))
                return repr(spec.TensorSpec(shape, dtype))
            if isinstance(value, dict):
                items = {k: text(value[k]) for k in nest.sorted_keys(value)}
                return "Dict[" + ", ".join(f"{k!r}: {items[k]}" for k in value) + "]"
            if isinstance(value, (list, tuple)):
                kind = "List" if isinstance(value, list) else "Tuple"
                return f"{kind}[" + ", ".join(text(v) for v in value) + "]"
            return f"Literal[{value!r}]"

        def output(value):
            if graph.is_symbolic(value):
                return repr(spec.TensorSpec(value.shape, value.dtype))
            if isinstance(value, dict):
                return "Dict[" + ", ".join(f"{k!r}: {output(v)}" for k, v in value.items()) + "]"
            if isinstance(value, (list, tuple)):
                kind = "List" if isinstance(value, list) else "Tuple"
                return f"{kind}[" + ", ".join(output(v) for v in value) + "]"
            return f"Literal[{value!r}]"

        if self._input_signature is not None:  # the placeholders follow the signature
            values = list(self._input_signature)
            names = names[:len(values)]
        parameters = self._signature.parameters if self._signature is not None else {}
        lines = ["Input Parameters:"]
        for name, value in zip(names, values, strict=True):
            param = parameters.get(name) or parameters.get(name.rpartition("_")[0])
            kind = param.kind.name if param is not None else "POSITIONAL_ONLY"
            lines.append(f"  {name} ({kind}): {text(value)}")
        lines += ["Output Type:", f"  {output(cf.structured_outputs)}", "Captures:"]
        captured = [v.name for v in cf.variables]
        lines.append(f"  {', '.join(captured)}" if captured else "  None")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ef.function {self._name} ({self._tracing_count} traces)>"

    def __get__(self, instance, owner):
        # `@ef.function` on a method: each instance gets its own traced functions.
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # unhashable or not weak-referenceable: keep it on the instance
            slot = f"_ef_function_{id(self)}"
            bound = getattr(instance, "__dict__", {}).get(slot)
            if bound is None:
                bound = self._bind_to(instance)
                if hasattr(instance, "__dict__"):
                    instance.__dict__[slot] = bound
            return bound
        if bound is None:
            bound = self._bound[instance] = self._bind_to(instance)
        return bound

    def _bind_to(self, instance):
        return Function(types.MethodType(self._python_function, instance),
                        self._input_signature, self._reduce_retracing, self._name,
                        self._autograph, self._jit_compile)

    # -- calls -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        state = context.thread
        if _eager_mode.eager:  # ef.config.run_functions_eagerly(True), for debugging
            return self._python_function(*args, **kwargs)
        if state.tracer is not None:  # inside another traced function: inline
            return self._traced_function()(*args, **kwargs)
        if not kwargs and not _flags.intercepted:
            # hot path: positional tensors (and Nones), seen before, nothing recording: one
            # dict lookup
            key = _fast_key(args)
            if key is not None:
                cf = self._fast.get(key)
                if cf is not None:
                    return cf.run_arrays([a._value for a in args if a is not None])
        key, tensors = self._key(args, kwargs)
        cf = self._cache.get(key)
        if cf is None:
            with self._lock:
                cf = self._cache.get(key) or self._relaxed_match(key, tensors)
                if cf is None:
                    return self._trace_and_run(args, kwargs, key, tensors)
        if not kwargs:
            fast = _fast_key(args)
            present = [a for a in args if a is not None]
            if fast is not None and len(present) == len(tensors) and all(
                    a is t for a, t in zip(present, tensors, strict=True)):
                self._fast[fast] = cf
        return cf.pack(cf.call_flat(tensors))

    def list_concrete_functions(self) -> list:
        """The `ConcreteFunction`s traced so far, oldest first (one per input signature).

        Examples:
            >>> import eagerflow as ef
            >>> double = ef.function(lambda x: x * 2)
            >>> _ = double(ef.constant(1.0)), double(ef.constant([1, 2]))
            >>> [cf.inputs[0].dtype.name for cf in double.list_concrete_functions()]
            ['float32', 'int32']
        """
        with self._lock:
            return list(dict.fromkeys(self._cache.values()))

    def get_concrete_function(self, *args, **kwargs):
        """Traces (if needed) and returns the `ConcreteFunction` for these arguments.

        Arguments may be tensors or `ef.TensorSpec`s (which trace with unknown values).
        With an `input_signature` and no arguments, returns the signature's function.

        Raises:
            TypeError / InvalidArgumentError: if the arguments do not fit the signature.

        Examples:
            >>> import eagerflow as ef
            >>> f = ef.function(lambda x: ef.nn.relu(x) * 2.0)
            >>> cf = f.get_concrete_function(ef.TensorSpec([None], ef.float32))
            >>> [op.type for op in cf.graph.operations]
            ['Placeholder', 'Relu', 'Mul']
            >>> cf(ef.constant([-1.0, 3.0]))
            ef.Tensor([0. 6.], shape=(2,), dtype=float32)
        """
        if self._input_signature is not None and not args and not kwargs:
            args = tuple(self._input_signature)
        key, tensors = self._key(args, kwargs, allow_specs=True)
        with self._lock:
            cf = self._cache.get(key) or self._relaxed_match(key, tensors)
            if cf is None:
                cf, _ = self._trace(args, kwargs, key, tensors, executing=False)
        return cf

    def _trace_and_run(self, args, kwargs, key, tensors):
        outer_tapes = context.thread.tapes
        cf, outputs = self._trace(args, kwargs, key, tensors, executing=True)
        if outer_tapes:
            cf.record_traced_call(tensors, outputs, outer_tapes)
        cf.graph.drop_shadows()
        return cf.pack(outputs)

    def _traced_function(self):
        """The function to trace: the Python function with its control flow converted
        (see `autograph`), or as it is with ``autograph=False``."""
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            self._converted = autograph.convert(self._python_function)
        return self._converted

    # -- signatures --------------------------------------------------------------------------
    def _key(self, args, kwargs, allow_specs=False):
        if not kwargs and len(args) == self._nargs and self._input_signature is None:
            parts = []
            for a in args:
                if type(a) is not _Tensor:
                    break
                value = a._value
                parts.append((value.shape, value.dtype))
            else:
                return tuple(parts), list(args)
        values, names, _ = signatures.bind(self._signature, self._name, args, kwargs)
        if self._input_signature is not None:
            if len(args) + len(kwargs) > len(self._input_signature):
                raise TypeError(
                    f"{self._name}() was given {len(args) + len(kwargs)} arguments but its "
                    f"input_signature has {len(self._input_signature)} entries; with an "
                    "input_signature every argument must be a tensor described by it."
                )
            return signatures.signature_key(self._name, self._input_signature, values, names,
                                            allow_specs)
        tensors: list = []
        key = tuple(signatures.encode(v, tensors, allow_specs) for v in values)
        return key, tensors

    def _relaxed_match(self, key, tensors):
        if not self._reduce_retracing:
            return None
        for specs, cf in self._relaxed.get(signatures.generic(key), ()):
            if all(signatures.fits(s, t) for s, t in zip(specs, tensors, strict=False)):
                self._cache[key] = cf
                return cf
        return None

    def _specs_for(self, key, tensors):
        """Placeholder (shape, dtype) per tensor: exact, signature or relaxed."""
        if self._input_signature is not None:
            return [(want.shape, want.dtype) for want in nest.flatten(list(self._input_signature))]
        specs = [(tuple(t.shape), t.dtype) for t in tensors]
        if self._reduce_retracing:
            previous = self._relaxed.get(signatures.generic(key))
            if previous:
                old = previous[-1][0]
                specs = [(shape_probe.merge(o[0], s[0]), s[1])
                         for o, s in zip(old, specs, strict=True)]
        return specs

    # -- tracing -------------------------------------------------------------------------------
    def _trace(self, args, kwargs, key, tensors, executing, check=False, py_replay=None):
        made = _variables_made()
        first = self._tracing_count == 0
        py_calls: list = []  # what the first trace's py_functions returned, for the check
        cf, outputs, register = self._trace_once(args, kwargs, key, tensors, executing,
                                                 py_replay=py_replay, py_record=py_calls)
        if check:
            return cf, outputs
        if _variables_made() == made:
            register()
            return cf, outputs
        if not first:
            raise ValueError(
                f"ef.function {self._name!r} created variables on a non-first trace (only "
                "its first call may create them): create them outside the function, or on "
                "its first call only (e.g. `if self.v is None: self.v = ef.Variable(...)`); "
                "use one ef.function per optimizer or model.")
        if not self._recheck_variables:
            register()
            return cf, outputs
        # As TensorFlow, the first trace is repeated: a function that makes new variables
        # on every call (`v = ef.Variable(...)` in its body) would keep the first ones.
        made = _variables_made()
        self._trace(args, kwargs, key, tensors, executing=False, check=True, py_replay=py_calls)
        if _variables_made() != made:
            raise ValueError(
                f"ef.function {self._name!r} creates variables on every call: ef.function "
                "only supports variables created once, on the first call. Create the "
                "variable outside the function, or only when it does not exist yet.")
        register()
        return cf, outputs

    def _trace_once(self, args, kwargs, key, tensors, executing, py_replay=None,
                    py_record=None):
        """One trace: the `ConcreteFunction`, the outputs of an executing trace, and a
        function that registers the trace in the cache. `py_record` collects what its
        py_functions return; `py_replay` hands them back instead of calling them."""
        specs = self._specs_for(key, tensors)
        graph_ = graph.Graph(self._name)
        graph_.jit_compile = self._jit_compile
        tracer = trace.Tracer(graph_, executing=executing)
        tracer.py_record, tracer.py_replay = py_record, py_replay
        tracer.checking = py_replay is not None
        values, names, layout = signatures.bind(self._signature, self._name, args, kwargs)
        with trace.active(tracer, private=True) as recorder:
            counter = iter(range(len(specs)))

            def placeholder(leaf, name):
                if not signatures.is_tensor_leaf(leaf, allow_specs=True):
                    return leaf
                i = next(counter)
                shape, dtype = specs[i]
                real = tensors[i]
                shadow = real._value if isinstance(real, _Tensor) else None
                ph = tracer.placeholder(shape, dtype, name, shadow=shadow)
                if ph.dtype.kind in "fc":
                    recorder.watch(ph)
                return ph

            if self._input_signature is not None:
                new_values = list(values)
                for position, expected in enumerate(self._input_signature):
                    leaves = [placeholder(spec.TensorSpec([]), f"{names[position]}_{i}"
                                          if nest.is_nested(expected) else names[position])
                              for i, _ in enumerate(nest.flatten(expected))]
                    new_values[position] = (nest.pack_sequence_as(expected, leaves)
                                            if nest.is_nested(expected) else leaves[0])
            else:
                new_values = [signatures.map_leaves(v, placeholder, name)
                              for v, name in zip(values, names, strict=True)]
            call_args, call_kwargs = signatures.rebuild_call(new_values, layout, names)
            saved_autograph, trace.options.autograph = trace.options.autograph, self._autograph
            before = [_structure(v) for v in new_values]
            try:
                result = self._traced_function()(*call_args, **call_kwargs)
            finally:
                trace.options.autograph = saved_autograph
            self._check_unmodified(names, before, new_values)
            structure = _outputs(result, tracer, graph_)
            graph.raise_deferred(graph_.outputs)  # an op the outputs need failed
        graph_.input_keys = list(graph_.inputs)
        cf = concrete.ConcreteFunction(graph_, structure, self._name)
        cf.literals = [v for v in nest.flatten(values) if v is not None and not (
            concrete._is_tensor_like(v) or isinstance(v, spec.TensorSpec))]
        outputs = None
        if executing:
            outputs = [concrete._wrap(t._shadow) for t in graph_.outputs]
        return cf, outputs, lambda: self._register(key, tensors, specs, cf, values, names)

    def _check_unmodified(self, names, before, values):
        """Refuses a trace that changed a list or dict argument, as TensorFlow: the change
        would happen once, while tracing, to a copy the caller never sees."""
        changed = [name for name, old, value in zip(names, before, values, strict=True)
                   if _structure(value) != old]
        if changed:
            raise ValueError(
                f"ef.function {self._name!r} should not modify its Python input arguments; "
                f"the following parameter(s) were modified: {', '.join(changed)}. The "
                "change would happen only while tracing, to a copy the caller never sees. "
                "Modifying a copy is allowed (`items = list(items)`); return new values "
                "instead of storing them in an argument.")

    def _register(self, key, tensors, specs, cf, values, names):
        self._cache[key] = cf
        self._described[id(cf)] = self._describe(cf, specs, values, names)
        if self._reduce_retracing and self._input_signature is None:
            self._relaxed.setdefault(signatures.generic(key), []).append((specs, cf))
        self._tracing_count += 1
        described = (signatures.describe(v) for v in values)
        self._history.append(dict(zip(names, described, strict=False)))
        if self._tracing_count == _RETRACE_WARNING + 1:
            errors.warn_once(f"retracing-{id(self)}", self._retrace_message(), stacklevel=5)

    def _retrace_message(self) -> str:
        changes = {}
        for name in self._history[0]:
            seen = [h.get(name) for h in self._history]
            distinct = len(set(seen))
            if distinct > 1:
                changes[name] = (distinct, seen)
        text = (f"ef.function {self._name!r} has been traced {self._tracing_count} times "
                f"({self._tracing_count - 1} retraces); tracing is expensive. ")
        if changes:
            name, (_, seen) = max(changes.items(), key=lambda item: item[1][0])
            shown = ", ".join(seen[-6:])
            text += (f"The argument that keeps changing is {name!r}: {shown}. ")
        return text + (
            "Pass Python numbers that change as tensors (ef.constant(n)), give tensors whose "
            "shape changes an input_signature with None dimensions (or use "
            "reduce_retracing=True), and create the ef.function once, outside loops."
        )


def _structure(value) -> Any:
    """The nesting of `value`'s lists, tuples and dicts, with the identity of each leaf
    (what an argument must still have after the trace)."""
    if isinstance(value, dict):
        return ("dict", [(key, _structure(item)) for key, item in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_structure(item) for item in value])
    return id(value)


def _variables_made() -> int:
    """How many Variables this thread made so far (counted by `Variable.__init__`)."""
    return context.thread.variables_made


def _fast_key(args):
    """``(shape, dtype, ...)`` of positional arguments that are all tensors or None (a None
    marks its place), or None when another kind of argument is present."""
    key: list[Any] = []
    for a in args:
        if type(a) is _Tensor:
            value = a._value
            key.append(value.shape)
            key.append(value.dtype)
        elif a is None:
            key.append(None)
        else:
            return None
    return tuple(key)


def function(func: Callable[..., Any] | None = None, input_signature: Any = None,
             reduce_retracing: bool = False, autograph: bool = True, jit_compile: Any = None,
             experimental_relax_shapes: Any = None, name: str | None = None) -> Any:
    """Compiles a Python function into a graph the first time it is called.

    Use as ``@ef.function``, ``@ef.function(input_signature=[...])`` or
    ``ef.function(f, ...)``. See the module documentation of `eagerflow.graph.function`
    for the retracing rules and what runs when.

    Args:
        func: the function (or callable object) to compile.
        input_signature: a list of `ef.TensorSpec` (possibly nested), one per positional
            argument; None dimensions accept any size. Every call must match it.
        reduce_retracing: after a shape change, trace with unknown dimensions where the
            shapes differed, so later shapes reuse that graph.
        autograph: convert Python ``if``/``while``/``for`` (and ``break``, ``continue``,
            early ``return``) whose condition is a tensor into `ef.cond` / `ef.while_loop`
            (see `eagerflow.graph.autograph`); False traces the function as written.
        jit_compile: elementwise fusion (see `eagerflow.graph.passes.fusion`): None
            (default) fuses when the numba kernel set is active (``pip install
            'eagerflow[fast]'``) and `ef.config.optimizer` allows it; False never fuses;
            True always does and raises `UnimplementedError` here without it. Fusion changes speed
            only: values agree with the unfused plan to float rounding.
        experimental_relax_shapes: old name of `reduce_retracing`.
        name: a name for the graph.

    Returns:
        A `Function` (or a decorator making one, when `func` is None).

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
        ... def norm(x):
        ...     return ef.sqrt(ef.reduce_sum(x * x, axis=1))
        >>> norm(ef.constant([[3.0, 4.0]])), norm(ef.ones([3, 2])).shape
        (ef.Tensor([5.], shape=(1,), dtype=float32), (3,))
        >>> norm.experimental_get_tracing_count()
        1
    """
    relax = bool(reduce_retracing or experimental_relax_shapes)

    def decorate(f):
        return Function(f, input_signature, relax, name, autograph, jit_compile)

    return decorate if func is None else decorate(func)


# -- helpers ----------------------------------------------------------------------------------
def _outputs(result, tracer, graph_):
    """The structured outputs with each tensor replaced by an `Output` marker."""
    def leaf(value):
        if hasattr(value, "_read") and hasattr(value, "assign"):
            value = tracer.read_variable(value)
        elif isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
            # as TensorFlow: a returned Python number is a tensor output too (strings stay
            # Python: a saved function's graph holds no string arrays)
            value = tracer.ref(dispatch.convert_input(value))
        if graph.is_symbolic(value):
            value = tracer.ref(value)
            graph_.outputs.append(value)
            return concrete.Output(len(graph_.outputs) - 1)
        return value

    return nest.map_structure(leaf, result) if nest.is_nested(result) else leaf(result)

"""Graphs as data: encoding traced graphs to JSON plus arrays, and decoding them back.

An exported graph is a list of nodes, each naming its op (a name from eagerflow's op
registry or one of the graph-only ops), its inputs (references to earlier nodes'
outputs, or literal numbers), its attributes and its output shapes and dtypes. Attribute
values are tagged JSON: numbers (floats as exact hex strings), strings, tuples, lists,
dtypes, slices, arrays (stored separately, numeric dtypes only), variables (by index),
random generator states and subgraphs. Nothing else can be written, and reading accepts
nothing else: an unknown op name, an unknown tag, a dangling reference or a non-numeric
array is an `InvalidArgumentError` naming the function and node. No code is stored and
none is run when reading (`ef.py_function` graphs cannot be exported).

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.graph import graph_codec
    >>> cf = ef.function(lambda x: x * 2.0).get_concrete_function(ef.TensorSpec([3]))
    >>> writer = graph_codec.Writer()
    >>> encoded = writer.function(cf, "double")
    >>> [node["op"] for node in encoded["graph"]["nodes"]]
    ['Placeholder', 'Mul']
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import dispatch, errors
from eagerflow.graph import graph, trace

_is_symbolic = graph.is_symbolic
_KINDS = "biufc"  # array and dtype kinds a file may hold (no objects, strings or voids)


def _is_variable(value) -> bool:
    return hasattr(value, "_buf") and hasattr(value, "assign")


class Writer:
    """Collects the encoded functions, arrays and variables of one export."""

    def __init__(self):  # noqa: D107
        self.arrays: list = []
        self.variables: list = []
        self._variable_index: dict[int, int] = {}

    def array(self, value: np.ndarray) -> int:
        if value.dtype.kind not in _KINDS:
            raise errors.InvalidArgumentError(
                f"cannot export an array of dtype {value.dtype}: only numeric and bool data"
            )
        self.arrays.append(np.array(value, order="C", copy=True))  # keeps 0-d arrays 0-d
        return len(self.arrays) - 1

    def variable(self, variable) -> int:
        index = self._variable_index.get(id(variable))
        if index is None:
            index = self._variable_index[id(variable)] = len(self.variables)
            self.variables.append(variable)
        return index

    def function(self, cf, name: str) -> dict:
        """Encodes a ConcreteFunction: its traced graph, inputs and output structure."""
        encoded = self.graph(cf.graph, cf.graph.inputs, cf.graph.outputs, name)
        return {"graph": encoded, "structure": self._structure(cf._structured, name)}

    def _structure(self, value, where):
        from eagerflow.core import tensor
        from eagerflow.graph import concrete

        if isinstance(value, concrete.Output):
            return {"output": value.index}
        if isinstance(value, tensor.Tensor) and not _is_symbolic(value):
            return {"constant": self.array(value._value)}
        if isinstance(value, (list, tuple)):
            return {type(value).__name__ if type(value) in (list, tuple) else "tuple":
                    [self._structure(v, where) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[str(k), self._structure(v, where)] for k, v in value.items()]}
        if value is None or isinstance(value, (bool, int, str)):
            return {"python": value}
        if isinstance(value, float):
            return {"python": {"float": value.hex()}}
        raise errors.InvalidArgumentError(
            f"cannot export function {where!r}: it returns a {type(value).__name__} ({value!r}); "
            "exported functions return tensors and plain Python numbers or strings only"
        )

    def graph(self, graph_, inputs, outputs, where: str) -> dict:
        refs: dict[int, list] = {}
        nodes = []
        for index, node in enumerate(graph_.nodes):
            if node.op is graph.PY_FUNCTION:
                raise errors.InvalidArgumentError(
                    f"cannot export function {where!r}: it calls ef.py_function("
                    f"{getattr(node.attrs['func'], '__name__', 'func')}), which runs Python "
                    "code; exported graphs hold registered ops only"
                )
            context = f"function {where!r}, node {node.name!r} ({node.type})"
            encoded_inputs = [{"tensor": refs[id(x)]} if _is_symbolic(x) else
                              {"literal": self.value(x, refs, context)} for x in node.inputs]
            attrs = {k: self.value(v, refs, f"{context}, attribute {k!r}")
                     for k, v in node.attrs.items() if not k.startswith("_")}
            nodes.append({"op": node.type, "name": node.name, "inputs": encoded_inputs,
                          "attrs": attrs,
                          "outputs": [{"shape": list(o.shape), "dtype": o.dtype.name}
                                      for o in node.outputs]})
            for j, out in enumerate(node.outputs):
                refs[id(out)] = [index, j]
        encoded_inputs = [{"tensor": refs[id(p)]} if id(p) in refs else
                          {"unused": {"shape": list(p.shape), "dtype": p.dtype.name}}
                          for p in inputs]
        return {"name": str(graph_.name), "nodes": nodes, "inputs": encoded_inputs,
                "outputs": [refs[id(o)] for o in outputs]}

    def value(self, value, refs, where):
        """The tagged JSON form of an attribute or literal value."""
        from eagerflow.graph import control_flow

        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return {"float": value.hex()}
        if isinstance(value, complex):
            return {"complex": [value.real.hex(), value.imag.hex()]}
        if _is_symbolic(value):
            return {"tensor": refs[id(value)]}
        if isinstance(value, np.dtype):
            if value.kind not in _KINDS:
                raise errors.InvalidArgumentError(f"{where}: dtype {value} cannot be exported")
            return {"dtype": value.name}
        if isinstance(value, np.generic):
            return {"scalar": self.value(value.item(), refs, where),
                    "dtype": self.value(value.dtype, refs, where)["dtype"]}
        if isinstance(value, np.ndarray):
            return {"array": self.array(value)}
        if isinstance(value, tuple):
            return {"tuple": [self.value(v, refs, where) for v in value]}
        if isinstance(value, list):
            return {"list": [self.value(v, refs, where) for v in value]}
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"dict": [[k, self.value(v, refs, where)] for k, v in value.items()]}
        if isinstance(value, slice):
            return {"slice": [self.value(v, refs, where)
                              for v in (value.start, value.stop, value.step)]}
        if value is Ellipsis:
            return {"ellipsis": True}
        if isinstance(value, trace.GeneratorRef):  # exported as its current state
            value = value.resolve()
        if isinstance(value, np.random.Generator):
            return {"generator": _generator_state(value, where)}
        if _is_variable(value):
            return {"variable": self.variable(value)}
        if isinstance(value, control_flow.Branch):
            return {"subgraph": self.graph(value.graph, value.inputs, value.graph.outputs,
                                           f"{where} ({value.graph.name})")}
        raise errors.InvalidArgumentError(
            f"cannot export {where}: its value is a {type(value).__name__} ({value!r:.60}), "
            "which is not data (numbers, strings, tuples, lists, dtypes, arrays)"
        )


def _generator_state(generator, where):
    state = generator.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise errors.InvalidArgumentError(
            f"cannot export {where}: random generator {state.get('bit_generator')} is not "
            "PCG64, the only one whose state can be exported"
        )
    return {"state": str(state["state"]["state"]), "inc": str(state["state"]["inc"]),
            "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}


class Reader:
    """Decodes graphs written by `Writer`, validating everything it reads.

    Args:
        arrays: the stored arrays, by index.
        variables: the restored variables, by index.
        where: the file name, for error messages.
    """

    def __init__(self, arrays, variables, where):  # noqa: D107
        self.arrays = arrays
        self.variables = variables
        self.where = where

    def _fail(self, context, message):
        return errors.InvalidArgumentError(
            f"{self.where}: {context}: {message}. The file is malformed, was modified, or was "
            "written by an incompatible eagerflow; it was not loaded"
        )

    def graph(self, encoded, context):
        """A raw `Graph` (no shape inference) with its input and output tensors."""
        if not isinstance(encoded, dict) or not isinstance(encoded.get("nodes"), list):
            raise self._fail(context, "a graph must be an object with a list of nodes")
        result = graph.Graph(str(encoded.get("name", "loaded"))[:100])
        outputs_of: list = []
        for index, node in enumerate(encoded["nodes"]):
            where = f"{context}, node {index}"
            if not isinstance(node, dict):
                raise self._fail(where, "a node must be an object")
            op = self._op(node.get("op"), where)
            inputs = [self._input(x, outputs_of, where) for x in self._list(node, "inputs", where)]
            raw_attrs = node.get("attrs", {})
            if not isinstance(raw_attrs, dict):
                raise self._fail(where, "attrs must be an object")
            attrs = {str(k): self.value(v, outputs_of, f"{where}, attribute {k!r}")
                     for k, v in raw_attrs.items()}
            specs = [self._spec(o, where) for o in self._list(node, "outputs", where)]
            self._check_special(op, inputs, attrs, specs, where)
            name = node.get("name")
            created = result.add_node(op, inputs, attrs, specs,
                                      name=name[:100] if isinstance(name, str) else None)
            outputs_of.append(created.outputs)
        inputs = []
        for x in self._list(encoded, "inputs", context):
            if isinstance(x, dict) and "unused" in x:
                shape, dtype = self._spec(x["unused"], context)
                inputs.append(graph.SymbolicTensor(shape, dtype, result))
            else:
                tensor_ = self._input(x, outputs_of, context)
                if not _is_symbolic(tensor_) or tensor_._node.op is not graph.PLACEHOLDER:
                    raise self._fail(context, "graph inputs must be placeholders")
                inputs.append(tensor_)
        outputs = [self._ref(ref, outputs_of, context)
                   for ref in self._list(encoded, "outputs", context)]
        result.inputs = [t for t in inputs if t._node is not None]
        result.outputs = outputs
        return result, inputs, outputs

    def _list(self, obj, key, where):
        value = obj.get(key, [])
        if not isinstance(value, list):
            raise self._fail(where, f"{key!r} must be a list")
        return value

    def _op(self, name, where):
        if not isinstance(name, str):
            raise self._fail(where, "the op name must be a string")
        op = dispatch.OPS.get(name)
        if op is None:
            raise self._fail(where, f"unknown op {name!r} (not in eagerflow's op registry)")
        # A saved graph names an op with a forward or a graph-only op the executor runs, never
        # a Python function or a family of per-call ops (PartitionedCall, CustomGradient).
        if op is graph.PY_FUNCTION or (op.forward is None and op not in graph.NODE_OPS):
            raise self._fail(where, f"unknown op {name!r} (a loaded graph cannot hold it: "
                                    "only ops with a kernel and graph nodes load)")
        return op

    def _ref(self, ref, outputs_of, where):
        if (not isinstance(ref, list) or len(ref) != 2 or not all(type(i) is int for i in ref)
                or not 0 <= ref[0] < len(outputs_of) or not 0 <= ref[1] < len(outputs_of[ref[0]])):
            raise self._fail(where, f"invalid tensor reference {ref!r}")
        return outputs_of[ref[0]][ref[1]]

    def _input(self, value, outputs_of, where):
        if isinstance(value, dict) and set(value) == {"tensor"}:
            return self._ref(value["tensor"], outputs_of, where)
        if isinstance(value, dict) and set(value) == {"literal"}:
            literal = self.value(value["literal"], outputs_of, where)
            if type(literal) not in (bool, int, float, complex):
                raise self._fail(where, "a literal input must be a number")
            return literal
        raise self._fail(where, f"invalid input {value!r:.80}")

    def _spec(self, spec, where):
        if not isinstance(spec, dict) or not isinstance(spec.get("shape"), list):
            raise self._fail(where, "an output spec needs a shape list and a dtype")
        shape = spec["shape"]
        if not all(d is None or (type(d) is int and d >= 0) for d in shape):
            raise self._fail(where, f"invalid shape {shape!r}")
        return tuple(shape), self._dtype(spec.get("dtype"), where)

    def _dtype(self, name, where):
        try:
            dtype = np.dtype(name) if isinstance(name, str) else None
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind not in _KINDS:
            raise self._fail(where, f"invalid dtype {name!r}")
        return dtype

    def value(self, value, outputs_of, where):
        """Decodes one tagged JSON value."""
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if not isinstance(value, dict) or not value:
            raise self._fail(where, f"malformed value {value!r:.80}")
        tag = next(iter(value))
        content = value[tag]
        decode = self._DECODERS.get(tag) if len(value) == 1 or tag == "scalar" else None
        if decode is None:
            raise self._fail(where, f"unknown value tag {tag!r}")
        try:
            return decode(self, content, value, outputs_of, where)
        except (TypeError, ValueError, KeyError, IndexError, OverflowError) as e:
            if isinstance(e, errors.InvalidArgumentError):
                raise
            raise self._fail(where, f"malformed {tag!r} value ({e})") from None

    def _float(self, content, *_):
        return float.fromhex(content)

    def _complex(self, content, *_):
        return complex(float.fromhex(content[0]), float.fromhex(content[1]))

    def _tensor(self, content, value, outputs_of, where):
        return self._ref(content, outputs_of, where)

    def _dtype_tag(self, content, value, outputs_of, where):
        return self._dtype(content, where)

    def _scalar(self, content, value, outputs_of, where):
        dtype = self._dtype(value.get("dtype"), where)
        return dtype.type(self.value(content, outputs_of, where))

    def _array(self, content, value, outputs_of, where):
        if type(content) is not int or not 0 <= content < len(self.arrays):
            raise self._fail(where, f"invalid array index {content!r}")
        return self.arrays[content]

    def _sequence(self, content, value, outputs_of, where):
        if not isinstance(content, list):
            raise self._fail(where, "a tuple or list must hold a list")
        items = [self.value(v, outputs_of, where) for v in content]
        return items if "list" in value else tuple(items)

    def _dict(self, content, value, outputs_of, where):
        if not isinstance(content, list) or not all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in content):
            raise self._fail(where, "a dict must hold [key, value] pairs with string keys")
        return {k: self.value(v, outputs_of, where) for k, v in content}

    def _slice(self, content, value, outputs_of, where):
        if not isinstance(content, list) or len(content) != 3:
            raise self._fail(where, "a slice needs [start, stop, step]")
        return slice(*(self.value(v, outputs_of, where) for v in content))

    def _ellipsis(self, *_):
        return Ellipsis

    def _generator(self, content, value, outputs_of, where):
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(content["state"]), "inc": int(content["inc"])},
            "has_uint32": int(content["has_uint32"]), "uinteger": int(content["uinteger"]),
        }
        return generator

    def _variable(self, content, value, outputs_of, where):
        if type(content) is not int or not 0 <= content < len(self.variables):
            raise self._fail(where, f"invalid variable index {content!r}")
        return self.variables[content]

    def _subgraph(self, content, value, outputs_of, where):
        from eagerflow.graph import control_flow

        sub, inputs, _ = self.graph(content, f"{where} (subgraph)")
        return control_flow.Branch.from_inputs(sub, inputs)

    _DECODERS = {
        "float": _float, "complex": _complex, "tensor": _tensor, "dtype": _dtype_tag,
        "scalar": _scalar, "array": _array, "tuple": _sequence, "list": _sequence,
        "dict": _dict, "slice": _slice, "ellipsis": _ellipsis, "generator": _generator,
        "variable": _variable, "subgraph": _subgraph,
    }

    def _check_special(self, op, inputs, attrs, specs, where):
        """Checks the attributes the executor relies on for graph-only ops."""
        from eagerflow.graph import control_flow

        def need(condition, message):
            if not condition:
                raise self._fail(where, message)

        if op is graph.PLACEHOLDER:
            need(not inputs and len(specs) == 1, "a placeholder has no inputs and one output")
        elif op is graph.CONST:
            need(isinstance(attrs.get("value"), np.ndarray) and len(specs) == 1,
                 "a constant needs an array value")
        elif op is graph.READ or op in graph.ASSIGN_MODES:
            need(_is_variable(attrs.get("variable")), "a variable op needs a variable")
        elif op is graph.COND:
            need(all(isinstance(attrs.get(k), control_flow.Branch)
                     for k in ("then_branch", "else_branch")), "If needs two branches")
        elif op is graph.WHILE:
            need(all(isinstance(attrs.get(k), control_flow.Branch) for k in ("cond", "body"))
                 and type(attrs.get("n_vars")) is int and (attrs.get("maximum_iterations") is None
                 or type(attrs.get("maximum_iterations")) is int), "While needs cond, body, "
                 "n_vars and maximum_iterations")
        elif op is graph.PRINT:
            need(attrs.get("stream") in ("stdout", "stderr") and isinstance(attrs.get("sep"), str)
                 and isinstance(attrs.get("end"), str) and type(attrs.get("summarize")) is int
                 and isinstance(attrs.get("template"), list), "PrintV2 needs a template, "
                 "separators, a summarize count and the stream 'stdout' or 'stderr'")

"""The remaining error paths of tracing, signatures, control flow and export."""

import pickle

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph import graph, graph_codec


def test_symbolic_tensors_refuse_python_conversions():
    seen = {}

    @ef.function
    def f(x, s):
        for name, convert in (("int", int), ("complex", complex), ("len_scalar", len),
                              ("len_unknown", len), ("pickle", pickle.dumps)):
            value = s if name == "len_scalar" else x
            try:
                convert(value)
            except (TypeError, graph.OperatorNotAllowedInGraphError) as e:
                seen[name] = str(e)
        return x

    f.get_concrete_function(ef.TensorSpec([None]), ef.TensorSpec([]))
    assert "int()" in seen["int"] and "complex()" in seen["complex"]
    assert "len() of a scalar" in seen["len_scalar"]
    assert "first dimension is unknown" in seen["len_unknown"]
    assert "cannot be pickled" in seen["pickle"]


def test_reshape_with_two_unknown_dimensions():
    f = ef.function(lambda x: ef.reshape(x, [x.shape[0], x.shape[1]]),
                    input_signature=[ef.TensorSpec([None, None])])
    with pytest.raises(ef.errors.InvalidArgumentError, match="more than one unknown dimension"):
        f.get_concrete_function()


def test_shape_attributes_with_unknown_dimensions_are_refused():
    @ef.function(input_signature=[ef.TensorSpec([None, 3])])
    def f(params):
        with ef.GradientTape() as tape:
            tape.watch(params)
            y = ef.reduce_sum(ef.gather(params, [0]))
        return tape.gradient(y, params)

    # The gather gradient fills the other unknown sizes from its incoming gradient, but not
    # the size of the gathered axis itself.
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"size of the gathered axis 0.*unknown.*GatherGrad"):
        f.get_concrete_function()


def test_signature_structure_and_count_errors():
    nested = ef.function(lambda pair: pair[0] + pair[1],
                         input_signature=[(ef.TensorSpec([]), ef.TensorSpec([]))])
    assert float(nested((ef.constant(1.0), ef.constant(2.0)))) == 3.0
    with pytest.raises(TypeError, match="must have the structure of its input_signature"):
        nested([ef.constant(1.0)])
    short = ef.function(lambda x: x, input_signature=[ef.TensorSpec([]), ef.TensorSpec([])])
    with pytest.raises(TypeError, match="takes 1 arguments but its input_signature has 2"):
        short(ef.constant(1.0))


def test_concrete_function_arguments_must_be_known_tensors():
    f = ef.function(lambda x: x)
    with pytest.raises(ef.errors.InvalidArgumentError, match="needs a known rank"):
        f.get_concrete_function(ef.TensorSpec(None))
    leaked = []
    ef.function(lambda x: leaked.append(x) or x)(ef.constant(1.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="symbolic tensor from another"):
        f(leaked[0])


def test_branches_and_loops_must_return_tensors():
    f = ef.function(lambda x: ef.cond(x > 0, lambda: None, lambda: None))
    with pytest.raises(TypeError, match="must return tensors"):
        f(ef.constant(1.0))
    g = ef.function(lambda x: ef.while_loop(lambda v: (v < 3, v > 0), lambda v: [v + 1], [x]))
    with pytest.raises(ef.errors.InvalidArgumentError, match="cond must return one scalar bool"):
        g(ef.constant(0))


def test_maximum_iterations_must_be_static():
    f = ef.function(lambda x, n: ef.while_loop(lambda v: v < 10, lambda v: [v + 1], [x],
                                               maximum_iterations=n))
    with pytest.raises(ef.errors.InvalidArgumentError, match="Python int or a constant"):
        f(ef.constant(0), ef.constant(3))
    assert int(ef.function(lambda x: ef.while_loop(
        lambda v: v < 10, lambda v: [v + 1], [x], maximum_iterations=ef.constant(3))[0])(
        ef.constant(0))) == 3


# -- export ---------------------------------------------------------------------------------
def test_writer_refuses_values_that_are_not_data():
    writer = graph_codec.Writer()
    with pytest.raises(ef.errors.InvalidArgumentError, match="only numeric and bool data"):
        writer.array(np.array(["text"], dtype=object))
    with pytest.raises(ef.errors.InvalidArgumentError, match="cannot be exported"):
        writer.value(np.dtype("U3"), {}, "attribute x")
    with pytest.raises(ef.errors.InvalidArgumentError, match="which is not data"):
        writer.value(len, {}, "attribute fn")
    f = ef.function(lambda x: (x, object()))
    f(ef.constant(1.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="returns a object"):
        ef.saved_model.save(f, "unused.h5")


def _graph(nodes, inputs=(), outputs=()):
    return {"name": "g", "nodes": nodes, "inputs": list(inputs), "outputs": list(outputs)}


PLACEHOLDER = {"op": "Placeholder", "inputs": [], "attrs": {},
               "outputs": [{"shape": [2], "dtype": "float32"}]}


@pytest.mark.parametrize("encoded, match", [
    (_graph(["x"]), "a node must be an object"),
    (_graph([{**PLACEHOLDER, "attrs": []}]), "attrs must be an object"),
    (_graph([{**PLACEHOLDER, "op": 3}]), "op name must be a string"),
    (_graph([{**PLACEHOLDER, "inputs": "x"}]), "'inputs' must be a list"),
    (_graph([PLACEHOLDER, {"op": "Neg", "inputs": [{"literal": "x"}], "outputs": []}]),
     "a literal input must be a number"),
    (_graph([PLACEHOLDER, {"op": "Neg", "inputs": [{"other": 1}], "outputs": []}]),
     "invalid input"),
    (_graph([{**PLACEHOLDER, "outputs": [{"shape": [-1], "dtype": "float32"}]}]),
     "invalid shape"),
    (_graph([{**PLACEHOLDER, "outputs": [{"dtype": "float32"}]}]), "needs a shape list"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": [1]}}]), "malformed value"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": {"array": 5}}}]), "invalid array index"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": {"tuple": 1}}}]), "tuple or list must hold a list"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": {"dict": [[1, 2]]}}}]), "string keys"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": {"slice": [1]}}}]), "slice needs"),
    (_graph([{**PLACEHOLDER, "attrs": {"a": {"variable": 0}}}]), "invalid variable index"),
    (_graph([{**PLACEHOLDER, "inputs": [{"literal": 1}]}]), "placeholder has no inputs"),
    (_graph([{"op": "Const", "inputs": [], "attrs": {}, "outputs": []}]),
     "constant needs an array"),
    (_graph([{"op": "ReadVariableOp", "inputs": [], "attrs": {}, "outputs": []}]),
     "variable op needs a variable"),
    (_graph([{"op": "If", "inputs": [], "attrs": {}, "outputs": []}]), "If needs two branches"),
    (_graph([{"op": "While", "inputs": [], "attrs": {}, "outputs": []}]),
     "While needs cond, body"),
    (_graph([{"op": "PrintV2", "inputs": [], "attrs": {"stream": "file:///etc/passwd"},
              "outputs": []}]), "PrintV2 needs"),
    (_graph([PLACEHOLDER, {"op": "Neg", "inputs": [{"tensor": [0, 0]}], "attrs": {},
                           "outputs": [{"shape": [2], "dtype": "float32"}]}],
            inputs=[{"tensor": [1, 0]}]), "graph inputs must be placeholders"),
])
def test_reader_rejects_malformed_graphs(encoded, match):
    reader = graph_codec.Reader([], [], "file.h5")
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        reader.graph(encoded, "function 'f'")


def test_saved_model_without_a_default_function(tmp_path):
    cf = ef.function(lambda x: x).get_concrete_function(ef.TensorSpec([]))
    path = str(tmp_path / "m.h5")
    ef.saved_model.save(object(), path, signatures={"identity": cf})
    loaded = ef.saved_model.load(path)
    with pytest.raises(TypeError, match="no 'serving_default' function"):
        loaded(ef.constant(1.0))


def test_saved_model_with_malformed_function_records(tmp_path):
    import h5py

    from tests.security import forge

    path = str(tmp_path / "m.h5")
    ef.saved_model.save(ef.function(lambda x: x, input_signature=[ef.TensorSpec([])]), path)
    with h5py.File(path, "r+") as f:
        del f[".eagerflow/functions/serving_default/0"]
        f[".eagerflow/functions/serving_default"].create_dataset("0", data=np.zeros(3, np.float64))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="functions/serving_default/0' must be 1-D uint8 text"):
        ef.saved_model.load(path)
    for item, match in (([1], "missing graph or output structure"),
                        ({"graph": {}, "structure": {"list": [3]}}, "list of nodes")):
        with h5py.File(path, "r+") as f:
            del f[".eagerflow/functions/serving_default/0"]
            data = np.frombuffer(__import__("json").dumps(item).encode(), np.uint8)
            f[".eagerflow/functions/serving_default"].create_dataset("0", data=data)
        forge.reseal(path)  # a forged record: past the checksums, to the decoder
        with pytest.raises(ef.errors.InvalidArgumentError, match=match):
            ef.saved_model.load(path)


def test_an_op_failing_on_real_values_fails_only_the_calls_that_need_it():
    # TensorFlow runs the ops the outputs and effects need ("non-strict" execution).
    @ef.function
    def unused(x):
        ef.gather(x, [1])
        return x * 2.0

    for _ in range(2):
        assert unused(ef.constant([3.0])).numpy().tolist() == [6.0]
    assert unused.experimental_get_tracing_count() == 1

    @ef.function
    def used(x):
        return ef.gather(x, [1]) * 2.0

    with pytest.raises(ef.errors.InvalidArgumentError, match=r"indices\[0\] = 1 .*\[Op:Gather\]"):
        used(ef.constant([3.0]))
    assert used(ef.constant([3.0, 4.0])).numpy().tolist() == [8.0]

    v = ef.Variable([1.0])
    calls = []

    def effects(kind):
        def f(x):
            bad = ef.gather(x, [1])
            if kind == "assign":
                v.assign(bad)
            elif kind == "py_function":
                ef.py_function(lambda t: calls.append(t) or t, [bad], ef.float32)
            elif kind == "cond":
                ef.cond(ef.reduce_sum(bad) > 0.0, lambda: v.assign_add([1.0]), lambda: v)
            else:
                ef.print(bad)
            return x
        return f

    for kind in ("assign", "py_function", "cond", "print"):
        with pytest.raises(ef.errors.InvalidArgumentError, match=r"indices\[0\] = 1"):
            ef.function(effects(kind))(ef.constant([3.0]))
    assert v.numpy().tolist() == [1.0] and calls == []  # nothing acted on a missing value

    @ef.function
    def branch(x):  # the taken branch's result needs the failed op
        return ef.cond(x[0] > 0.0, lambda: ef.gather(x, [1]) + 1.0, lambda: x)

    with pytest.raises(ef.errors.InvalidArgumentError, match=r"indices\[0\] = 1"):
        branch(ef.constant([1.0]))
    assert branch(ef.constant([-1.0])).numpy().tolist() == [-1.0]

    @ef.function
    def wrong_shapes(x):
        ef.matmul(x, x)  # unused, but no values make it valid: fails at once, like TF
        return x

    with pytest.raises(ef.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        wrong_shapes(ef.ones([2, 3]))

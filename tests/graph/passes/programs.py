"""Programs traced from Python functions, for the tests of each graph pass."""

import eagerflow as ef
from eagerflow.graph import executor
from eagerflow.graph.passes.program import Program


def traced(fn, *specs):
    """The traced graph of `fn` as a Program, plus its ConcreteFunction."""
    cf = ef.function(fn).get_concrete_function(*specs)
    return Program(cf.graph.nodes, cf.graph.outputs), cf


def types(program):
    return [node.type for node in program.nodes]


def run(program, cf, *arrays):
    return executor.compile_program(program, cf.graph.inputs)(*arrays)


X3 = ef.TensorSpec([3], ef.float32)

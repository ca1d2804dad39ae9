"""`ef.function` and everything only it needs: tracing eager code into graphs of ops,
signatures, concrete functions, control flow, the graph passes, the executor that compiles
a graph to a flat NumPy function, and export to saved models.

It imports the engine (`eagerflow.core`) and the ops (`eagerflow.ops`); they never import
it. The engine reaches a tracer only through the tracer protocol declared in
`core/context.py` (`context.Tracer`), and the compiler reaches the tapes through the tape
hooks declared there and `core/tape.py`'s public functions; its graph-only ops are in the
engine's one registry, `dispatch.OPS`.
"""

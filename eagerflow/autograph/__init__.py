"""``ef.autograph``: directives for the Python control flow `ef.function` converts.

`ef.function` converts Python ``if``/``while``/``for`` on tensors itself
(``autograph=True``, see the function guide); this namespace holds what a converted loop
may say about itself, as TensorFlow's ``tf.autograph``:
``ef.autograph.experimental.set_loop_options``.

Examples:
    >>> import eagerflow as ef
    >>> ef.autograph.experimental.set_loop_options(parallel_iterations=4)
"""

from eagerflow.graph import autograph as _autograph

__all__ = ["experimental"]


class experimental:  # noqa: N801 - TensorFlow's namespace name
    """``ef.autograph.experimental``: loop directives, under TensorFlow's names."""

    set_loop_options = staticmethod(_autograph.set_loop_options)


_NO_CODE = ("ef.function converts Python control flow itself (autograph=True), but it "
            "rewrites the function's syntax tree and does not generate Python source, so "
            "there is no ef.autograph.to_code / to_graph; print "
            "f.get_concrete_function(...).graph to see what was traced")


def __getattr__(name: str):
    raise AttributeError(f"module 'eagerflow.autograph' has no attribute {name!r}"
                         + (f": {_NO_CODE}." if name in ("to_code", "to_graph") else ""))

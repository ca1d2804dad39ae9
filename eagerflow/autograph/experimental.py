"""``ef.autograph.experimental``: loop directives (TensorFlow's names)."""

from eagerflow.graph.autograph import set_loop_options

__all__ = ["set_loop_options"]

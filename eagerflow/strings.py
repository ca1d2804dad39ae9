"""String ops (`ef.strings`), TensorFlow's `tf.strings` names and semantics.

See `eagerflow.ops.strings` for how text is stored (bytes) and what differs from
TensorFlow (no ragged results: `split` and `unicode_split` of a batch need ``padding=``).

Examples:
    >>> import eagerflow as ef
    >>> ef.strings.length(ef.strings.strip(["  hi  "]))
    ef.Tensor([2], shape=(1,), dtype=int32)
"""

from eagerflow.ops.strings import (
    as_string,
    join,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    split,
    strip,
    substr,
    to_number,
    unicode_split,
    upper,
)

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "as_string", "join", "length", "lower", "reduce_join", "regex_full_match", "regex_replace",
    "split", "strip", "substr", "to_number", "unicode_split", "upper",
]

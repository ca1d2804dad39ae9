"""dtype names (`ef.dtypes`), as in ``tf.dtypes``; the common ones are also `ef.float32`, ...

eagerflow's dtypes are `numpy.dtype` objects (see `eagerflow.core.dtypes`).

Examples:
    >>> import eagerflow as ef
    >>> ef.dtypes.int32 is ef.int32, ef.dtypes.as_dtype("float64")
    (True, dtype('float64'))
    >>> ef.dtypes.cast([1.7, -2.2], ef.dtypes.int32)
    ef.Tensor([ 1 -2], shape=(2,), dtype=int32)
"""

from eagerflow import absent as _absent
from eagerflow.core.dtypes import (
    as_dtype,
    bool,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
)
from eagerflow.math import cast

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "as_dtype", "bool", "cast", "complex64", "complex128", "float16", "float32", "float64",
    "int8", "int16", "int32", "int64", "string", "uint8",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.dtypes")

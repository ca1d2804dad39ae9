"""The bytes of a TensorBoard event file: TFRecord framing and the few protobuf messages
it holds, encoded here so that writing summaries needs no protobuf library.

An event file is a sequence of records, each ``length (uint64) | masked CRC-32C of the
length | data | masked CRC-32C of the data``, and each record's data is one serialized
``Event`` message (tensorflow/core/util/event.proto). Encoding the messages by hand keeps
`ef.summary` free of dependencies: tensorboardX's protobuf classes cannot be imported
without its package ``__init__``, which imports PyTorch when it is installed (1.8 s and
about 190 MiB for a callback that writes a few scalars).

The field numbers below are those of TensorFlow's ``.proto`` files, named next to each
message; TensorBoard reads the files back with its own parser (the tests do so too).

Examples:
    >>> from eagerflow.summary import records
    >>> records.summary([records.value("loss", simple_value=0.5)]).hex()
    '0a0b0a046c6f7373150000003f'
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

# DataType enum of tensorflow/core/framework/types.proto, by NumPy dtype name.
_DATA_TYPES = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "str": 7,
    "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "float16": 19, "uint32": 22,
    "uint64": 23,
}
DT_STRING = 7


# -- wire format -----------------------------------------------------------------------
def _varint(number: int) -> bytes:
    number &= (1 << 64) - 1  # negative int64s take ten bytes, as two's complement
    out = bytearray()
    while number > 0x7F:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return _varint(field << 3 | wire_type)


def _int(field: int, number: int) -> bytes:
    return _key(field, 0) + _varint(int(number)) if number else b""


def _double(field: int, number: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", number) if number else b""


def _float(field: int, number: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", number)


def _bytes(field: int, data: bytes | str) -> bytes:
    """A length-delimited field: bytes, a string, or an encoded message."""
    data = data.encode("utf-8") if isinstance(data, str) else data
    return _key(field, 2) + _varint(len(data)) + data


def _packed_doubles(field: int, numbers: Sequence[float]) -> bytes:
    return _bytes(field, np.asarray(numbers, "<f8").tobytes()) if len(numbers) else b""


def data_type(dtype: np.dtype | None) -> int:
    """TensorFlow's DataType number for a NumPy dtype (0, DT_INVALID, when it has none)."""
    if dtype is None:
        return 0
    dtype = np.dtype(dtype)
    return DT_STRING if dtype.kind in "SUO" else _DATA_TYPES.get(dtype.name, 0)


# -- summary.proto, tensor.proto, tensor_shape.proto ---------------------------------------
def tensor_shape(shape: Iterable[int | None]) -> bytes:
    """TensorShapeProto: ``dim = 2`` (Dim: ``size = 1``); an unknown size is -1."""
    return b"".join(_bytes(2, _int(1, -1 if size is None else size)) for size in shape)


def string_tensor(strings: Sequence[bytes], shape: Sequence[int]) -> bytes:
    """TensorProto of DT_STRING: ``dtype = 1, tensor_shape = 2, string_val = 8``."""
    return (_int(1, DT_STRING) + _bytes(2, tensor_shape(shape))
            + b"".join(_bytes(8, item) for item in strings))


def histogram(low: float, high: float, num: float, total: float, sum_squares: float,
              bucket_limit: Sequence[float], bucket: Sequence[float]) -> bytes:
    """HistogramProto: min 1, max 2, num 3, sum 4, sum_squares 5, bucket_limit 6, bucket 7."""
    return (_double(1, low) + _double(2, high) + _double(3, num) + _double(4, total)
            + _double(5, sum_squares) + _packed_doubles(6, bucket_limit)
            + _packed_doubles(7, bucket))


def image(height: int, width: int, colorspace: int, encoded: bytes) -> bytes:
    """Summary.Image: height 1, width 2, colorspace 3, encoded_image_string 4."""
    return _int(1, height) + _int(2, width) + _int(3, colorspace) + _bytes(4, encoded)


def metadata(description: str | None = None, plugin: str | None = None,
             content: bytes = b"") -> bytes:
    """SummaryMetadata: plugin_data 1 (plugin_name 1, content 2), summary_description 3."""
    out = b""
    if plugin is not None:
        out += _bytes(1, _bytes(1, plugin) + (_bytes(2, content) if content else b""))
    if description:
        out += _bytes(3, description)
    return out


def value(tag: str, *, simple_value: float | None = None, histo: bytes | None = None,
          image: bytes | None = None, tensor: bytes | None = None,
          metadata: bytes = b"") -> bytes:
    """Summary.Value: tag 1, simple_value 2, image 4, histo 5, tensor 8, metadata 9."""
    out = _bytes(1, tag)
    if simple_value is not None:
        out += _float(2, simple_value)
    for field, message in ((4, image), (5, histo), (8, tensor)):
        if message is not None:
            out += _bytes(field, message)
    return out + (_bytes(9, metadata) if metadata else b"")


def summary(values: Iterable[bytes]) -> bytes:
    """Summary: ``value = 1`` (repeated)."""
    return b"".join(_bytes(1, item) for item in values)


# -- graph.proto, node_def.proto, attr_value.proto ------------------------------------------
def attr_type(dtype: np.dtype | None) -> bytes:
    """AttrValue holding a DataType (``type = 6``)."""
    return _int(6, data_type(dtype))


def attr_string(text: str) -> bytes:
    """AttrValue holding a string (``s = 2``)."""
    return _bytes(2, text)


def attr_shape(shape: Iterable[int | None]) -> bytes:
    """AttrValue holding a shape (``shape = 7``)."""
    return _bytes(7, tensor_shape(shape))


def attr_shapes(shapes: Iterable[Iterable[int | None]]) -> bytes:
    """AttrValue holding a list of shapes (``list = 1``, ListValue ``shape = 7``), the form
    of the ``_output_shapes`` attribute TensorBoard shows on the graph's edges."""
    return _bytes(1, b"".join(_bytes(7, tensor_shape(shape)) for shape in shapes))


def node_def(name: str, op: str, inputs: Sequence[str] = (),
             attrs: dict[str, bytes] | None = None) -> bytes:
    """NodeDef: name 1, op 2, input 3, attr 5 (map entries: key 1, value 2)."""
    out = _bytes(1, name) + _bytes(2, op) + b"".join(_bytes(3, item) for item in inputs)
    for key, attr in (attrs or {}).items():
        out += _bytes(5, _bytes(1, key) + _bytes(2, attr))
    return out


def graph_def(nodes: Iterable[bytes], producer: int = 22) -> bytes:
    """GraphDef: node 1, versions 4 (VersionDef: producer 1)."""
    return b"".join(_bytes(1, node) for node in nodes) + _bytes(4, _int(1, producer))


# -- event.proto and the record framing ---------------------------------------------------
def event(wall_time: float, step: int = 0, *, file_version: str | None = None,
          summary: bytes | None = None, graph_def: bytes | None = None) -> bytes:
    """Event: wall_time 1, step 2, file_version 3, graph_def 4, summary 5."""
    out = _double(1, wall_time) + _int(2, step)
    if file_version is not None:
        out += _bytes(3, file_version)
    if graph_def is not None:
        out += _bytes(4, graph_def)
    if summary is not None:
        out += _bytes(5, summary)
    return out


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)  # Castagnoli, reflected
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def _crc32c_python(data: bytes) -> int:
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc32c_function():
    # The `crc32c` package (eagerflow[fast]) computes the same checksum in hardware; the
    # table above is the same function at ~5 MB/s, enough for summaries.
    try:
        import crc32c
    except ImportError:
        return _crc32c_python
    return crc32c.crc32c


crc32c = _crc32c_function()


def _masked_crc(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF  # TFRecord's masking


def record(data: bytes) -> bytes:
    """One TFRecord: the length, its masked CRC-32C, the data and its masked CRC-32C."""
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", _masked_crc(header)) + data
            + struct.pack("<I", _masked_crc(data)))

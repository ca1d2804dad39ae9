"""A minimal PNG encoder for image summaries (no Pillow needed).

TensorBoard stores images as encoded PNG bytes. An uncompressed-filter PNG is a few
chunks around a zlib stream, so the standard library is enough.

Examples:
    >>> import numpy as np
    >>> from eagerflow.summary import png
    >>> png.encode_png(np.zeros((2, 3, 1), np.uint8))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour types by channel count: grey, grey+alpha, RGB, RGBA.
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png(pixels: np.ndarray) -> bytes:
    """Encodes a (height, width, channels) uint8 array (1-4 channels) as PNG bytes.

    Args:
        pixels: uint8 array of shape (height, width, channels).

    Returns:
        The PNG file content.

    Raises:
        ValueError: if the array is not uint8 of rank 3 with 1 to 4 channels.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.summary import png
        >>> len(png.encode_png(np.full((4, 4, 3), 255, np.uint8))) > 8
        True
    """
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in _COLOR_TYPES:
        raise ValueError(
            "encode_png expects a uint8 array of shape (height, width, 1|2|3|4). "
            f"Received: dtype={pixels.dtype}, shape={pixels.shape}"
        )
    height, width, channels = pixels.shape
    # Every scanline starts with its filter byte; 0 means "no filter".
    rows = np.zeros((height, width * channels + 1), np.uint8)
    rows[:, 1:] = pixels.reshape(height, width * channels)
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return (_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _chunk(b"IEND", b""))

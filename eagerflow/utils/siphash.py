"""SipHash-2-4, the keyed hash behind TensorFlow's ``strings.to_hash_bucket_strong``.

Keras's `Hashing` (and the lookup layers' OOV buckets) use it when given a `salt`: the
two 64-bit key halves come from the salt, and each string goes to
``SipHash24(key, s) % num_buckets``. Unlike FarmHash, the result cannot be predicted
without the key. Written from the published algorithm (Aumasson and Bernstein, 2012):
two compression rounds per 8-byte word, four finalization rounds.

Examples:
    >>> from eagerflow.utils import siphash
    >>> siphash.hash_bucket(["A", "B"], 5, key=(133, 133)).tolist()
    [4, 3]
"""

from __future__ import annotations

import numpy as np

from eagerflow.utils import farmhash

_MASK = (1 << 64) - 1


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK


def _rounds(v0: int, v1: int, v2: int, v3: int, count: int):
    for _ in range(count):
        v0 = (v0 + v1) & _MASK
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _MASK
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _MASK
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _MASK
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(key: tuple[int, int], data: bytes) -> int:
    """The 64-bit SipHash-2-4 of `data` under the 128-bit key ``(k0, k1)``.

    Examples:
        >>> from eagerflow.utils import siphash
        >>> hex(siphash.siphash24((0x0706050403020100, 0x0F0E0D0C0B0A0908), b""))
        '0x726fdb47dd0e0e31'
    """
    k0, k1 = key[0] & _MASK, key[1] & _MASK
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    full = len(data) // 8 * 8
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, full, 8)]
    words.append(((len(data) & 0xFF) << 56) | int.from_bytes(data[full:], "little"))
    for word in words:
        v3 ^= word
        v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 2)
        v0 ^= word
    v2 ^= 0xFF
    v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def hash_bucket(values, num_buckets: int, key, encoding: str = "utf-8") -> np.ndarray:
    """``siphash24(key, value) % num_buckets`` for each string (TensorFlow's
    ``to_hash_bucket_strong``), as an int64 array of the same shape.

    Args:
        values: strings or bytes (any shape).
        num_buckets: the number of buckets.
        key: two ints, the key halves.
        encoding: how str values become bytes.

    Examples:
        >>> from eagerflow.utils import siphash
        >>> siphash.hash_bucket([["q"]], 4, key=(5, 5)).shape
        (1, 1)
    """
    pair = (int(key[0]), int(key[1]))
    return farmhash.buckets_of(values, lambda data: siphash24(pair, data), num_buckets,
                               encoding)

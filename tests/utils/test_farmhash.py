"""FarmHash Fingerprint64 against TensorFlow's ``strings.to_hash_bucket_fast`` (values
computed with TensorFlow 2.21), over every length path (0-16, 17-32, 33-64, long)."""

import numpy as np

from eagerflow.utils import farmhash

WORDS = ["z", "qq", "hello", "abcd", "abcdefgh", "abcdefghijklmnopq", "x" * 40, "y" * 70,
         "The quick brown fox jumps over the lazy dog and more text here to be long enough"
         * 2, ""]
# tf.strings.to_hash_bucket_fast(WORDS, 2**62)
MOD_2_62 = [1770827886167318425, 3859084244472279921, 3786372426573024488,
            1897425971756105985, 4533385575889643785, 2171023947900359592,
            3168538174772821140, 2525296024834194218, 3526892221621686557,
            1936946117179621455]


def test_fingerprints_match_tensorflow_on_every_length_path():
    assert [farmhash.fingerprint64(w.encode()) % 2**62 for w in WORDS] == MOD_2_62


def test_hash_buckets_match_tensorflow():
    np.testing.assert_array_equal(farmhash.hash_bucket(WORDS, 7),
                                  [4, 0, 5, 5, 2, 6, 1, 2, 1, 6])
    np.testing.assert_array_equal(farmhash.hash_bucket(np.array(WORDS[:3]), 1000003),
                                  [110341, 278159, 497363])


def test_multibyte_text_and_bytes_hash_alike():
    text = "é" * 50 + "ß"  # 101 bytes in UTF-8: the long path
    assert farmhash.hash_bucket([text], 97)[0] == farmhash.hash_bucket(
        np.array([text.encode()], dtype=object), 97)[0]
    assert farmhash.hash_bucket(np.zeros((2, 0), str), 3).shape == (2, 0)

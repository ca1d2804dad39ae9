"""SipHash-2-4 against its reference vector and TensorFlow's ``to_hash_bucket_strong``
(values computed with TensorFlow 2.21)."""

from eagerflow.utils import siphash

WORDS = ["", "a", "hello", "abcdefgh", "abcdefghijklmnop", "x" * 33, "é" * 20]


def test_reference_vector_of_the_paper():
    key = (0x0706050403020100, 0x0F0E0D0C0B0A0908)
    assert siphash.siphash24(key, b"") == 0x726FDB47DD0E0E31
    assert siphash.siphash24(key, bytes(range(15))) == 0xA129CA6149BE45E5


def test_buckets_match_tensorflow():
    assert [siphash.siphash24((1, 2), w.encode()) % 2**62 for w in WORDS] == [
        443797209252341627, 546566331822570742, 2957200328589801622, 2649018002260510108,
        1501375239708061149, 1639887484359327584, 3540142447415508390]
    assert siphash.hash_bucket(WORDS, 1000003, key=(0xDEADBEEF, 42)).tolist() == [
        12923, 791518, 424202, 455276, 710323, 211174, 930246]

"""ef.strings.length and substr against tf.strings.

Cases ported from TensorFlow's ``tensorflow/python/kernel_tests/strings_ops/`` tests
(string_length_op_test, substr_op_test) plus edge cases, each recorded from TensorFlow 2.21 (see `strings_cases`).
"""

import pytest

from tests.conformance.tf import strings_cases

# fmt: off
CASES = [
    ('length', [[['1', '12'], ['123', '1234'], ['12345', '123456']]], {}, ('ok', 'int32', (3, 2), [[1, 2], [3, 4], [5, 6]])),
    ('length', [['héllo', '', '😎']], {}, ('ok', 'int32', (3,), [6, 0, 4])),
    ('length', [['héllo', '', '😎']], {'unit': 'UTF8_CHAR'}, ('ok', 'int32', (3,), [5, 0, 1])),
    ('length', ['héllo'], {}, ('ok', 'int32', (), 6)),
    ('length', [b'a\xff\xc3'], {'unit': 'UTF8_CHAR'}, ('ok', 'int32', (), 3)),
    ('length', [['a']], {'unit': 'CHAR'}, ('error', 'InvalidArgumentError', 'Value for attr \'unit\' of "CHAR" is not in the list of allowed values: "BYTE", "UTF8_CHAR"')),
    ('substr', [b'Hello', 1, 3], {}, ('ok', 'string', (), b'ell')),
    ('substr', [['Good', 'Hello', 'World'], 1, 3], {}, ('ok', 'string', (3,), [b'ood', b'ell', b'orl'])),
    ('substr', [['Good', 'Hello', 'World'], [1, 2, 3], [3, 2, 1]], {}, ('ok', 'string', (3,), [b'ood', b'll', b'l'])),
    ('substr', [[['ten', 'eleven', 'twelve'], ['thirteen', 'fourteen', 'fifteen']], [[1, 2, 3], [1, 2, 3]], [[2, 3, 4], [4, 3, 2]]], {}, ('ok', 'string', (2, 3), [[b'en', b'eve', b'lve'], [b'hirt', b'urt', b'te']])),
    ('substr', [[['ten', 'eleven', 'twelve'], ['thirteen', 'fourteen', 'fifteen']], [1, 2, 3], [1, 2, 3]], {}, ('ok', 'string', (2, 3), [[b'e', b'ev', b'lve'], [b'h', b'ur', b'tee']])),
    ('substr', ['hello', -3, 2], {}, ('ok', 'string', (), b'll')),
    ('substr', ['hello', 3, 10], {}, ('ok', 'string', (), b'lo')),
    ('substr', ['hello', 5, 1], {}, ('ok', 'string', (), b'')),
    ('substr', ['hello', 1, -1], {}, ('ok', 'string', (), b'ello')),
    ('substr', ['hello', 6, 1], {}, ('error', 'InvalidArgumentError', "pos 6 out of range for string b'hello' at index 0")),
    ('substr', ['hello', -6, 1], {}, ('error', 'InvalidArgumentError', "pos -6 out of range for string b'hello' at index 0")),
    ('substr', [['Good', 'Hello'], [1, 2], [3]], {}, ('error', 'InvalidArgumentError', 'pos and len should have the same shape, got: [2] vs. [1]')),
    ('substr', ['héllo', 1, 2], {'unit': 'UTF8_CHAR'}, ('ok', 'string', (), b'\xc3\xa9l')),
    ('substr', ['héllo', -4, 2], {'unit': 'UTF8_CHAR'}, ('ok', 'string', (), b'\xc3\xa9l')),
    ('substr', ['héllo', 6, 1], {'unit': 'UTF8_CHAR'}, ('error', 'InvalidArgumentError', 'pos 6 out of range for string at index 0')),
    ('substr', [['😎ab', 'xyz'], 0, 2], {'unit': 'UTF8_CHAR'}, ('ok', 'string', (2,), [b'\xf0\x9f\x98\x8ea', b'xy'])),
    ('substr', ['hello', 1, 1], {'unit': 'WORD'}, ('error', 'InvalidArgumentError', 'Value for attr \'unit\' of "WORD" is not in the list of allowed values: "BYTE", "UTF8_CHAR"')),
]
# fmt: on
# Case index -> eagerflow's error message, where it words an error differently or raises
# where TensorFlow returns a value (documented in docs/guides/ops.md, "Strings").
OWN_MESSAGE: dict = {}


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}-{i}")
def test_matches_tensorflow(index):
    strings_cases.check(CASES[index], OWN_MESSAGE.get(index))


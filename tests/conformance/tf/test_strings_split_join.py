"""ef.strings.split, join, reduce_join and unicode_split against tf.strings.

Cases ported from TensorFlow's ``tensorflow/python/kernel_tests/strings_ops/`` tests
(string_split_op_test, string_join_op_test, reduce_join_op_test, unicode_decode_op_test) plus edge cases, each recorded from TensorFlow 2.21 (see `strings_cases`).
"""

import pytest

from tests.conformance.tf import strings_cases

# fmt: off
CASES = [
    ('split', [['pigs on the wing', 'animals']], {'padding': b''}, ('ok', 'string', (2, 4), [[b'pigs', b'on', b'the', b'wing'], [b'animals', b'', b'', b'']])),
    ('split', [['1<>2<>3', '<><>4<>5<><>6<>']], {'sep': '<>', 'padding': b''}, ('ok', 'string', (2, 7), [[b'1', b'2', b'3', b'', b'', b'', b''], [b'', b'', b'4', b'5', b'', b'6', b'']])),
    ('split', [['1,2,3', '4,5,,6,']], {'sep': ',', 'padding': b''}, ('ok', 'string', (2, 5), [[b'1', b'2', b'3', b'', b''], [b'4', b'5', b'', b'6', b'']])),
    ('split', [['1 2 3', '  4  5    6  ']], {'padding': b''}, ('ok', 'string', (2, 3), [[b'1', b'2', b'3'], [b'4', b'5', b'6']])),
    ('split', [['']], {'padding': b''}, ('ok', 'string', (1, 0), [[]])),
    ('split', [['1,2,3', '4,5,,6,']], {'sep': ',', 'maxsplit': 1, 'padding': b''}, ('ok', 'string', (2, 2), [[b'1', b'2,3'], [b'4', b'5,,6,']])),
    ('split', [['1 2 3', '  4  5    6  ']], {'maxsplit': 1, 'padding': b''}, ('ok', 'string', (2, 2), [[b'1', b'2 3'], [b'4', b'5    6  ']])),
    ('split', ['1,2,3'], {'sep': ','}, ('ok', 'string', (3,), [b'1', b'2', b'3'])),
    ('split', [[['1,2,3', '4'], ['5,6', '7,8,9']]], {'sep': ',', 'padding': b'-'}, ('ok', 'string', (2, 2, 3), [[[b'1', b'2', b'3'], [b'4', b'-', b'-']], [[b'5', b'6', b'-'], [b'7', b'8', b'9']]])),
    ('split', ['  a b\tc\x0bd\xa0e  '], {}, ('ok', 'string', (4,), [b'a', b'b', b'c', b'd\xc2\xa0e'])),
    ('split', [''], {'sep': ','}, ('ok', 'string', (1,), [b''])),
    ('split', [''], {}, ('ok', 'string', (0,), [])),
    ('split', ['a,b'], {'sep': ',,'}, ('ok', 'string', (1,), [b'a,b'])),
    ('split', ['a b c d'], {'maxsplit': 2}, ('ok', 'string', (3,), [b'a', b'b', b'c d'])),
    ('split', ['Gray wolf'], {'sep': ' '}, ('ok', 'string', (2,), [b'Gray', b'wolf'])),
    ('join', [[['a', 'b'], 'x', ['c', 'd']]], {'separator': '-'}, ('ok', 'string', (2,), [b'a-x-c', b'b-x-d'])),
    ('join', [[[['a', 'b'], ['c', 'd']], [['1', '2'], ['3', '4']]]], {'separator': '--'}, ('ok', 'string', (2, 2), [[b'a--1', b'b--2'], [b'c--3', b'd--4']])),
    ('join', [['a', 'b']], {}, ('ok', 'string', (), b'ab')),
    ('join', [['a', 'b']], {'separator': ', '}, ('ok', 'string', (), b'a, b')),
    ('join', [[[['a'], ['b']], ['c', 'd']]], {}, ('error', 'InvalidArgumentError', 'Input shapes do not match: [2,1] vs. [2]')),
    ('reduce_join', [[['a', 'b'], ['c', 'd']]], {}, ('ok', 'string', (), b'abcd')),
    ('reduce_join', [[['this', 'is'], ['a', 'test']]], {'axis': 0}, ('ok', 'string', (2,), [b'thisa', b'istest'])),
    ('reduce_join', [[['this', 'is'], ['a', 'test']]], {'axis': 1, 'separator': ' '}, ('ok', 'string', (2,), [b'this is', b'a test'])),
    ('reduce_join', [[['this', 'is'], ['a', 'test']]], {'axis': -1, 'keepdims': True}, ('ok', 'string', (2, 1), [[b'thisis'], [b'atest']])),
    ('reduce_join', [[['a', 'b'], ['c', 'd']]], {'axis': [0, 1], 'separator': ','}, ('ok', 'string', (), b'a,c,b,d')),
    ('reduce_join', [[['a', 'b'], ['c', 'd']]], {'axis': [1, 0], 'separator': ','}, ('ok', 'string', (), b'a,b,c,d')),
    ('reduce_join', [[[['a', 'b'], ['c', 'd']], [['e', 'f'], ['g', 'h']]]], {'axis': [0, 2]}, ('ok', 'string', (2,), [b'aebf', b'cgdh'])),
    ('reduce_join', [[[['a', 'b'], ['c', 'd']], [['e', 'f'], ['g', 'h']]]], {'axis': [2, 0]}, ('ok', 'string', (2,), [b'abef', b'cdgh'])),
    ('reduce_join', [[[['a', 'b'], ['c', 'd']], [['e', 'f'], ['g', 'h']]]], {'axis': 1, 'keepdims': True, 'separator': '|'}, ('ok', 'string', (2, 1, 2), [[[b'a|c', b'b|d']], [[b'e|g', b'f|h']]])),
    ('reduce_join', ['ab'], {}, ('ok', 'string', (), b'ab')),
    ('reduce_join', [('string', [[], []])], {'axis': 1}, ('ok', 'string', (2,), [b'', b''])),
    ('reduce_join', [[['a', 'b']]], {'axis': 2}, ('error', 'OutOfRangeError', 'Invalid reduction dimension 2 for input with 2 dimension(s)')),
    ('reduce_join', [[['a', 'b']]], {'axis': [0, 0]}, ('error', 'InvalidArgumentError', 'Duplicate reduction dimension 0')),
    ('unicode_split', ['héllo', 'UTF-8'], {}, ('ok', 'string', (5,), [b'h', b'\xc3\xa9', b'l', b'l', b'o'])),
    ('unicode_split', [['hé', '😎!'], 'UTF-8'], {'padding': b''}, ('ok', 'string', (2, 2), [[b'h', b'\xc3\xa9'], [b'\xf0\x9f\x98\x8e', b'!']])),
    ('unicode_split', [b'a\xffb', 'UTF-8'], {}, ('ok', 'string', (3,), [b'a', b'\xef\xbf\xbd', b'b'])),
    ('unicode_split', [b'a\xffb', 'UTF-8'], {'errors': 'ignore'}, ('ok', 'string', (2,), [b'a', b'b'])),
    ('unicode_split', [b'a\xffb', 'UTF-8'], {'errors': 'replace', 'replacement_char': 63}, ('ok', 'string', (3,), [b'a', b'?', b'b'])),
    ('unicode_split', [b'a\xffb', 'UTF-8'], {'errors': 'strict'}, ('error', 'InvalidArgumentError', 'Invalid formatting on input string')),
    ('unicode_split', [b'\x00a\x00b', 'UTF-16-BE'], {}, ('ok', 'string', (2,), [b'\x00a', b'\x00b'])),
    ('unicode_split', ['ab', 'latin-1'], {}, ('error', 'InvalidArgumentError', 'Value for attr \'output_encoding\' of "latin-1" is not in the list of allowed values: "UTF-8", "UTF-16-BE", "UTF-32-BE"')),
    ('unicode_split', ['', 'UTF-8'], {}, ('ok', 'string', (0,), [])),
]
# fmt: on
# Case index -> eagerflow's error message, where it words an error differently or raises
# where TensorFlow returns a value (documented in docs/guides/ops.md, "Strings").
OWN_MESSAGE: dict = {
    # TensorFlow names the attribute of the op it delegates to.
    40: "Value for attr 'input_encoding' of \"latin-1\" is not in the list of allowed values: "
        '"UTF-8", "UTF-16-BE", "UTF-32-BE"',
}


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}-{i}")
def test_matches_tensorflow(index):
    strings_cases.check(CASES[index], OWN_MESSAGE.get(index))


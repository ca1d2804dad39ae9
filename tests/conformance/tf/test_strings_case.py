"""ef.strings.lower, upper and strip against tf.strings.

Cases ported from TensorFlow's ``tensorflow/python/kernel_tests/strings_ops/`` tests
(string_lower_op_test, string_upper_op_test, string_strip_op_test) plus edge cases, each recorded from TensorFlow 2.21 (see `strings_cases`).
"""

import pytest

from tests.conformance.tf import strings_cases

# fmt: off
CASES = [
    ('lower', [['Pigs on The Wing', 'aNimals']], {}, ('ok', 'string', (2,), [b'pigs on the wing', b'animals'])),
    ('lower', [['ÓÓSSCHLOË']], {}, ('ok', 'string', (1,), [b'\xc3\x93\xc3\x93sschlo\xc3\x8b'])),
    ('lower', [['ÓÓSSCHLOË']], {'encoding': 'utf-8'}, ('ok', 'string', (1,), [b'\xc3\xb3\xc3\xb3sschlo\xc3\xab'])),
    ('lower', [[['AB', 'Cd'], ['eF', '']]], {}, ('ok', 'string', (2, 2), [[b'ab', b'cd'], [b'ef', b'']])),
    ('lower', ['SCALAR'], {}, ('ok', 'string', (), b'scalar')),
    ('lower', [['A']], {'encoding': 'latin-1'}, ('error', 'InvalidArgumentError', "only utf-8 or '' (no encoding) is supported, received latin-1")),
    ('upper', [['Pigs on The Wing', 'aNimals']], {}, ('ok', 'string', (2,), [b'PIGS ON THE WING', b'ANIMALS'])),
    ('upper', [['óósschloë']], {}, ('ok', 'string', (1,), [b'\xc3\xb3\xc3\xb3SSCHLO\xc3\xab'])),
    ('upper', [['óósschloë', 'ß']], {'encoding': 'utf-8'}, ('ok', 'string', (2,), [b'\xc3\x93\xc3\x93SSCHLO\xc3\x8b', b'SS'])),
    ('upper', [[]], {}, ('ok', 'string', (0,), [])),
    ('strip', [['pigs on the wing', 'animals']], {}, ('ok', 'string', (2,), [b'pigs on the wing', b'animals'])),
    ('strip', [[[' hello ', 'world '], ['hello', ' hello world ']]], {}, ('ok', 'string', (2, 2), [[b'hello', b'world'], [b'hello', b'hello world']])),
    ('strip', [['\n', '\t', ' ', ' \t\x0b\x0c\r\n x \n']], {}, ('ok', 'string', (4,), [b'', b'', b'', b'x'])),
    ('strip', [['\xa0x\xa0', '']], {}, ('ok', 'string', (2,), [b'\xc2\xa0x\xc2\xa0', b''])),
    ('strip', ['  scalar  '], {}, ('ok', 'string', (), b'scalar')),
]
# fmt: on
# Case index -> eagerflow's error message, where it words an error differently or raises
# where TensorFlow returns a value (documented in docs/guides/ops.md, "Strings").
OWN_MESSAGE: dict = {}


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}-{i}")
def test_matches_tensorflow(index):
    strings_cases.check(CASES[index], OWN_MESSAGE.get(index))


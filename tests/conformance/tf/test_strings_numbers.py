"""ef.strings.to_number and as_string against tf.strings.

Cases ported from TensorFlow's ``tensorflow/python/kernel_tests/strings_ops/`` tests
(string_to_number_op_test, as_string_op_test) plus edge cases, each recorded from TensorFlow 2.21 (see `strings_cases`).
"""

import pytest

from tests.conformance.tf import strings_cases

# fmt: off
CASES = [
    ('to_number', [['0', '3', '-1', '1.12', '0xF', '   -10.5', '3.40282e+38', '3.40282e+39', 'inf', 'nan']], {'out_type': 'float32'}, ('ok', 'float32', (10,), ('floats', ['0.0', '3.0', '-1.0', '1.1200000047683716', '15.0', '-10.5', '3.402820018375656e+38', 'inf', 'inf', 'nan']))),
    ('to_number', [['0', '3', '-1', '1.12', '1e3', '-0.5e-2', '1e400', '-1e-400']], {'out_type': 'float64'}, ('ok', 'float64', (8,), ('floats', ['0.0', '3.0', '-1.0', '1.12', '1000.0', '-0.005', 'inf', '-0.0']))),
    ('to_number', [['0', '3', '-1', '   -10', '2147483647', '-2147483648', '+4']], {'out_type': 'int32'}, ('ok', 'int32', (7,), [0, 3, -1, -10, 2147483647, -2147483648, 4])),
    ('to_number', [['2147483648']], {'out_type': 'int32'}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: 2147483648')),
    ('to_number', [['1.5']], {'out_type': 'int32'}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: 1.5')),
    ('to_number', [['0', '3', '-1', '9223372036854775807', ' 7 ']], {'out_type': 'int64'}, ('ok', 'int64', (5,), [0, 3, -1, 9223372036854775807, 7])),
    ('to_number', [['0x10']], {'out_type': 'int64'}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: 0x10')),
    ('to_number', [['abc']], {}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: abc')),
    ('to_number', [['']], {}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: ')),
    ('to_number', [['1_0']], {}, ('error', 'InvalidArgumentError', 'StringToNumberOp could not correctly convert string: 1_0')),
    ('to_number', [['Infinity', '-INF', 'NaN', '1.', '.5']], {}, ('ok', 'float32', (5,), ('floats', ['inf', '-inf', 'nan', '1.0', '0.5']))),
    ('to_number', [[['1', '2'], ['3', '4']]], {'out_type': 'int64'}, ('ok', 'int64', (2, 2), [[1, 2], [3, 4]])),
    ('to_number', ['42'], {}, ('ok', 'float32', (), ('floats', ['42.0']))),
    ('to_number', [['1']], {'out_type': 'uint8'}, ('error', 'InvalidArgumentError', "Value for attr 'out_type' of uint8 is not in the list of allowed values: float, double, int32, int64, uint32, uint64")),
    ('as_string', [('float32', [0, 1, -1, 0.5, 0.25, 0.125, float("inf"), float("-inf"), float("nan")])], {}, ('ok', 'string', (9,), [b'0.000000', b'1.000000', b'-1.000000', b'0.500000', b'0.250000', b'0.125000', b'inf', b'-inf', b'nan'])),
    ('as_string', [('float64', [0, 1, -1, 0.5, 0.25, 0.125, 10000000000.0, 0.3333333333333333])], {}, ('ok', 'string', (8,), [b'0.000000', b'1.000000', b'-1.000000', b'0.500000', b'0.250000', b'0.125000', b'10000000000.000000', b'0.333333'])),
    ('as_string', [('float32', [0, 1, -1, 0.5, 1e+20, 0.3333333333333333])], {'shortest': True}, ('ok', 'string', (6,), [b'0', b'1', b'-1', b'0.5', b'1e+20', b'0.333333'])),
    ('as_string', [('float32', [0, 1, -1, 0.5, 31415.9])], {'scientific': True}, ('ok', 'string', (5,), [b'0.000000e+00', b'1.000000e+00', b'-1.000000e+00', b'5.000000e-01', b'3.141590e+04'])),
    ('as_string', [('float32', [3.14159, -2.5])], {'precision': 2}, ('ok', 'string', (2,), [b'3.14', b'-2.50'])),
    ('as_string', [('float32', [0.1])], {'precision': 9}, ('ok', 'string', (1,), [b'0.100000001'])),
    ('as_string', [('float32', [3.5, -3.5])], {'width': 10}, ('ok', 'string', (2,), [b'  3.500000', b' -3.500000'])),
    ('as_string', [('float32', [3.5, -3.5])], {'width': 10, 'fill': '0'}, ('ok', 'string', (2,), [b'003.500000', b'-03.500000'])),
    ('as_string', [('float32', [3.5, -3.5])], {'width': 10, 'fill': ' '}, ('ok', 'string', (2,), [b'  3.500000', b' -3.500000'])),
    ('as_string', [('float32', [3.5])], {'width': 10, 'fill': '-'}, ('ok', 'string', (1,), [b'3.500000  '])),
    ('as_string', [('float32', [3.5])], {'width': 10, 'fill': '+', 'precision': 1}, ('ok', 'string', (1,), [b'      +3.5'])),
    ('as_string', [('float32', [3.5])], {'scientific': True, 'shortest': True}, ('error', 'InvalidArgumentError', 'Cannot select both scientific and shortest notation')),
    ('as_string', [[0, 1, -1, 123456]], {}, ('ok', 'string', (4,), [b'0', b'1', b'-1', b'123456'])),
    ('as_string', [('int64', [1099511627776, -7])], {}, ('ok', 'string', (2,), [b'1099511627776', b'-7'])),
    ('as_string', [('int8', [-3, 100])], {}, ('ok', 'string', (2,), [b'-3', b'100'])),
    ('as_string', [[3, -3]], {'width': 5, 'fill': '0'}, ('ok', 'string', (2,), [b'00003', b'-0003'])),
    ('as_string', [[3]], {'width': 5, 'fill': 'x'}, ('error', 'InvalidArgumentError', 'Fill argument not supported: "x"')),
    ('as_string', [[3]], {'precision': 2}, ('error', 'InvalidArgumentError', 'precision not supported for datatype int32')),
    ('as_string', [[True, False]], {}, ('ok', 'string', (2,), [b'true', b'false'])),
    ('as_string', [('complex64', [(1+2j), complex(-0.0, -0.5)])], {}, ('ok', 'string', (2,), [b'(1.000000,2.000000)', b'(-0.000000,-0.500000)'])),
    ('as_string', [['ab', 'c']], {'width': 4}, ('ok', 'string', (2,), [b'  ab', b'   c'])),
    ('as_string', [[[1.5, 2.5], [3.5, 4.5]]], {'precision': 1}, ('ok', 'string', (2, 2), [[b'1.5', b'2.5'], [b'3.5', b'4.5']])),
    ('as_string', [7], {}, ('ok', 'string', (), b'7')),
]
# fmt: on
# Case index -> eagerflow's error message, where it words an error differently or raises
# where TensorFlow returns a value (documented in docs/guides/ops.md, "Strings").
OWN_MESSAGE: dict = {}


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}-{i}")
def test_matches_tensorflow(index):
    strings_cases.check(CASES[index], OWN_MESSAGE.get(index))


"""ef.strings.regex_replace and regex_full_match (RE2 syntax) against tf.strings.

Cases ported from TensorFlow's ``tensorflow/python/kernel_tests/strings_ops/`` tests
(regex_replace_op_test, regex_full_match_op_test) plus edge cases, each recorded from TensorFlow 2.21 (see `strings_cases`).
"""

import pytest

from tests.conformance.tf import strings_cases

# fmt: off
CASES = [
    ('regex_replace', [['a:foo', 'a:bar', 'a:foo', 'b:baz', 'b:qux', 'ca:b'], '^(a:|b:)', ''], {'replace_global': False}, ('ok', 'string', (6,), [b'foo', b'bar', b'foo', b'baz', b'qux', b'ca:b'])),
    ('regex_replace', [['aba\naba', 'abcdabcde'], 'a.*a', '(\\0)'], {}, ('ok', 'string', (2,), [b'(aba)\n(aba)', b'(abcda)bcde'])),
    ('regex_replace', [['abc', '1'], '', 'x'], {}, ('ok', 'string', (2,), [b'xaxbxcx', b'x1x'])),
    ('regex_replace', [['abc', '1'], 'A[', 'x'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: A[, error: missing ]: [')),
    ('regex_replace', [['ababababab', 'abcabcabc', ''], 'ab', 'abc'], {'replace_global': True}, ('ok', 'string', (3,), [b'abcabcabcabcabc', b'abccabccabcc', b''])),
    ('regex_replace', ['foo', '[a-z]', '.'], {}, ('ok', 'string', (), b'...')),
    ('regex_replace', [['I <br />loved it<br /><br />!', 'no tags'], '<br />', ' '], {}, ('ok', 'string', (2,), [b'I  loved it  !', b'no tags'])),
    ('regex_replace', [["hello, world!! (it's) #1"], '[!"\\#\\$%\\&\'\\(\\)\\*\\+,\\-\\./:;<=>\\?@\\[\\\\\\]\\^_`\\{\\|\\}\\~]', ''], {}, ('ok', 'string', (1,), [b'hello world its 1'])),
    ('regex_replace', ['abxd', 'x*', '-'], {}, ('ok', 'string', (), b'-a-b-d-')),
    ('regex_replace', ['bab', 'a|', '-'], {}, ('ok', 'string', (), b'-b-b-')),
    ('regex_replace', ['ab\n', 'b$', 'X'], {}, ('ok', 'string', (), b'ab\n')),
    ('regex_replace', ['ab\ncd', '(?m)b$', 'X'], {}, ('ok', 'string', (), b'aX\ncd')),
    ('regex_replace', ['a\x0bb c', '\\s', '_'], {}, ('ok', 'string', (), b'a\x0bb_c')),
    ('regex_replace', ['aé1_', '\\w', 'x'], {}, ('ok', 'string', (), b'x\xc3\xa9xx')),
    ('regex_replace', ['aé1', '\\d', '#'], {}, ('ok', 'string', (), b'a\xc3\xa9#')),
    ('regex_replace', ['é!', '.', 'x'], {}, ('ok', 'string', (), b'xx')),
    ('regex_replace', ['aé', '[^a]', 'x'], {}, ('ok', 'string', (), b'ax')),
    ('regex_replace', ['aé b', '\\b', '|'], {}, ('ok', 'string', (), b'|a|\xc3\xa9 |b|')),
    ('regex_replace', ['aé', '\\x{e9}', 'e'], {}, ('ok', 'string', (), b'ae')),
    ('regex_replace', ['a.b*c', '\\Q.b*\\E', '_'], {}, ('ok', 'string', (), b'a_c')),
    ('regex_replace', ['ab', 'b\\z', 'x'], {}, ('ok', 'string', (), b'ax')),
    ('regex_replace', ['a\nb', '(?s)a.b', 'X'], {}, ('ok', 'string', (), b'X')),
    ('regex_replace', ['ABC abc', '(?i)b', 'x'], {}, ('ok', 'string', (), b'AxC axc')),
    ('regex_replace', ['xAB', 'x(?i)ab|c', '-'], {}, ('ok', 'string', (), b'-')),
    ('regex_replace', ['a1,b;c', '[[:punct:]]', ''], {}, ('ok', 'string', (), b'a1bc')),
    ('regex_replace', ['a1 b2', '[[:alpha:][:space:]]', ''], {}, ('ok', 'string', (), b'12')),
    ('regex_replace', ['hello world', '(\\w+) (\\w+)', '\\2 \\1 \\0 \\\\'], {}, ('ok', 'string', (), b'world hello hello world \\')),
    ('regex_replace', ['b', '(a)?b', '[\\1]'], {}, ('ok', 'string', (), b'[]')),
    ('regex_replace', ['aaa', 'a{,2}', 'x'], {}, ('ok', 'string', (), b'aaa')),
    ('regex_replace', ['aaaa', 'a{2}', 'x'], {}, ('ok', 'string', (), b'xx')),
    ('regex_replace', ['aaaa', 'a+?', 'x'], {}, ('ok', 'string', (), b'xxxx')),
    ('regex_replace', ['ab', '(?P<first>a)', '<\\1>'], {}, ('ok', 'string', (), b'<a>b')),
    ('regex_replace', [[['a1'], ['b2']], ('string', '\\d'), ('string', '#')], {}, ('ok', 'string', (2, 1), [[b'a#'], [b'b#']])),
    ('regex_replace', ['ab', 'a(?=b)', 'X'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: a(?=b), error: invalid perl operator: (?=')),
    ('regex_replace', ['aa', '(a)\\1', 'X'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: (a)\\1, error: invalid escape sequence: \\1')),
    ('regex_replace', ['ab', 'a*+', 'X'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: a*+, error: bad repetition operator: *+')),
    ('regex_replace', ['b', '(b', 'x'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: (b, error: missing ): (b')),
    ('regex_replace', [['a1', 'b2'], ('string', ['\\d', 'x']), 'X'], {}, ('error', 'InvalidArgumentError', 'Pattern must be scalar, but received [2]')),
    ('regex_full_match', [['abaa', 'abcdabcde'], 'a.*a'], {}, ('ok', 'bool', (2,), [True, False])),
    ('regex_full_match', [['abc', 'ab', '', 'abcc'], 'a.c'], {}, ('ok', 'bool', (4,), [True, False, False, False])),
    ('regex_full_match', ['a\nb', 'a.b'], {}, ('ok', 'bool', (), False)),
    ('regex_full_match', [['A1', 'a1', '1'], '(?i)[a-z]\\d'], {}, ('ok', 'bool', (3,), [True, True, False])),
    ('regex_full_match', [['abc', '1'], 'A['], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: A[, error: missing ]: [')),
    ('regex_full_match', [['x'], '(?=x)x'], {}, ('error', 'InvalidArgumentError', 'Invalid pattern: (?=x)x, error: invalid perl operator: (?=')),
    ('regex_full_match', [[['aé'], ['a']], '\\w+'], {}, ('ok', 'bool', (2, 1), [[False], [True]])),
    ('regex_replace', ['ab', 'b', '\\n'], {}, ('ok', 'string', (), b'a')),
    ('regex_replace', ['b', 'b', '\\1'], {}, ('ok', 'string', (), b'b')),
    ('regex_replace', [['AbCdEfG', 'HiJkLmN'], '\\p{Ll}', '.'], {}, ('ok', 'string', (2,), [b'A.C.E.G', b'H.J.L.N'])),
    ('regex_replace', ['aB', '(?U)a+', 'x'], {}, ('ok', 'string', (), b'xB')),
]
# fmt: on
# Case index -> eagerflow's error message, where it words an error differently or raises
# where TensorFlow returns a value (documented in docs/guides/ops.md, "Strings").
OWN_MESSAGE: dict = {
    # RE2 fails to rewrite and TensorFlow leaves the string as it was, or drops the match.
    45: r"Invalid rewrite b'\\\\n': \\n is not \\0-\\9 or \\\\ \(to insert a character",
    46: r"it refers to group \\1 but the pattern has 0 group\(s\)",
    # Python's re has no Unicode classes nor an ungreedy flag.
    47: r"Unicode classes \(\\p...\) are not supported: Python's re has no equivalent",
    48: r"the U \(ungreedy\) flag is not supported; write lazy repetitions",
}


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: f"{CASES[i][0]}-{i}")
def test_matches_tensorflow(index):
    strings_cases.check(CASES[index], OWN_MESSAGE.get(index))


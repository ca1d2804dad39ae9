"""RE2 patterns translated to Python's re, and what is refused (TensorFlow's behaviour on
the same patterns is in tests/conformance/tf/test_strings_regex.py)."""

import re

import pytest

from eagerflow.core import errors
from eagerflow.ops import re2


@pytest.mark.parametrize(("pattern", "text", "matches"), [
    (r"\d+$", "12", True), (r"\d+$", "12\n", False), (r"(?m)\d$", "12\n", False),
    (r"\w+", "é", False), (r"[\w]+", "a_1", True), (r"[\s]", "\v", False), (r"\s", " ", True),
    (r"\S+", "ab", True), (r"\D\W", "a!", True), (r"\x41\x{42}", "AB", True),
    (r"\Qa.b\E", "a.b", True), (r"\Qa.b", "axb", False), (r"a\z", "a", True),
    (r"[[:upper:]][[:digit:]]", "A1", True), (r"[]a]", "]", True), (r"[^]a]", "b", True),
    (r"[a&&b]", "&", True), (r"x(?i)a(?-i:b)", "xAb", True), (r"(?i:a)b", "Ab", True),
    (r"(?<n>a)b", "ab", True), (r"\Aab", "ab", True), (r"a{,2}", "a{,2}", True),
    (r"\.\t", ".\t", True), (r"\0", "\0", True),
])
def test_translated_patterns_match_as_re2(pattern, text, matches):
    assert (re2.compile_pattern(pattern.encode()).fullmatch(text) is not None) == matches


@pytest.mark.parametrize(("pattern", "message"), [
    ("a\\", r"trailing \\"),
    (r"\x{zz}", r"invalid escape sequence: \\x\{"),
    (r"\k<a>", r"invalid escape sequence: \\k"),
    (r"[\D]", r"\\D inside a character class is not supported"),
    (r"[[:nope:]]", r"invalid character class range: \[:nope:\]"),
    (r"a)", r"unexpected \): a\)"),
    (r"(?#note)", r"invalid perl operator: \(\?# \(RE2 has no comment\)"),
    (r"(?P=n)", r"invalid perl operator: \(\?P= \(RE2 has no backreference\)"),
    (r"a**", r"Invalid pattern: a\*\*, error: multiple repeat"),
])
def test_untranslatable_or_invalid_patterns_are_refused(pattern, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        re2.compile_pattern(pattern.encode())


def test_patterns_must_be_utf8():
    with pytest.raises(errors.InvalidArgumentError, match="invalid UTF-8"):
        re2.compile_pattern(b"\xff")


def test_rewrites_are_parsed_into_literals_and_groups():
    assert re2.parse_rewrite(rb"<\1>\\\0", 1) == ("<", 1, ">\\", 0)
    assert isinstance(re2.compile_pattern(b"a"), re.Pattern)

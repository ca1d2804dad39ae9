"""RE2 patterns and rewrites (TensorFlow's regex syntax) translated to Python's `re`.

`ef.strings.regex_replace` and `regex_full_match` take RE2 patterns, as TensorFlow does.
The common subset means the same in both engines once a few differences are translated:
RE2's ``\\d \\w \\s \\b`` are ASCII-only (``\\s`` without ``\\v``), ``$`` without the
``m`` flag matches only at the very end, ``\\z`` is Python's ``\\Z``, ``\\x{...}``,
``\\Q...\\E`` and POSIX classes (``[[:punct:]]``) have Python spellings, and inline flags
such as ``(?i)`` may appear anywhere. What RE2 has and Python's `re` cannot express
(``\\pL`` Unicode classes, the ``U`` flag) and what RE2 itself rejects (backreferences,
lookaround, possessive repetition) raise `InvalidArgumentError` naming the construct.

Examples:
    >>> from eagerflow.ops import re2
    >>> re2.translate(r"\\d+$")
    '[0-9]+\\\\Z'
"""

from __future__ import annotations

import functools
import re
import string

from eagerflow.core import errors

_WORD = "0-9A-Za-z_"
_SPACE = "\\t\\n\\f\\r "
_CLASS_ESCAPES = {"d": "0-9", "w": _WORD, "s": _SPACE}
_OUTSIDE_ESCAPES = {
    "d": "[0-9]", "D": "[^0-9]", "w": f"[{_WORD}]", "W": f"[^{_WORD}]", "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]", "A": "\\A", "z": "\\Z",
    # RE2's word boundary is ASCII; Python's is Unicode without re.ASCII (which would
    # also make (?i) ASCII-only, unlike RE2).
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
}
_SAME_ESCAPES = set("afnrtv0")
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": re.escape(string.punctuation), "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z", "word": _WORD, "xdigit": "0-9A-Fa-f",
}
_QUANTIFIERS = "*+?}"


def _refuse(pattern: str, what: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(f"Invalid pattern: {pattern}, error: {what}")


class _Translator:
    """One pass over an RE2 pattern, writing the Python pattern to `out`."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.out: list[str] = []
        # Per open group: the inline flags set inside it, as scoped groups still open.
        self.scopes: list[list[str]] = [[]]
        self.multiline = False

    def run(self) -> str:
        pattern = self.pattern
        while self.pos < len(pattern):
            char = pattern[self.pos]
            self.pos += 1
            if char == "\\":
                self.out.append(self._escape(in_class=False))
            elif char == "[":
                self._char_class()
            elif char == "(":
                self._group()
            elif char == ")":
                if len(self.scopes) == 1:
                    raise _refuse(pattern, f"unexpected ): {pattern}")
                self.out.append(")" * len(self.scopes.pop()) + ")")
            elif char == "|":
                flags = self.scopes[-1]
                self.out.append(")" * len(flags) + "|" + "".join(f"(?{f}:" for f in flags))
            elif char == "$":
                self.out.append("$" if self.multiline else "\\Z")
            elif char == "{" and pattern.startswith(",", self.pos):
                self.out.append("\\{")  # Python reads {,n} as a repeat; RE2 as text
            elif char in _QUANTIFIERS and pattern.startswith("+", self.pos):
                raise _refuse(pattern, f"bad repetition operator: {char}+")
            else:
                self.out.append(char)
        if len(self.scopes) != 1:
            raise _refuse(pattern, f"missing ): {pattern}")
        return "".join(self.out) + ")" * len(self.scopes[0])

    def _escape(self, in_class: bool) -> str:
        pattern = self.pattern
        if self.pos >= len(pattern):
            raise _refuse(pattern, "trailing \\")
        char = pattern[self.pos]
        self.pos += 1
        if in_class and char in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[char]
        if not in_class and char in _OUTSIDE_ESCAPES:
            return _OUTSIDE_ESCAPES[char]
        if char in "pP":
            raise _refuse(pattern, f"Unicode classes (\\{char}...) are not supported: "
                                   "Python's re has no equivalent; list the characters")
        if char == "Q":
            end = pattern.find("\\E", self.pos)
            end = len(pattern) if end < 0 else end
            literal, self.pos = pattern[self.pos:end], min(end + 2, len(pattern))
            return re.escape(literal)
        if char == "x":
            if pattern.startswith("{", self.pos):
                end = pattern.find("}", self.pos)
                digits = pattern[self.pos + 1:end] if end > 0 else ""
                if not digits or not all(c in string.hexdigits for c in digits):
                    raise _refuse(pattern, "invalid escape sequence: \\x{")
                self.pos = end + 1
                return f"\\U{int(digits, 16):08x}"
            return "\\x"
        if char.isdigit() and char != "0":
            raise _refuse(pattern, f"invalid escape sequence: \\{char} (RE2 has no "
                                   "backreferences)")
        if char in _SAME_ESCAPES or not char.isalnum():
            return "\\" + char
        raise _refuse(pattern, f"invalid escape sequence: \\{char}")

    def _char_class(self) -> None:
        pattern = self.pattern
        start = self.pos - 1
        parts = ["["]
        if pattern.startswith("^", self.pos):
            parts.append("^")
            self.pos += 1
        if pattern.startswith("]", self.pos):
            parts.append("\\]")
            self.pos += 1
        while True:
            if self.pos >= len(pattern):
                raise _refuse(pattern, f"missing ]: {pattern[start:]}")
            char = pattern[self.pos]
            self.pos += 1
            if char == "]":
                break
            if char == "\\":
                if pattern.startswith(("D", "W", "S"), self.pos):
                    raise _refuse(pattern, f"\\{pattern[self.pos]} inside a character class "
                                           "is not supported here; write the class out")
                parts.append(self._escape(in_class=True))
            elif char == "[" and pattern.startswith(":", self.pos):
                end = pattern.find(":]", self.pos)
                name = pattern[self.pos + 1:end] if end > 0 else ""
                if name not in _POSIX:
                    raise _refuse(pattern, f"invalid character class range: [:{name}:]")
                parts.append(_POSIX[name])
                self.pos = end + 2
            elif char in "[&~|":
                parts.append("\\" + char)  # Python reserves [[, &&, ~~, || for set syntax
            else:
                parts.append(char)
        self.out.append("".join(parts) + "]")

    def _group(self) -> None:
        pattern = self.pattern
        if not pattern.startswith("?", self.pos):
            self.scopes.append([])
            self.out.append("(")
            return
        rest = pattern[self.pos + 1:]
        if rest.startswith(("P<", "<")) and not rest.startswith(("<=", "<!")):
            skip = 2 if rest.startswith("P<") else 1
            self.pos += 1 + skip
            self.scopes.append([])
            self.out.append("(?P<")
            return
        flags = re.match(r"([imsU]*(?:-[imsU]*)?)([:)])", rest)
        if flags is None:
            construct = "(?" + (rest[:2] if rest[:1] in ("<", "P") else rest[:1])
            reason = {"(?=": "lookahead", "(?!": "lookahead", "(?<": "lookbehind",
                      "(?P": "backreference", "(?#": "comment"}.get(construct[:3], "")
            raise _refuse(pattern, f"invalid perl operator: {construct}"
                                   + (f" (RE2 has no {reason})" if reason else ""))
        letters, end = flags.groups()
        if "U" in letters:
            raise _refuse(pattern, "the U (ungreedy) flag is not supported; write lazy "
                                   "repetitions (*?, +?) instead")
        if "m" in letters.split("-")[0]:
            self.multiline = True
        self.pos += 1 + flags.end()
        if end == ":":
            self.scopes.append([])
            self.out.append(f"(?{letters}:")
        elif letters:  # (?i): to the end of the enclosing group, as a scoped group
            self.scopes[-1].append(letters)
            self.out.append(f"(?{letters}:")


def translate(pattern: str) -> str:
    """The Python `re` pattern that matches what RE2 pattern `pattern` matches.

    Raises:
        InvalidArgumentError: for what RE2 rejects or Python cannot express.
    """
    return _Translator(pattern).run()


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: bytes) -> re.Pattern:
    """Compiles RE2 pattern `pattern` (UTF-8 bytes) to a Python `re.Pattern` on str."""
    try:
        text = pattern.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.InvalidArgumentError(
            f"Invalid pattern: {pattern!r}, error: invalid UTF-8") from None
    translated = translate(text)
    try:
        return re.compile(translated)
    except re.error as e:
        raise _refuse(text, str(e)) from None


@functools.lru_cache(maxsize=256)
def parse_rewrite(rewrite: bytes, groups: int) -> tuple:
    """RE2's rewrite string as parts: str literals and int group numbers (``\\0`` is the
    whole match, ``\\\\`` a backslash).

    Raises:
        InvalidArgumentError: for any other escape, or a group the pattern lacks (RE2
            would leave the text unchanged instead).
    """
    text = rewrite.decode("utf-8", "surrogateescape")
    parts: list[str | int] = []
    literal: list[str] = []
    chars = iter(text)
    for char in chars:
        if char != "\\":
            literal.append(char)
            continue
        following = next(chars, "")
        if following == "\\":
            literal.append("\\")
        elif following.isdigit() and following.isascii():
            if int(following) > groups:
                raise errors.InvalidArgumentError(
                    f"Invalid rewrite {rewrite!r}: it refers to group \\{following} but the "
                    f"pattern has {groups} group(s)")
            parts += ["".join(literal), int(following)]
            literal = []
        else:
            raise errors.InvalidArgumentError(
                f"Invalid rewrite {rewrite!r}: \\{following} is not \\0-\\9 or \\\\ (to insert "
                "a character such as a newline, put it in the string itself)")
    parts.append("".join(literal))
    return tuple(part for part in parts if part != "")

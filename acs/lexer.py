"""Tokenizer for ACS source: identifiers, keywords, numbers as acc reads them, strings, operators.

Tokens are kept as parallel lists (kind, value, text) rather than one object each, which is what makes large
files lex quickly; where a token stands in the source is worked out only when a message needs it.
"""

from __future__ import annotations

import bisect
import math
import re

from .errors import AcsError, Source

# Reserved words of acc 1.58; they cannot name variables or functions.
KEYWORDS = frozenset(
    """break case const continue default define do else for goto if include int open print printbold log
    hudmessage hudmessagebold restart script special str suspend switch terminate until void while world
    global respawn death enter pickup bluereturn redreturn whitereturn nocompact lightning createtranslation
    function return wadauthor nowadauthor acs_executewait acs_namedexecutewait encryptstrings import library
    libdefine bool net clientside disconnect event unloading static strparam strcpy region endregion kill
    reopen morphactor""".split()
)
OPERATORS = ("<<= >>= ++ -- += -= *= /= %= &= |= ^= == != <= >= << >> && || - + * / % = < > ! & | ^ ~ ( ) [ ] "
             "{ } ? : ; , . # @").split()

# One match per token: the spaces and comments before it are skipped inside the match, so findall hands back
# just the tokens' texts. A comment left open runs to the end of the file, as in acc. A lone '"' or "'" is an
# unterminated string or character constant; DEL ends the text for acc; the empty match at the very end is
# the end of file. The alternatives are tried in order, so the common ones come first and operators are
# grouped by their first character (a longer operator before its prefix: '<<=' before '<<' before '<=').
# Possessive repeats (*+) never give back what they matched, which nothing after them would take: the engine
# keeps no backtracking state for them. A string's body is runs of plain characters between escapes, not one
# alternation per character.
_TOKEN_RE = re.compile(
    r"""[\x00-\x20]*+(?:/(?:/[^\n]*+|\*.*?(?:\*/|\Z))[\x00-\x20]*+)*+
    ( [A-Za-z_][A-Za-z0-9_]*+
    | [1-9][0-9]*+(?:\.[0-9]*+|_[0-9A-Za-z]*+)? | 0(?:[xX][0-9A-Fa-f]*+|[0-9]*+(?:\.[0-9]*+|_[0-9A-Za-z]*+)?)
    | [,;()]
    | "[^"\\\x7f]*+(?:\\[^\x7f][^"\\\x7f]*+)*+"
    | '(?:\\(?:[0-7]{1,3}|[xX][0-9A-Fa-f]+|[abtvnfr'"\\])|[^'\\\x7f])'
    | <<=? | >>=? | \+\+ | -- | && | \|\| | [-+*/%=<>!&|^]=?
    | [~\[\]{}?:.\#@]
    | . | \Z )""",
    re.VERBOSE | re.DOTALL,
)
# Kind of every token whose lower-cased text alone decides it; the rest are names, numbers and strings.
_FIXED_KINDS = {**{word: word for word in KEYWORDS}, **{op: op for op in OPERATORS}, "": "eof", "\x7f": "eof"}
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_DIGITS = frozenset("0123456789")
_CHAR_ESCAPES = {"a": 7, "b": 8, "t": 9, "v": 11, "n": 10, "f": 12, "r": 13, "'": 39, "\\": 92, '"': 34}
_CONTROL_TO_SPACE = {i: " " for i in range(32)}
_CONTROL = re.compile(r"[\x00-\x1f]")


class Tokens:
    """A token stream: ``kinds[i]`` (a keyword, an operator's text, or ident/number/string/builtin/import/eof),
    ``values[i]`` (lower-cased name, int, string body, or an include's payload) and ``texts[i]`` (as written).

    ``segments`` say which source each stretch of tokens came from: (first index here, source, index of that
    token among the source's own tokens), in order. ``error(i, message)`` and ``line(i)`` find the spot.
    """

    __slots__ = ("kinds", "values", "texts", "segments")

    def __init__(self, kinds: list, values: list, texts: list, segments: list):
        self.kinds, self.values, self.texts, self.segments = kinds, values, texts, segments

    def position(self, at: int) -> tuple[Source, int]:
        """(source, character offset) of token ``at``."""
        segment = bisect.bisect_right(self.segments, at, key=_segment_start) - 1
        first, source, local = self.segments[segment]
        return source, token_offsets(source)[local + at - first]

    def error(self, at: int, message: str) -> AcsError:
        source, offset = self.position(at)
        return AcsError(message, source, offset)

    def line(self, at: int) -> int:
        source, offset = self.position(at)
        return source.locate(offset)[0]

    def __len__(self) -> int:
        return len(self.kinds)


def _segment_start(segment) -> int:
    return segment[0]


def wrap32(value: int) -> int:
    """The signed 32-bit integer acc's C arithmetic leaves from ``value``."""
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def fixed_value(text: str) -> int:
    """acc's fixed-point literal: whole part shifted 16, plus the truncated fraction computed in doubles."""
    whole_text, _, frac_text = text.partition(".")
    whole = wrap32(int(whole_text))
    if len(frac_text) <= 15:  # every step of acc's loop below is exact in a double: the same numbers at once
        frac = float(int(frac_text or "0"))
        divisor = float(10 ** len(frac_text))
    else:
        frac = 0.0
        divisor = 1.0
        for digit in frac_text:
            frac = 10 * frac + (ord(digit) - 48)
            divisor *= 10
    part = 65536.0 * frac / divisor
    fraction = int(part) if math.isfinite(part) else 0
    return wrap32((whole << 16) + fraction)


def tokenize(source: Source) -> Tokens:
    """All tokens of one source text, ending with an ``eof`` token (at the end, or at a DEL character)."""
    texts = _TOKEN_RE.findall(source.text)
    if len(texts) > 1 and texts[-2] == "":
        texts.pop()  # trailing space ends in an empty match, and the very end in another
    kind_of: dict[str, str] = {}
    value_of: dict[str, object] = {}
    problems: list[tuple[str, AcsError | None]] = []
    for text in set(texts):  # each distinct spelling is classified (and its value worked out) once
        lowered = text.lower()
        kind = _FIXED_KINDS.get(lowered)
        first = text[:1]
        value = lowered
        if kind is not None:
            value = None if kind == "eof" else lowered
        elif first in _NAME_START:
            kind = "ident"
        elif first in _DIGITS or (first == "'" and len(text) > 1):
            kind = "number"
            try:
                value = _number(text, source, texts)
            except AcsError as error:
                problems.append((text, error))
        elif first == '"' and len(text) > 1:
            kind = "string"
            value = text[1:-1]
            if _CONTROL.search(value):
                value = value.translate(_CONTROL_TO_SPACE)  # acc reads control characters as spaces
        else:
            problems.append((text, None))
        kind_of[text] = kind
        value_of[text] = value
    if "\x7f" in kind_of:  # DEL: acc stops reading there
        del texts[texts.index("\x7f") + 1:]
    if problems:
        _raise_first(problems, texts, source)
    return Tokens(list(map(kind_of.__getitem__, texts)), list(map(value_of.__getitem__, texts)), texts,
                  [(0, source, 0)])


def _raise_first(problems: list[tuple[str, AcsError | None]], texts: list[str], source: Source) -> None:
    """Raise the error of the first token (in the text, before any DEL) that is no token."""
    found = [(texts.index(text), text, error) for text, error in problems if text in texts]
    if found:
        at, text, error = min(found, key=lambda item: item[0])
        raise error or AcsError(_bad_token_message(text), source, token_offsets(source)[at])


def token_offsets(source: Source) -> list[int]:
    """Where each token of ``source`` starts, in tokenize's order (worked out once, when first needed)."""
    offsets = source.token_offsets
    if offsets is None:
        offsets = source.token_offsets = [match.start(1) for match in _TOKEN_RE.finditer(source.text)]
    return offsets


def _number(text: str, source: Source, texts: list[str]) -> int:
    """The value of a number or character constant (``texts``: the source's tokens, to place an error)."""
    if text[0] == "'":
        return _char_value(text[1:-1])
    if "." in text:
        return fixed_value(text)
    if text[1:2] in ("x", "X"):
        return wrap32(int(text[2:] or "0", 16))
    if "_" in text:
        return _radix_value(text, source, texts.index(text))
    return wrap32(int(text))


def _radix_value(text: str, token_source: Source, index: int) -> int:
    base_text, _, digits = text.partition("_")
    base = int(base_text)
    if not 2 <= base <= 36:
        raise AcsError(f"radix {base} is out of range (2 to 36)", token_source, token_offsets(token_source)[index])
    value = 0
    for i, ch in enumerate(digits):
        digit = int(ch, 36)
        if digit >= base:
            offset = token_offsets(token_source)[index] + len(base_text) + 1 + i
            raise AcsError(f"digit '{ch}' is not valid in base {base}", token_source, offset)
        value = value * base + digit
    return wrap32(value)


def _char_value(body: str) -> int:
    if not body.startswith("\\"):
        return ord(body.translate(_CONTROL_TO_SPACE))  # acc reads every control character as a space
    rest = body[1:]
    if rest[0] in "01234567":
        return int(rest, 8)
    if rest[0] in "xX":
        return wrap32(int(rest[1:], 16))
    return _CHAR_ESCAPES[rest]


def _bad_token_message(text: str) -> str:
    if text == '"':
        return "unterminated string (a '\"' is missing)"
    if text == "'":
        return "bad character constant (write one character between single quotes, e.g. 'A' or '\\n')"
    return f"unexpected character {text!r} in script text"

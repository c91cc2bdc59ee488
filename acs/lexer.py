"""Regex-driven tokenizer for ACS source: identifiers, keywords, numbers as acc reads them, strings, operators."""

from __future__ import annotations

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

_TOKEN_RE = re.compile(
    r"""
     (?P<space>[\x00-\x20]+)
    |(?P<linecomment>//[^\n]*)
    |(?P<blockcomment>/\*.*?\*/)
    |(?P<badcomment>/\*)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<hex>0[xX][0-9A-Fa-f]*)
    |(?P<fixed>[0-9]+\.[0-9]*)
    |(?P<radix>[0-9]+_[0-9A-Za-z]*)
    |(?P<int>[0-9]+)
    |(?P<string>"(?:[^"\\\x7f]|\\[^\x7f])*")
    |(?P<char>'(?:\\(?:[0-7]{1,3}|[xX][0-9A-Fa-f]+|[abtvnfr'"\\])|[^'\\\x7f])')
    |(?P<op><<=|>>=|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|==|!=|<=|>=|<<|>>|&&|\|\||[-+*/%=<>!&|^~()\[\]{}?:;,.\#@])
    |(?P<eof>\x7f)
    |(?P<badstring>")
    |(?P<badchar>')
    |(?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_CHAR_ESCAPES = {"a": 7, "b": 8, "t": 9, "v": 11, "n": 10, "f": 12, "r": 13, "'": 39, "\\": 92, '"': 34}
_CONTROL_TO_SPACE = {i: " " for i in range(32)}


class Token:
    """One token: ``kind`` is a keyword, an operator's text, or one of ident/number/string/eof."""

    __slots__ = ("kind", "value", "text", "offset", "source")

    def __init__(self, kind: str, value, text: str, offset: int, source: Source):
        self.kind = kind
        self.value = value  # lower-cased name, int, or string body
        self.text = text  # the characters as written
        self.offset = offset
        self.source = source

    def error(self, message: str) -> AcsError:
        return AcsError(message, self.source, self.offset)

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.value!r})"


def wrap32(value: int) -> int:
    """The signed 32-bit integer acc's C arithmetic leaves from ``value``."""
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def fixed_value(text: str) -> int:
    """acc's fixed-point literal: whole part shifted 16, plus the truncated fraction computed in doubles."""
    whole_text, _, frac_text = text.partition(".")
    whole = wrap32(int(whole_text))
    frac = 0.0
    divisor = 1.0
    for digit in frac_text:
        frac = 10 * frac + (ord(digit) - 48)
        divisor *= 10
    part = 65536.0 * frac / divisor
    fraction = int(part) if math.isfinite(part) else 0
    return wrap32((whole << 16) + fraction)


def _radix_value(text: str, token_source: Source, offset: int) -> int:
    base_text, _, digits = text.partition("_")
    base = int(base_text)
    if not 2 <= base <= 36:
        raise AcsError(f"radix {base} is out of range (2 to 36)", token_source, offset)
    value = 0
    for i, ch in enumerate(digits):
        digit = int(ch, 36)
        if digit >= base:
            raise AcsError(f"digit '{ch}' is not valid in base {base}", token_source, offset + len(base_text) + 1 + i)
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


def tokenize(source: Source) -> list[Token]:
    """All tokens of one source text, ending with an ``eof`` token."""
    text = source.text
    tokens: list[Token] = []
    append = tokens.append
    for match in _TOKEN_RE.finditer(text):
        group = match.lastgroup
        start = match.start()
        lexeme = match.group()
        if group == "space" or group == "linecomment" or group == "blockcomment":
            continue
        if group == "ident":
            name = lexeme.lower()
            append(Token(name if name in KEYWORDS else "ident", name, lexeme, start, source))
        elif group == "op":
            append(Token(lexeme, lexeme, lexeme, start, source))
        elif group == "int":
            append(Token("number", wrap32(int(lexeme)), lexeme, start, source))
        elif group == "string":
            # acc turns every control character, even inside a string, into a space.
            append(Token("string", lexeme[1:-1].translate(_CONTROL_TO_SPACE), lexeme, start, source))
        elif group == "fixed":
            append(Token("number", fixed_value(lexeme), lexeme, start, source))
        elif group == "hex":
            append(Token("number", wrap32(int(lexeme[2:] or "0", 16)), lexeme, start, source))
        elif group == "radix":
            append(Token("number", _radix_value(lexeme, source, start), lexeme, start, source))
        elif group == "char":
            append(Token("number", _char_value(lexeme[1:-1]), lexeme, start, source))
        elif group == "eof":
            break  # acc stops reading at a DEL character
        else:
            raise AcsError(_bad_token_message(group, lexeme), source, start)
    stop = text.find("\x7f")
    tokens.append(Token("eof", None, "", len(text) if stop < 0 else stop, source))
    return tokens


def _bad_token_message(group: str, lexeme: str) -> str:
    if group == "badstring":
        return "unterminated string (a '\"' is missing)"
    if group == "badcomment":
        return "unterminated comment ('/*' without '*/')"
    if group == "badchar":
        return "bad character constant (write one character between single quotes, e.g. 'A' or '\\n')"
    return f"unexpected character {lexeme!r} in script text"

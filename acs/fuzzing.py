"""Random ACS inputs for robustness tests of the compiler: token soup, mutated scripts and raw bytes.

Every generator takes a ``random.Random`` so runs are reproducible from a seed (hypothesis hands one in
through ``st.randoms()``). ``is_compiler_bug(error)`` tells a crash wrapped as "internal compiler error"
apart from an ordinary compile error.
"""

from __future__ import annotations

import random
import re

from . import builtins

# Seeds beyond the shipped scenario scripts: every statement form, scope and built-in kind.
SEED_SCRIPTS = (
    '''#include "zcommon.acs"
#define LIMIT 10
global int 1:total;
world int 2:seen[];
int counts[4] = {1, -2, 0x1F, 'A'};
int grid[2][3] = {{1, 2, 3}, {4, 5, 6}};
str names[2] = {"a", "b"};
function int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }
function void nothing(void) { }
script 1 OPEN
{
    int i, j = 3;
    for (int k = 0; k < LIMIT; k++) { total += k; if (k == 5) continue; if (k > 8) break; }
    while (i < 3) i++;
    until (i == 0) --i;
    do { j -= 1; } while (j > 0);
    do j++; until (j >= 2);
    switch (j) { case 1: total = 1; break; case 2: case 3: total <<= 2; break; default: total = -1; }
    counts[1] %= 3; grid[1][2] ^= 7; seen[5] = fact(5);
    total = (total & 0xff) | (~total >> 3) && !i || 8_777 > 1.5;
    Print(s:"total ", d:total, s:" ", f:1.25, s:names[1], c:'x');
    HudMessage(s:"hi"; HUDMSG_PLAIN, 1, CR_GOLD, 0.5, 0.5, 2.0);
    Log(s:StrParam(d:fact(3)));
    Delay(const:5);
    nothing();
    restart;
}
script 2 (int a, int b) NET { SetResultValue(a + b); terminate; }
script "named" ENTER CLIENTSIDE { ACS_NamedExecuteAlways("named", 0, 1); suspend; }
script 3 DEATH { Spawn("Medikit", GetActorX(0), GetActorY(0), 0.0, 7, 0); Thing_Remove(7); }
script 4 (void) { SetActorProperty(0, APROP_Speed, 0.5); GiveInventory("Clip", 5);
    if (CheckInventory("Clip") > 3) TakeInventory("Clip", 1); else ClearInventory();
    ACS_ExecuteWithResult(2, 1, 2); int v = Sqrt(16) + VectorLength(3.0, 4.0) + StrCmp("a", "b"); }
''',
    '''#include "zcommon.acs"
script 1 ENTER { int x = Random(1, 6); bool b = true; str s = "q"; x *= 2; x /= 1; x = -x + +x; }
script 2 RESPAWN { Thing_ChangeTID(0, 5); ACS_Execute(3, 0, 1, 2, 3); }
script 3 (int a, int b, int c) { SpawnForced("Clip", 0, 0, 0, 9, 0); }
script 4 (int p) DISCONNECT { } script 5 LIGHTNING { } script 6 UNLOADING { } script 7 RETURN { }
''',
)

_KEYWORDS = ("script", "function", "int", "str", "bool", "void", "if", "else", "while", "until", "do", "for",
             "switch", "case", "default", "break", "continue", "return", "restart", "terminate", "suspend",
             "global", "world", "const", "OPEN", "ENTER", "RESPAWN", "DEATH", "DISCONNECT", "RETURN",
             "LIGHTNING", "UNLOADING", "NET", "CLIENTSIDE", "special", "true", "false", "static",
             "#include", "#define", "#libdefine", "#library", "#import", "#nocompact", "#wadauthor",
             "#nowadauthor", "#encryptstrings", "#region", "#endregion", "#if", "#ifdef", "#endif")
_PUNCTUATION = ("{", "}", "(", ")", "[", "]", ";", ",", ":", "=", "+=", "-=", "*=", "/=", "%=", "&=",
                "|=", "^=", "<<=", ">>=", "++", "--", "+", "-", "*", "/", "%", "<<", ">>", "&", "|",
                "^", "~", "!", "&&", "||", "==", "!=", "<", ">", "<=", ">=", "?", ".")
_LITERALS = ("0", "1", "-1", "255", "256", "65536", "2147483647", "2147483648", "4294967296",
             "99999999999999999999", "0x", "0xFFFFFFFF", "0x1g", "1.5", "0.1", "-161.0", ".5", "1.", "1e5",
             "8_777", "36_zz", "2_102", "0_1", "'A'", "'\\n'", "''", "'ab", "'\\x'", "'\\X'", "'\\x41'",
             "'\\q'", "'\t'", '"s"', '"\\"esc"', '"multi\nline"',
             '"unterminated', '"zcommon.acs"', "/* c */", "// c\n", "/* open", "\\", "@", "$", "`", "\t")
_FORMS = ("print", "printbold", "log", "hudmessage", "strparam", "createtranslation", "s:", "d:", "f:",
          "i:", "c:", "n:", "l:", "x:", "b:", "a:", "k:")


def vocabulary() -> tuple[str, ...]:
    """Tokens the generators draw from: language words, built-in names, odd literals."""
    names = [name for name in builtins.all_names() if not name.startswith("T_")][::7]
    return _KEYWORDS + _PUNCTUATION + _LITERALS + _FORMS + tuple(names) + ("x", "a1", "_y", "LIMIT")


_VOCABULARY = vocabulary()


def token_soup(rng: random.Random, max_tokens: int = 60) -> str:
    """Tokens in random order, sometimes inside a script body so the parser gets deeper."""
    tokens = [rng.choice(_VOCABULARY) for _ in range(rng.randint(0, max_tokens))]
    text = "".join(token + rng.choice(" \n ") for token in tokens)
    if rng.random() < 0.5:
        text = '#include "zcommon.acs"\nscript 1 OPEN {\n' + text + "\n}\n"
    return text


def mutate(rng: random.Random, text: str, edits: int = 4) -> str:
    """A script with a few random edits: deletions, duplications, swaps, token and byte insertions."""
    for _ in range(rng.randint(1, edits)):
        text = rng.choice(_MUTATIONS)(rng, text)
    return text


def _span(rng: random.Random, text: str) -> tuple[int, int]:
    start = rng.randrange(len(text) + 1)
    return start, min(len(text), start + rng.choice((1, 1, 2, 5, 20, 80)))


def _delete(rng, text):
    start, end = _span(rng, text)
    return text[:start] + text[end:]


def _duplicate(rng, text):
    start, end = _span(rng, text)
    return text[:end] + text[start:end] + text[end:]


def _insert_token(rng, text):
    at = rng.randrange(len(text) + 1)
    return text[:at] + " " + rng.choice(_VOCABULARY) + " " + text[at:]


def _insert_char(rng, text):
    at = rng.randrange(len(text) + 1)
    return text[:at] + chr(rng.choice((0, 9, 10, 13, 34, 39, 47, 92, 127, 255, 0x263A, rng.randrange(32, 127))))\
        + text[at:]


def _swap_lines(rng, text):
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _replace_number(rng, text):
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    if not digits:
        return text
    at = rng.choice(digits)
    return text[:at] + rng.choice(_LITERALS[:12]) + text[at + 1:]


_WORD = re.compile(r"[A-Za-z_]\w*")
_OPERATOR = re.compile(r"[-+*/%<>=!&|^~]+|[{}()\[\];,:]")
_WORDS = tuple(token for token in _VOCABULARY if _WORD.fullmatch(token))


def _replace_match(rng, text, pattern, choices):
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    return text[:match.start()] + rng.choice(choices) + text[match.end():]


def _replace_word(rng, text):
    local = tuple(m.group() for m in _WORD.finditer(text[:2000])) or _WORDS
    return _replace_match(rng, text, _WORD, _WORDS + local)


def _replace_operator(rng, text):
    return _replace_match(rng, text, _OPERATOR, _PUNCTUATION)


def _line_edit(rng, text):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


# Token-level edits mostly, so many mutants still lex and parse and reach the checker and code generator.
_MUTATIONS = (_delete, _duplicate, _insert_token, _insert_char, _swap_lines, _replace_number,
              _replace_word, _replace_word, _replace_word, _replace_operator, _replace_operator,
              _line_edit, _line_edit)


def random_bytes(rng: random.Random, max_size: int = 300) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, max_size)))


def is_compiler_bug(error: BaseException) -> bool:
    """True for an AcsError that wraps an unexpected Python exception (a crash, not a compile error)."""
    return error.__cause__ is not None or "internal compiler error" in str(error)

"""Strings and print specifiers in the engine, case-insensitive names, and the #encryptstrings and
#nocompact object forms (STRE chunk; four-byte p-codes, in Hexen's layout or ACSE)."""

from __future__ import annotations

import pytest

# (StrParam specifiers, the text the engine should build)
FORMATS = [
    ('s:"abc"', "abc"),
    ("d:42", "42"),
    ("i:-3", "-3"),
    ("c:'c'", "c"),
    ("x:255", "FF"),
    ("b:5", "101"),
    ("f:1.5", "1.5"),
    ("f:0.25", "0.25"),
    ('s:"a", d:1, s:"b"', "a1b"),
    ('s:"tab\\tstop"', "tab\tstop"),
    ("n:0", "Player"),
    ('l:"NOTLOCALIZEDATALL"', "NOTLOCALIZEDATALL"),
]

STRING_FUNCTIONS = """
#include "zcommon.acs"
INT Mixed_Case = 4;
FUNCTION INT Twice(INT V) { RETURN V * 2; }
Script 1 open
{
    length = StrLen("hello world");
    compare = (StrCmp("abc", "abd") < 0) * 10 + (StrICmp("ABC", "abc") == 0);
    left = StrCmp(StrLeft("abcdef", 3), "abc") == 0;
    middle = StrCmp(StrMid("abcdef", 2, 2), "cd") == 0;
    char = GetChar("xyz", 2);
    escaped = StrLen("a\\nb\\\\c\\"d");
    same_index = "hello" == "hello";
    case_insensitive = twice(MIXED_case) + TWICE(mixed_CASE);
    DONE = 1;
}
"""
STRING_FUNCTIONS_EXPECTED = {"length": 11, "compare": 11, "left": 1, "middle": 1, "char": ord("z"), "escaped": 7,
                             "same_index": 1, "case_insensitive": 16}


# 25 locals under #nocompact: more than the 20 the engine gives a script with no SVCT entry.
MANY_LOCALS = ("#nocompact\nscript 1 OPEN {\n" + " ".join(f"int v{i} = {i + 100};" for i in range(25))
               + "\nfirst = v0; last = v24; done = 1; }\n")


def formats_program(encrypt: bool = False, compact: bool = True) -> tuple[str, list[tuple[str, int]]]:
    directives = ("#encryptstrings\n" if encrypt else "") + ("" if compact else "#nocompact\n")
    checks = [(f'StrCmp(StrParam({spec}), "{expected.replace(chr(9), chr(92) + "t")}") == 0', 1)
              for spec, expected in FORMATS]
    checks += [(f"StrLen(StrParam({spec}))", len(expected)) for spec, expected in FORMATS]
    lines = [directives + '#include "zcommon.acs"']
    lines += [f"global int {i}:r{i};" for i in range(1, len(checks) + 1)] + ["global int 60:done;"]
    lines += ["script 1 ENTER {", *[f"r{i} = {expr};" for i, (expr, _) in enumerate(checks, 1)], "done = 1; }"]
    return "\n".join(lines) + "\n", checks


@pytest.fixture(scope="module")
def results(run_acs, declare_results):
    functions, indices = declare_results(STRING_FUNCTIONS_EXPECTED)
    many_locals, _ = declare_results(["first", "last"])
    programs = {
        "formats": formats_program()[0],
        "encrypted": formats_program(encrypt=True)[0],
        "nocompact": formats_program(compact=False)[0],
        "functions": functions + STRING_FUNCTIONS,
        "functions_nocompact": "#nocompact\n" + functions + STRING_FUNCTIONS,
        "many_locals": many_locals + MANY_LOCALS,
    }
    return run_acs(programs, tics=3), indices


@pytest.mark.parametrize("name", ["formats", "encrypted", "nocompact"])
def test_strparam_specifiers(results, name):
    _, checks = formats_program()
    run = results[0][name]
    assert run[60] == 1, "the program did not finish"
    got = {expr: run[i] for i, (expr, _) in enumerate(checks, 1)}
    assert got == dict(checks)


@pytest.mark.parametrize("name", ["functions", "functions_nocompact"])
def test_string_functions_and_case_insensitive_names(results, name):
    runs, indices = results
    assert runs[name][60] == 1, "the program did not finish"
    assert runs[name].named(indices) == STRING_FUNCTIONS_EXPECTED


def test_the_object_forms_differ_as_intended():
    from wadgym.acs import compile_source

    plain = compile_source(formats_program()[0])
    encrypted = compile_source(formats_program(encrypt=True)[0])
    wide = compile_source(formats_program(compact=False)[0])
    assert b"STRL" in plain and b"STRE" in encrypted and b"STRL" not in encrypted
    assert b"tab\\tstop" in plain and b"tab\\tstop" not in encrypted
    def tag(lump):
        directory = int.from_bytes(lump[4:8], "little")
        return lump[directory - 4:directory]

    assert tag(plain) == b"ACSe" and len(wide) > len(plain)
    # #nocompact without newer features is Hexen's layout: a directory of (number + 1000 * type, address, argc)
    directory = int.from_bytes(wide[4:8], "little")
    assert b"ACSE" not in wide
    assert wide[directory:directory + 8] == (1).to_bytes(4, "little") + (4001).to_bytes(4, "little")
    with_function = compile_source("#nocompact\nfunction void f(void) {}\nscript 1 OPEN { f(); }")
    assert tag(with_function) == b"ACSE"


def test_nocompact_script_with_more_than_20_locals(results, declare_results):
    from wadgym.acs import compile_source
    from wadgym.acs.dis import parse_behavior

    behavior = parse_behavior(compile_source(declare_results(["first", "last"])[0] + MANY_LOCALS))
    assert behavior.format == "ACSE" and "SVCT" in [chunk.tag for chunk in behavior.chunks]
    assert behavior.scripts[0].var_count == 25
    run = results[0]["many_locals"]
    assert (run[1], run[2], run[60]) == (100, 124, 1)

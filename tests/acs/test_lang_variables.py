"""Every variable scope with every assignment operator, ++/-- in expressions, arrays and strings, in ViZDoom."""

from __future__ import annotations

import pytest

# (operator, start 12, operand 5) -> result
OPERATORS = [("=", 5), ("+=", 17), ("-=", 7), ("*=", 60), ("/=", 2), ("%=", 2), ("&=", 4), ("|=", 13),
             ("^=", 9), ("<<=", 384), (">>=", 0), ("++", 13), ("--", 11)]

# scope -> (declarations, how to name the variable inside the script)
SCOPES = {
    "local": ("", "lv", "int lv;"),
    "map": ("int mv;", "mv", ""),
    "world": ("world int 5:wv;", "wv", ""),
    "global": ("global int 62:gv;", "gv", ""),
    "map_array": ("int ma[4];", "ma[2]", ""),
    "world_array": ("world int 6:wa[];", "wa[3]", ""),
    "global_array": ("global int 63:ga[];", "ga[7]", ""),
    "local_array": ("", "la[1]", "int la[3];"),
}


def operator_program(scopes: list[str], declare_results) -> tuple[str, list[tuple[str, str, int]]]:
    """Assign 12 to each variable, apply each operator with 5, store the result in global r1, r2, ...;
    returns (source, checks)."""
    globals_, locals_, body, checks = [], [], [], []
    for scope in scopes:
        declaration, name, local = SCOPES[scope]
        globals_.append(declaration)
        locals_.append(local)
        for op, expected in OPERATORS:
            checks.append((scope, op, expected))
            result = f"r{len(checks)}"
            statement = f"{name}{op};" if op in ("++", "--") else f"{name} {op} 5;"
            body.append(f"{name} = 12; {statement} {result} = {name};")
    declarations, _ = declare_results(f"r{i}" for i in range(1, len(checks) + 1))
    lines = ['#include "zcommon.acs"', *globals_, declarations, "script 1 OPEN {", *locals_, *body, "done = 1; }"]
    return "\n".join(lines) + "\n", checks


SCALARS = ["local", "map", "world", "global"]
ARRAYS = ["map_array", "world_array", "global_array", "local_array"]

INCDEC_AND_ARRAYS = """
#include "zcommon.acs"
world int 9:far[];
global int 61:garr[];
int values[5] = { 10, 20, 30 };
int grid2[3][4];
int table[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
str names[3] = { "alpha", "be", "gamma" };
int neg[3] = { -1, -2.5, 0x7FFFFFFF };
int sparse[4] = { 7, , 9 };
int m1 = 7, m2 = -3, m3 = 2.5, m4;
str label = "label";
int chars[16];

function int count_calls(void) { static int calls; calls++; return calls; }

script 1 OPEN
{
    int x = 5, i, j;
    int larr[4] = { 4, 3, 2 };
    int lgrid[2][2] = { { 1, 2 }, { 3, 4 } };
    post_inc = x++; after_post_inc = x;
    pre_dec = --x; after_pre_dec = x;
    elem_post = values[1]++; elem_after = values[1];
    elem_pre = ++values[2];
    mixed = x++ + ++x;
    init_a = values[0]; init_b = values[2]; init_zero = values[4];
    for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) grid2[i][j] = i * 10 + j;
    grid = grid2[2][3] * 100 + grid2[1][2];
    grid_init = table[1][0] * 10 + table[0][2];
    local_init = larr[0] * 1000 + larr[1] * 100 + larr[2] * 10 + larr[3];
    local_grid = lgrid[1][0] * 10 + lgrid[0][1];
    strings_len = StrLen(names[0]) * 100 + StrLen(names[1]) * 10 + StrLen(label);
    string_compare = StrCmp(names[2], "gamma") == 0;
    count_calls(); count_calls(); static_count = count_calls();
    map_inits = m1 * 100 + m2 * 10 + m4;
    negative_init = neg[0] + neg[2];
    far[1000] = 77; world_array_far = far[1000] + far[999];
    StrCpy(a:chars, "hey");
    char_array = chars[0] * 10000 + chars[1] * 100 + chars[3];
    strparam_len = StrLen(StrParam(s:"n=", d:12345));
    char_at = GetChar("hello", 1);
    strings_equal = StrCmp(StrParam(s:"ab", d:1), "ab1") == 0;
    skipped_init = sparse[0] * 100 + sparse[1] * 10 + sparse[2];
    i = 1; index_expr = values[i + 1] + table[i][i + 1];
    garr[3] = 5; garr[3] *= 3; global_array_elem = garr[3];
    i = 2; values[i] = i * 7; copy_back = values[2];
    fixed_init = m3;
    done = 1;
}
"""

INCDEC_EXPECTED = {
    "post_inc": 5, "after_post_inc": 6, "pre_dec": 5, "after_pre_dec": 5, "elem_post": 20, "elem_after": 21,
    "elem_pre": 31, "mixed": 12, "init_a": 10, "init_b": 31, "init_zero": 0, "grid": 2312, "grid_init": 43,
    "local_init": 4320, "local_grid": 32, "strings_len": 525, "string_compare": 1, "static_count": 3,
    "map_inits": 670, "negative_init": 2147483646, "world_array_far": 77,
    "char_array": ord("h") * 10000 + ord("e") * 100, "strparam_len": 7, "char_at": ord("e"),
    "strings_equal": 1, "skipped_init": 709, "index_expr": 37, "global_array_elem": 15, "copy_back": 14,
    "fixed_init": 163840,
}


@pytest.fixture(scope="module")
def results(run_acs, declare_results):
    scalars, _ = operator_program(SCALARS, declare_results)
    arrays, _ = operator_program(ARRAYS, declare_results)
    declarations, incdec_indices = declare_results(INCDEC_EXPECTED)
    runs = run_acs({"scalars": scalars, "arrays": arrays, "incdec": declarations + INCDEC_AND_ARRAYS}, tics=3)
    return runs, incdec_indices


@pytest.mark.parametrize("scopes", [SCALARS, ARRAYS], ids=["scalars", "arrays"])
def test_every_operator_on_every_scope(results, declare_results, scopes):
    _, checks = operator_program(scopes, declare_results)
    run = results[0]["scalars" if scopes is SCALARS else "arrays"]
    assert run[60] == 1, "the program did not finish"
    got = {(scope, op): run[i] for i, (scope, op, _) in enumerate(checks, start=1)}
    assert got == {(scope, op): expected for scope, op, expected in checks}


def test_incdec_arrays_and_strings(results):
    runs, indices = results
    run = runs["incdec"]
    assert run[60] == 1, "the program did not finish"
    assert run.named(indices) == INCDEC_EXPECTED

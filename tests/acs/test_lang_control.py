"""Every control-flow form, functions and recursion, run by ViZDoom; results come back through globals."""

from __future__ import annotations

import pytest

CONTROL = """
#include "zcommon.acs"

function int classify(int v)
{
    switch (v)
    {
        case -5: return 1;
        case 0: return 2;
        case 3: case 4: return 3;
        case 1000000: return 4;
        default: return 5;
    }
    return 0;
}

script 1 OPEN
{
    int i, j, k;
    if (1) if_then = 11;
    if (0) if_else = 1; else if_else = 12;
    i = 2;
    if (i == 1) else_if = 1; else if (i == 2) else_if = 13; else else_if = 3;
    i = 0; while (i < 5) { i++; while_sum += i; }
    i = 10; until (i == 0) { i--; until_count++; }
    i = 0; do { i += 3; } while (i < 10); do_while = i;
    i = 100; do i -= 7; until (i < 50); do_until = i;
    do_once = 0; do { do_once++; } while (0);
    for (i = 1; i <= 10; i++) for_sum += i;
    for (int n = 0; n < 4; n += 2) for_decl += n + 1;
    for (i = 0; i < 100; i++) { if (i * i > 50) break; } break_at = i;
    i = 0; while (i < 10) { i++; if (i % 2) continue; continue_sum += i; }
    for (i = 0; i < 10; i++) { if (i < 8) continue; for_continue += i; }
    for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) { if (j == i) continue; nested += 10 * i + j; }
    switch_a = classify(-5) * 1000 + classify(0) * 100 + classify(3) * 10 + classify(4);
    switch_b = classify(1000000);
    switch_default = classify(7);
    i = 1;
    switch (i) { case 1: switch_fall += 1; case 2: switch_fall += 10; break; case 3: switch_fall += 100; }
    switch (300) { case 255: switch_big = 1; break; case 300: switch_big = 2; break; case 256: switch_big = 3; }
    switch (2) { case 2: switch (5) { case 5: switch_nested = 7; break; default: switch_nested = -1; } switch_nested++; break; }
    for (i = 0; i < 5; i++) { switch (i) { case 1: case 3: continue; } loop_switch_continue += i; }
    i = 0; while (i++ < 3) ; for (j = 0; j < 3; j++) {} empty_bodies = i * 10 + j;
    i = 4; ternary = i > 3 ? (i > 10 ? 3 : 2) : 1;
    k = 0; short_circuit = (k != 0) && 1; short_circuit = short_circuit * 10 + ((k == 0) || 0);
    // acc 1.58 patches these break/continue jumps to the later switch or loop instead of the outer loop
    for (i = 0; i < 5; i++) { { if (i == 2) { break; } } switch (i) { case 9: j = 0; } nested_break += 1; }
    for (i = 0; i < 4; i++) { switch (i) { case 1: { continue; } default: for (j = 0; j < 2; j++) { } } nested_continue += 1; }
    ACS_Execute(2, 0); ACS_Execute(3, 0); ACS_Execute(4, 0);
    done = 1;
}

script 2 (void)
{
    restarts++;
    if (restarts < 3) restart;
}

script 3 (void)
{
    terminate;
    after_terminate = 1;
}

script 4 (void)
{
    suspended = 1;
    suspend;
    suspended = 2;
}
"""

CONTROL_EXPECTED = {
    "if_then": 11, "if_else": 12, "else_if": 13, "while_sum": 15, "until_count": 10, "do_while": 12,
    "do_until": 44, "for_sum": 55, "for_decl": 4, "break_at": 8, "continue_sum": 30, "nested": 66,
    "switch_a": 1233, "switch_b": 4, "switch_default": 5, "switch_fall": 11, "switch_big": 2,
    "switch_nested": 8, "empty_bodies": 43, "ternary": 2, "do_once": 1, "for_continue": 17,
    "loop_switch_continue": 6, "restarts": 3, "after_terminate": 0, "suspended": 1, "short_circuit": 1,
    "nested_break": 2, "nested_continue": 3,
}

FUNCTIONS = """
#include "zcommon.acs"
int side_effects;

function int factorial(int n) { if (n <= 1) return 1; return n * factorial(n - 1); }
function int fibonacci(int n) { if (n < 2) return n; return fibonacci(n - 1) + fibonacci(n - 2); }
function void bump(int by) { side_effects += by; }
function int five_args(int a, int b, int c, int d, int e) { return a * 10000 + b * 1000 + c * 100 + d * 10 + e; }
function int with_locals(int x) { int a = x * 2, b; b = a + 1; { int c = b * 2; return c; } }
function str greeting(int formal) { if (formal) return "Good day"; return "Hi"; }
function bool is_even(int n) { return n % 2 == 0; }
function int sum_array(int n) { int values[8]; int i, total; for (i = 0; i < n; i++) values[i] = i * i; for (i = 0; i < n; i++) total += values[i]; return total; }
function int returns_and_counts(void) { side_effects += 100; return 9; }
function int depth(int n) { if (n == 0) return 0; return 1 + depth(n - 1); }
function int euclid(int a, int b) { while (b) { int t = b; b = a % b; a = t; } return a; }

script 1 OPEN
{
    fact = factorial(10);
    fib = fibonacci(15);
    forward = later(4);
    bump(3); bump(4); void_call = side_effects;
    args = five_args(1, 2, 3, 4, 5);
    locals = with_locals(5);
    nested_calls = factorial(factorial(3));
    str_return = StrLen(greeting(1)) * 10 + StrLen(greeting(0));
    bool_return = is_even(4) * 10 + is_even(7);
    local_array = sum_array(8);
    side_effects = 0; returns_and_counts(); returns_and_counts(); discarded = side_effects;
    deep = depth(200);
    gcd = euclid(1071, 462);
    mutual = ping(9);
    if (is_even(factorial(3))) in_condition = 1;
    done = 1;
}

function int later(int v) { return v * v + 1; }
function int ping(int n) { if (n <= 0) return 0; return 1 + pong(n - 1); }
function int pong(int n) { if (n <= 0) return 0; return 10 + ping(n - 1); }
"""

FUNCTIONS_EXPECTED = {
    "fact": 3628800, "fib": 610, "forward": 17, "void_call": 7, "args": 12345, "locals": 22,
    "nested_calls": 720, "str_return": 82, "bool_return": 10, "local_array": 140, "discarded": 200,
    "deep": 200, "gcd": 21, "mutual": 45, "in_condition": 1,
}


PROGRAMS = {"control": (CONTROL, CONTROL_EXPECTED), "functions": (FUNCTIONS, FUNCTIONS_EXPECTED)}


@pytest.fixture(scope="module")
def results(run_acs, declare_results):
    """{program: (Run, result name -> global)}: each program's results are globals named as in its EXPECTED."""
    declared = {key: declare_results(expected) for key, (_, expected) in PROGRAMS.items()}
    runs = run_acs({key: declared[key][0] + source for key, (source, _) in PROGRAMS.items()}, tics=10)
    return {key: (runs[key], declared[key][1]) for key in PROGRAMS}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_results(results, name):
    run, indices = results[name]
    assert run[60] == 1, "the program did not finish"
    assert run.named(indices) == PROGRAMS[name][1]

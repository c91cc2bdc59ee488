"""Integer and fixed-point arithmetic, precedence and literals, computed by ViZDoom from our p-codes.

Each check is an ACS expression and the value C's 32-bit int arithmetic gives it. The same constant
expressions also initialize map variables, so the compiler's folding is checked against the engine too.
"""

from __future__ import annotations

import pytest

INTEGER = [
    ("7 + 5 * 3", 22),
    ("(7 + 5) * 3", 36),
    ("100 - 30 - 20", 50),
    ("100 / 7", 14),
    ("-100 / 7", -14),
    ("100 / -7", -14),
    ("100 % 7", 2),
    ("-100 % 7", -2),
    ("100 % -7", 2),
    ("2 << 4", 32),
    ("-64 >> 2", -16),
    ("1 << 31", -2147483648),
    ("0x7FFFFFFF + 1", -2147483648),
    ("2147483647 * 2", -2),
    ("6 & 3", 2),
    ("6 | 3", 7),
    ("6 ^ 3", 5),
    ("~5", -6),
    ("!0", 1),
    ("!7", 0),
    ("3 && 0", 0),
    ("3 && 4", 1),
    ("0 || 0", 0),
    ("0 || 5", 1),
    ("3 < 4", 1),
    ("4 <= 4", 1),
    ("5 > 6", 0),
    ("6 >= 7", 0),
    ("2 == 2", 1),
    ("2 != 2", 0),
    ("1 + 2 << 3", 24),
    ("1 << 2 + 1", 8),
    ("5 & 3 == 3", 1),
    ("1 | 2 ^ 3 & 4", 3),
    ("2 + 3 > 4 && 1", 1),
    ("8 - 2 - 1 == 5", 1),
    ("1 ? 10 : 20", 10),
    ("0 ? 10 : 20", 20),
    ("0 ? 1 : 0 ? 2 : 3", 3),
    ("(1 ? 1 : 2) + 3", 4),  # acc 1.58 merges the 2 and 3 pushes across the jump target here
    ("(0 ? 1 : 2) + 3", 5),
    ("-5 + 3", -2),
    ("-(3 - 10)", 7),
    ("- -4", 4),
    ("255 + 256", 511),
    ("-1", -1),
    ("0x1F", 31),
    ("0XfF", 255),
    ("'A'", 65),
    ("'\\n'", 10),
    ("'\t'", 32),  # a control character between the quotes reads as a space, as in acc
    ("8_777", 511),
    ("2_1011", 11),
    ("36_z", 35),
    ("4000000000", -294967296),
]

FIXED = [
    ("1.0", 65536),
    ("1.5", 98304),
    ("0.1", 6553),
    ("-2.25", -147456),
    ("0.0001", 6),
    ("32767.99999", 2147483647),
    ("1.5 * 2", 196608),
    ("3.0 / 2", 98304),
    ("1.5 + 2.25", 245760),
    ("FixedMul(1.5, 2.0)", 196608),
    ("FixedMul(-1.5, 2.5)", -245760),
    ("FixedMul(0.5, 0.5)", 16384),
    ("FixedDiv(1.0, 4.0)", 16384),
    ("FixedDiv(-3.0, 2.0)", -98304),
    ("FixedMul(100.0, 0.01)", 65500),
    ("7.5 >> 16", 7),
    ("(2.75 & 0xFFFF) * 100 >> 16", 75),
]

CONSTANT = [(expr, value) for expr, value in INTEGER + FIXED if "Fixed" not in expr]


def constant_program() -> str:
    """The constant checks as map-variable initializers, folded by the compiler, copied out by a script."""
    inits = "\n".join(f"int c{i} = {expr};" for i, (expr, _) in enumerate(CONSTANT, start=1))
    lines = ['#include "zcommon.acs"', inits]
    chunks = [CONSTANT[i:i + 59] for i in range(0, len(CONSTANT), 59)]
    assert len(chunks) == 2
    lines += [f"global int {i}:r{i};" for i in range(1, 60)] + ["global int 60:done;"]
    lines += ["script 1 OPEN {", *[f"r{i} = c{i};" for i in range(1, len(chunks[0]) + 1)], "done = 1; }"]
    lines += ["script 2 (void) {",
              *[f"r{i} = c{59 + i};" for i in range(1, len(chunks[1]) + 1)], "done = 1; }"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module", name="results")
def results_fixture(run_acs, expression_program_source):
    programs = {
        "integer": expression_program_source(INTEGER),
        "fixed": expression_program_source(FIXED),
        "constants_1": constant_program(),
        "constants_2": constant_program().replace("script 1 OPEN", "script 1 (void)").replace(
            "script 2 (void)", "script 2 OPEN"),
    }
    return run_acs(programs, tics=3)


@pytest.mark.parametrize("name, checks", [("integer", INTEGER), ("fixed", FIXED)])
def test_runtime_arithmetic(results, name, checks):
    run = results[name]
    assert run[60] == 1, "the program did not finish"
    got = {expr: run[i] for i, (expr, _) in enumerate(checks, start=1)}
    assert got == dict(checks)


def test_constant_folding_matches_the_engine(results):
    first, second = results["constants_1"], results["constants_2"]
    assert first[60] == 1 and second[60] == 1
    got = [first[i] for i in range(1, 60)] + [second[i] for i in range(1, len(CONSTANT) - 58)]
    assert dict(zip((e for e, _ in CONSTANT), got)) == dict(CONSTANT)

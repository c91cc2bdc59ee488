"""The built-in and p-code tables, checked through what the compiler makes of them: every line special, CALLFUNC
function and internal function compiles to the engine's number with the arguments it reads, every name the
engine lacks is refused, and the operand sizes the compiler writes are the ones the disassembler reads."""

import pytest

from wadgym.acs import AcsError, builtins, compile_source
from wadgym.acs.dis import parse_behavior
from wadgym.acs.pcodes import PCD, PCODES

Z = '#include "zcommon.acs"\n'


def code(body: str) -> list[tuple[str, list]]:
    """(name, operands) of each instruction of ``script 1 OPEN { body }`` up to its closing TERMINATE."""
    lump = compile_source(Z + "script 1 OPEN {\n" + body + "\n}\n")
    instructions = [(i.name, i.operands) for i in parse_behavior(lump).instructions if not i.padding]
    assert instructions[-1] == ("TERMINATE", [])
    return instructions[:-1]


def call(name: str, count: int) -> str:
    return f"{name}({', '.join(str(n) for n in range(1, count + 1))});"


def test_pcode_numbers_match_the_engine_enum():
    # p_acs.h's PCD enum: a few anchors along it, and acc's name for slot 118
    assert len(PCODES) == 381 and all(p.number == i for i, p in enumerate(PCODES))
    assert (PCD.PUSHNUMBER, PCD.LSPEC5, PCD.GOTO, PCD.PUSHBYTE, PCD.CALLFUNC, PCD.STRCPYTOSCRIPTCHRANGE) == (
        3, 8, 52, 167, 351, 380)
    assert PCD.ISNETWORKGAME == PCD.PLAYERONTEAM == 118


def test_every_special_compiles_to_its_number_with_the_arguments_given():
    specials = list(builtins.SPECIALS.values())
    counts = [(entry, count) for entry in specials for count in sorted({entry.min_args, entry.max_args})]
    compiled = [(name, operands) for name, operands in code("\n".join(call(e.name, n) for e, n in counts))
                if name.startswith("LSPEC")]
    # acc calls a special with no arguments as LSPEC1DIRECTB number, 0
    assert compiled == [("LSPEC1DIRECTB", [e.number, 0]) if n == 0 else (f"LSPEC{n}", [e.number])
                        for e, n in counts]
    values = code("int x;\n" + "\n".join(f"x = {call(e.name, e.max_args)}" for e in specials))
    assert [operands for name, operands in values if name == "LSPEC5RESULT"] == [[e.number] for e in specials]


def test_every_callfunc_compiles_to_its_index_and_count():
    entries = list(builtins.CALLFUNCS.values())
    counts = [(entry, count) for entry in entries for count in sorted({entry.min_args, entry.max_args})]
    compiled = [operands for name, operands in code("\n".join(call(e.name, n) for e, n in counts))
                if name == "CALLFUNC"]
    # SpawnForced (36) always gets 6: the engine reads its tid and angle whether passed or not
    assert compiled == [[6 if e.index == 36 else n, e.index] for e, n in counts]


def test_every_internal_compiles_to_its_pcode():
    entries = list(builtins.INTERNALS.values())
    compiled = [name for name, _ in code("\n".join(call(e.name, e.arg_count) for e in entries))
                if not name.startswith("PUSH")]
    expected = []
    for entry in entries:
        expected += [entry.stack_pcode.name] + (["DROP"] if entry.returns else [])
    assert compiled == expected


@pytest.mark.parametrize("body, expected", [
    ('Spawn("Clip", 1, 2, 3);', [("PUSHBYTES", [[0, 1, 2, 3, 0, 0]]), ("SPAWN", []), ("DROP", [])]),
    ('Spawn(const: "Clip", 1, 2, 3);', [("SPAWNDIRECT", [0, 1, 2, 3, 0, 0]), ("DROP", [])]),
    ("Delay(const: 5);", [("DELAYDIRECTB", [5])]),
    ("Delay(const: 300);", [("DELAYDIRECT", [300])]),
    ("SETACTORPROPERTY(0, aprop_HEALTH, 5);", [("PUSH3BYTES", [0, 0, 5]), ("SETACTORPROPERTY", [])]),
    ("int x = HUDMSG_LOG + ATTN_NORM;", [("PUSHNUMBER", [-2**31]), ("PUSHNUMBER", [65536]), ("ADD", []),
                                         ("ASSIGNSCRIPTVAR", [0])]),
])
def test_optional_arguments_direct_forms_and_names_in_any_case(body, expected):
    assert code(body) == expected


def test_every_name_the_engine_lacks_is_refused():
    for entry in builtins.UNSUPPORTED.values():
        body = f"int x = {entry.name};" if entry.category == "constant" else f"{entry.name}();"
        with pytest.raises(AcsError) as info:
            code(body)
        assert info.value.message == entry.message and "ViZDoom" in entry.message, entry.name


def test_arguments_acc_allows_beyond_the_engine_are_refused_with_the_reason():
    for entry in [*builtins.SPECIALS.values(), *builtins.CALLFUNCS.values()]:
        if entry.acc_args is None or entry.acc_args[1] <= entry.max_args:
            continue
        with pytest.raises(AcsError) as info:
            code(call(entry.name, entry.max_args + 1))
        assert info.value.message.endswith(f"(acc would accept up to {entry.acc_args[1]}, but ViZDoom's "
                                           f"engine reads only {entry.max_args})"), entry.name


@pytest.mark.parametrize("directives, sizes", [
    ("", {"CALLFUNC": 5, "LSPEC3DIRECTB": 5, "PUSHNUMBER": 5, "ASSIGNSCRIPTARRAY": 3, "LSPEC1": 2}),
    ("#nocompact\n", {"CALLFUNC": 12, "LSPEC3DIRECT": 20, "PUSHNUMBER": 8, "ASSIGNSCRIPTARRAY": 8,
                      "LSPEC1": 8}),
])
def test_operand_sizes_written_are_the_ones_read(directives, sizes):
    source = (directives + Z + "script 1 OPEN { int a[2]; a[1] = 70000; Sqrt(4); Thing_Remove(1);"
              " Door_Open(const: 1, 2, 3); }")
    instructions = parse_behavior(compile_source(source)).instructions
    assert {i.name: i.size for i in instructions if i.name in sizes} == sizes
    assert all(a.address + a.size == b.address for a, b in zip(instructions, instructions[1:]))

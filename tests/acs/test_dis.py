"""The disassembler on every BEHAVIOR lump shipped in vizdoom's scenario WADs, on hand-built lumps and on junk."""

import glob
import os
import struct

import pytest
import vizdoom
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wadgym.acs.dis import behavior_lumps, disassemble, disassemble_path, parse_behavior
from wadgym.acs.pcodes import PCD

WADS = sorted(glob.glob(os.path.join(vizdoom.scenarios_path, "*.wad")))
SHIPPED = [(os.path.basename(wad), map_name, lump)
           for wad in WADS for map_name, lump in behavior_lumps(wad)]


def test_the_wheel_ships_behavior_lumps():
    assert len(WADS) >= 15
    assert len({(wad, map_name) for wad, map_name, _ in SHIPPED}) >= 20


@pytest.mark.parametrize("wad, map_name, lump", SHIPPED,
                         ids=[f"{wad}:{map_name}:{i}" for i, (wad, map_name, _) in enumerate(SHIPPED)])
def test_shipped_lump_decodes_completely(wad, map_name, lump):
    behavior = parse_behavior(lump)
    chunk_sizes = {chunk.tag: len(chunk.payload) for chunk in behavior.chunks}
    assert len(behavior.scripts) == chunk_sizes.get("SPTR", 0) // 8
    assert len(behavior.functions) == chunk_sizes.get("FUNC", 0) // 8
    assert len(behavior.dummy_scripts) == sum(0 <= s.number <= 255 for s in behavior.scripts)
    decoded = [(i.address, i.size) for i in behavior.instructions]
    if behavior.scripts:
        # Bodies tile the code area: every byte belongs to exactly one decoded instruction.
        assert decoded[0][0] == behavior.code_start
        for (address, size), (next_address, _) in zip(decoded, decoded[1:]):
            assert address + size == next_address
        assert decoded[-1][0] + decoded[-1][1] == behavior.code_end
    listing = disassemble(lump)
    assert "not an instruction" not in listing
    for script in behavior.scripts:
        assert f"script {script.label} " in listing
    for text in behavior.strings:
        assert f'"{text}"' in listing


def _shipped(wad_name, map_name="MAP01"):
    return next(lump for wad, name, lump in SHIPPED if wad == wad_name and name == map_name)


def test_basic_wad_hand_checked():
    behavior = parse_behavior(_shipped("basic.wad"))
    assert behavior.format == "ACSe" and behavior.compact and behavior.wrapped
    assert [(s.number, s.type) for s in behavior.scripts] == [(1, 1), (2, 4), (3, 0), (4, 0)]
    assert [f.name for f in behavior.functions] == ["spawntarget"]
    assert behavior.strings == ["Fist", "Clip", "Cacodemon"]
    assert behavior.map_var_inits == {0: 10}
    listing = disassemble(_shipped("basic.wad"))
    # script 4: reward = reward + 106.0; Exit_Normal(0);
    assert "PUSHNUMBER 6946816    ; fixed 106.0" in listing
    assert "LSPEC1 243    ; Exit_Normal" in listing
    assert "LSPEC5 80    ; ACS_Execute" in listing
    assert "CALLDISCARD 0    ; spawntarget" in listing
    by_name = [i.name for i in behavior.instructions]
    assert by_name.count("SPAWN") == 1 and "IFNOTGOTO" in by_name and "RETURNVOID" in by_name


def test_jumps_become_labels():
    listing = disassemble(_shipped("basic.wad"))
    assert "IFNOTGOTO L" in listing and "GOTO L1" in listing
    assert "\nL1:\n" in listing


def test_wad_maps_are_listed_by_name():
    path = os.path.join(vizdoom.scenarios_path, "cig_with_unknown.wad")
    assert [name for name, _ in behavior_lumps(path)] == ["MAP01", "MAP02", "MAP03", "MAP04", "MAP05"]
    listing = disassemble_path(path)
    assert "==== MAP05 BEHAVIOR ====" in listing
    assert "the engine ignores BEHAVIOR lumps under 32 bytes" in listing


def test_lump_file(tmp_path):
    path = tmp_path / "script.o"
    path.write_bytes(_shipped("basic.wad"))
    assert disassemble_path(path) == disassemble(_shipped("basic.wad"))


def _tag_first_lump(tag: bytes, code: bytes, sptr: bytes, strings=()) -> bytes:
    """A minimal tag-first lump: header, code, then the chunks (12-byte SPTR entries)."""
    pool = b"".join(s.encode() + b"\0" for s in strings)
    offsets, at = [], 12 + 4 * len(strings)
    for s in strings:
        offsets.append(at)
        at += len(s) + 1
    strl = struct.pack(f"<III{len(strings)}I", 0, len(strings), 0, *offsets) + pool
    chunks = b"SPTR" + struct.pack("<I", len(sptr)) + sptr + b"STRL" + struct.pack("<I", len(strl)) + strl
    return tag + struct.pack("<I", 8 + len(code)) + code + chunks


def test_non_compact_tag_first_lump():
    def word(n):
        return struct.pack("<i", n)

    code = (word(PCD.PUSHNUMBER) + word(7) + word(PCD.ASSIGNGLOBALVAR) + word(3) + word(PCD.CALLFUNC)
            + word(1) + word(48) + word(PCD.GOTO) + word(8) + word(PCD.TERMINATE))
    sptr = struct.pack("<hHII", 5, 4, 8, 0)
    behavior = parse_behavior(_tag_first_lump(b"ACSE", code, sptr, ["hello"]))
    assert behavior.format == "ACSE" and not behavior.compact and not behavior.wrapped
    assert [(i.name, i.operands) for i in behavior.instructions] == [
        ("PUSHNUMBER", [7]), ("ASSIGNGLOBALVAR", [3]), ("CALLFUNC", [1, 48]), ("GOTO", [8]), ("TERMINATE", [])]
    listing = disassemble(_tag_first_lump(b"ACSE", code, sptr, ["hello"]))
    assert "script 5 ENTER:\nL1:\n" in listing and "CALLFUNC 1, 48    ; Sqrt" in listing
    assert '"hello"' in listing


def test_compact_case_table_and_two_byte_opcodes():
    # compact opcodes from 240 on take two bytes: 240 + (n - 240) // 256, (n - 240) % 256
    assert (PCD.CASEGOTOSORTED, PCD.SETACTORPROPERTY) == (256, 245)
    code = bytearray(bytes((PCD.PUSHBYTE, 2)) + b"\xf0\x10")
    code += bytes(-(8 + len(code)) % 4)   # the table starts at a 4-byte boundary of the lump
    table_at = 8 + len(code)
    done = table_at + 4 + 16
    code += struct.pack("<IiIiI", 2, 1, done, 2, done)
    code += b"\xf0\x05" + bytes((PCD.TERMINATE,))
    lump = _tag_first_lump(b"ACSe", bytes(code), struct.pack("<hHII", 1, 1, 8, 0))
    names = [(i.name, i.size) for i in parse_behavior(lump).instructions]
    assert names[:2] == [("PUSHBYTE", 2), ("CASEGOTOSORTED", done - 10)]   # opcode at 10, table to done
    assert names[2:] == [("SETACTORPROPERTY", 2), ("TERMINATE", 1)]
    assert "CASEGOTOSORTED 1 -> L1, 2 -> L1" in disassemble(lump)


@pytest.mark.parametrize("data, message", [
    (b"PWAD" + bytes(40), "not a BEHAVIOR lump"),
    (b"ACSe" + struct.pack("<I", 9999) + bytes(40), "directory offset 9999"),
    (b"ACS", "not a BEHAVIOR lump"),
    (b"", "not a BEHAVIOR lump"),
])
def test_bad_lumps_are_refused_clearly(data, message):
    with pytest.raises(ValueError, match=message):
        disassemble(data)


def test_every_truncation_raises_value_error_or_decodes():
    lump = _shipped("defend_the_line.wad")
    for size in range(len(lump)):
        try:
            disassemble(lump[:size])
        except ValueError:
            pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([lump for _, _, lump in SHIPPED]),
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=6))
def test_corrupted_lumps_raise_only_value_error(lump, edits):
    data = bytearray(lump)
    for position, value in edits:
        data[position % len(data)] = value
    try:
        disassemble(bytes(data))
    except ValueError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_value_error(data):
    try:
        disassemble(b"ACSe" + data)
    except ValueError:
        pass

"""wadgym.files: the one WAD directory reader every package uses (wads, acs's disassembler, the tests)."""

from __future__ import annotations

import pytest

from wadgym.files import read_wad, wad_directory
from wadgym.wads import iwad
from wadgym.wads.wad import pack_wad


def test_a_wad_reads_back_as_packed(tmp_path):
    lumps = [("MAP01", b""), ("TEXTMAP", b"namespace = \"zdoom\";"), ("lower", b"\x00\x01")]
    data = pack_wad(lumps)
    (tmp_path / "a.wad").write_bytes(data)
    assert read_wad(data) == read_wad(tmp_path / "a.wad") == [("MAP01", b""), ("TEXTMAP", lumps[1][1]),
                                                             ("LOWER", b"\x00\x01")]
    names = [name for name, _, _ in wad_directory(open(iwad.iwad_path(), "rb").read())]
    assert {"TEXTURE1", "F_START", "S_START"} <= set(names)  # what wads.iwad reads the Freedoom names from


@pytest.mark.parametrize("cut, message", [
    (lambda data: b"ZWAD" + data[4:], "not a WAD: it starts with b'ZWAD'"),
    (lambda data: data[:-8], "WAD directory of 2 entries"),
    (lambda data: data[:12] + data[12:14], "WAD directory of 2 entries"),
])
def test_a_malformed_wad_is_a_value_error_saying_what(cut, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        read_wad(cut(pack_wad([("ONE", b"abcd"), ("TWO", b"efgh")])))


def test_a_lump_past_the_end_is_named():
    data = bytearray(pack_wad([("ONE", b"abcd")]))
    data[16 + 4:16 + 8] = (1000).to_bytes(4, "little")  # the size in the directory entry after the lump
    with pytest.raises(ValueError, match=r"lump 0 \(ONE\) at 12, 1000 bytes, runs past the end"):
        read_wad(bytes(data))

"""Object writer: appends the chunks (SPTR, FUNC, STRL, MINI, ARAY, and a library's MEXP, an importer's MIMP,
AIMP, LOAD...) after the code, as acc 1.58 lays them out."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .format import DEFAULT_SCRIPT_VARIABLES
from .pcodes import PCD


@dataclass
class ScriptInfo:
    number: int
    type: int
    arg_count: int
    flags: int
    address: int
    var_count: int
    array_sizes: list[int] = field(default_factory=list)


@dataclass
class FunctionInfo:
    arg_count: int
    local_count: int
    returns: bool
    address: int
    name: str
    array_sizes: list[int] = field(default_factory=list)


@dataclass
class MapVariable:
    """One map variable of the object: its name (None for a ``static`` local, which no other object sees),
    whether another library defines it (``imported``), its initial value (scalars), its element count and
    initial elements (arrays; ``size`` 0 for a scalar), and whether a string went into its initial value (a
    library records those in MSTR/ASTR, so the engine can tag them with the library)."""

    name: str | None
    imported: bool = False
    value: int = 0
    size: int = 0
    elements: dict[int, int] | None = None
    has_string: bool = False


@dataclass
class Module:
    """Everything the writer needs: the emitter holding the code, and the tables the checker built.

    An imported function is a FunctionInfo with address 0 (the engine finds it by name in the libraries that
    ``imports`` names); ``library`` marks the object as a library (ALIB; its map variables' names in MEXP).
    """

    code: object  # codegen.Emitter: .buf (bytearray starting with the 8-byte header) and .compact
    scripts: list[ScriptInfo]
    functions: list[FunctionInfo]
    strings: list[str]
    script_names: list[str]
    map_variables: list[MapVariable]
    map_values_given: bool  # some scalar map variable had an initializer (acc then considers MINI)
    imports: list[str] = field(default_factory=list)
    library: bool = False
    wadauthor: bool = True
    encrypt_strings: bool = False


def encode_string(text: str) -> bytes:
    """Bytes of a string literal: UTF-8, with undecodable source bytes restored as they were."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


class _Writer:
    def __init__(self, buf: bytearray):
        self.buf = buf

    def u32(self, value: int) -> None:
        self.buf += struct.pack("<I", value & 0xFFFFFFFF)

    def u16(self, value: int) -> None:
        self.buf += struct.pack("<H", value & 0xFFFF)

    def raw(self, data: bytes) -> None:
        self.buf += data

    def align4(self) -> None:
        self.buf += bytes(-len(self.buf) % 4)

    def begin_chunk(self, tag: bytes) -> int:
        self.buf += tag + b"\0\0\0\0"
        return len(self.buf)

    def end_chunk(self, start: int) -> None:
        struct.pack_into("<I", self.buf, start - 4, len(self.buf) - start)


def write_object(module: Module) -> bytes:
    """The finished BEHAVIOR lump."""
    code = module.code
    buf = bytearray(code.buf)
    buf += bytes(-len(buf) % 4)
    writer = _Writer(buf)
    if code.compact or _needs_new_format(module):
        _close_new(writer, module, code.compact)
    else:
        _close_old(writer, module)
    return bytes(buf)


def _needs_new_format(module: Module) -> bool:
    return bool(hexen_incompatibilities(module))


def hexen_incompatibilities(module: Module) -> list[str]:
    """What keeps ``module`` out of Hexen's layout (acc's -h refuses these; an empty list: none)."""
    reasons = {
        "functions": module.functions,
        "named scripts": module.script_names,
        "map variable initializers": module.map_values_given,
        "#import": module.imports,
        "map arrays": any(var.size for var in module.map_variables),
        "#encryptstrings": module.encrypt_strings,
        "NET or CLIENTSIDE scripts, or script numbers outside 0..999":
            any(s.flags or not 0 <= s.number < 1000 for s in module.scripts),
        # Hexen's layout has no SVCT, so the engine would give the script 20 locals only.
        f"scripts with more than {DEFAULT_SCRIPT_VARIABLES} variables":
            any(s.var_count > DEFAULT_SCRIPT_VARIABLES for s in module.scripts),
        "local arrays": any(s.array_sizes for s in module.scripts) or any(f.array_sizes for f in module.functions),
    }
    return [what for what, present in reasons.items() if present]


def _close_old(writer: _Writer, module: Module) -> None:
    """Hexen's layout (only for #nocompact code that uses no newer feature)."""
    addresses = []
    for text in module.strings:
        addresses.append(len(writer.buf))
        writer.raw(encode_string(text) + b"\0")
    writer.align4()
    struct.pack_into("<I", writer.buf, 4, len(writer.buf))
    writer.u32(len(module.scripts))
    for script in module.scripts:
        writer.u32(script.number + script.type * 1000)
        writer.u32(script.address)
        writer.u32(script.arg_count)
    writer.u32(len(module.strings))
    for address in addresses:
        writer.u32(address)


def _close_new(writer: _Writer, module: Module, compact: bool) -> None:
    scripts = module.scripts
    dummies = [s for s in scripts if 0 <= s.number <= 255]
    dummy_address = 0
    if module.wadauthor:
        writer.align4()
        dummy_address = len(writer.buf)
        body = bytes((PCD.TERMINATE, PCD.NOP, PCD.NOP, PCD.NOP)) if compact else struct.pack("<I", PCD.TERMINATE)
        writer.raw(body * len(dummies))
    chunk_start = len(writer.buf)
    _script_chunks(writer, scripts)
    _name_list(writer, b"SNAM", [encode_string(name) for name in module.script_names])
    _function_chunks(writer, module.functions)
    if module.strings:
        _string_table(writer, module.strings, module.encrypt_strings)
    if module.map_values_given:
        _map_initializers(writer, [var.value for var in module.map_variables])
    if module.library:
        _library_chunks(writer, module.map_variables)
    _import_chunks(writer, module)
    if module.library:
        writer.raw(b"ALIB\0\0\0\0")  # empty: its presence marks a library
    if module.imports:
        names = b"".join(encode_string(name) + b"\0" for name in module.imports)
        start = writer.begin_chunk(b"LOAD")
        writer.raw(names)
        writer.end_chunk(start)
    writer.u32(chunk_start)
    writer.raw(b"ACSe" if compact else b"ACSE")
    struct.pack_into("<I", writer.buf, 4, len(writer.buf))
    if module.wadauthor and not module.library:
        # A Hexen-style directory of dummy scripts keeps old map editors from rejecting the lump (acc leaves
        # it empty in a library, whose scripts no map editor looks for, but still writes the dummies).
        step = 4
        writer.u32(len(dummies))
        for i, script in enumerate(dummies):
            writer.u32(script.number)
            writer.u32(dummy_address + i * step)
            writer.u32(script.arg_count)
    else:
        writer.u32(0)
    writer.u32(0)


def _record_chunk(writer: _Writer, tag: bytes, fmt: str, rows: list[tuple]) -> None:
    """A chunk of fixed-size records packed with ``fmt``; nothing at all when there are no rows."""
    if not rows:
        return
    pack = struct.Struct(fmt).pack
    start = writer.begin_chunk(tag)
    writer.raw(b"".join(pack(*row) for row in rows))
    writer.end_chunk(start)


def _script_chunks(writer: _Writer, scripts: list[ScriptInfo]) -> None:
    # Named scripts have negative numbers, hence the signed 16-bit number in each record.
    _record_chunk(writer, b"SPTR", "<hBBI", [(s.number, s.type, s.arg_count, s.address) for s in scripts])
    _record_chunk(writer, b"SVCT", "<hH", [(s.number, s.var_count) for s in scripts
                                           if s.var_count > DEFAULT_SCRIPT_VARIABLES])
    _record_chunk(writer, b"SFLG", "<hH", [(s.number, s.flags) for s in scripts if s.flags])
    for script in scripts:
        if script.array_sizes:
            _local_arrays(writer, b"SARY", script.number, script.array_sizes)


def _local_arrays(writer: _Writer, tag: bytes, owner: int, sizes: list[int]) -> None:
    start = writer.begin_chunk(tag)
    writer.u16(owner)
    for size in sizes:
        writer.u32(size)
    writer.end_chunk(start)


def _function_chunks(writer: _Writer, functions: list[FunctionInfo]) -> None:
    # argument count, local count, returns a value, import number (0: defined here), address
    _record_chunk(writer, b"FUNC", "<BBBBI", [(fn.arg_count, fn.local_count, fn.returns, 0, fn.address)
                                              for fn in functions])
    if functions:
        _name_list(writer, b"FNAM", [encode_string(fn.name) for fn in functions])
    for number, fn in enumerate(functions):
        if fn.array_sizes:
            _local_arrays(writer, b"FARY", number, fn.array_sizes)


def _name_list(writer: _Writer, tag: bytes, names: list[bytes | None]) -> None:
    """SNAM/FNAM/MEXP: count, offsets from the payload's start, then the NUL-terminated names (a None name
    has offset 0 and no text)."""
    if not names:
        return
    start = writer.begin_chunk(tag)
    writer.u32(len(names))
    _dump_strings(writer, start, names, encrypt=False)
    writer.end_chunk(start)


def _string_table(writer: _Writer, strings: list[str], encrypt: bool) -> None:
    start = writer.begin_chunk(b"STRE" if encrypt else b"STRL")
    writer.u32(0)
    writer.u32(len(strings))
    writer.u32(0)
    _dump_strings(writer, start, [encode_string(text) for text in strings], encrypt)
    writer.end_chunk(start)


def _dump_strings(writer: _Writer, start: int, strings: list[bytes | None], encrypt: bool) -> None:
    offset = len(writer.buf) - start + 4 * len(strings)
    offsets = []
    for data in strings:
        offsets.append(offset if data is not None else 0)
        if data is not None:
            offset += len(data) + 1
    for value in offsets:
        writer.u32(value)
    for value, data in zip(offsets, strings):
        if data is None:
            continue
        data += b"\0"
        if encrypt:
            key = (value * 157135) & 0xFF
            data = bytes(b ^ ((key + (i >> 1)) & 0xFF) for i, b in enumerate(data))
        writer.raw(data)
    writer.align4()


def _map_initializers(writer: _Writer, values: list[int]) -> None:
    nonzero = [i for i, value in enumerate(values) if value]
    if not nonzero:
        return
    first, last = nonzero[0], nonzero[-1]
    start = writer.begin_chunk(b"MINI")
    writer.u32(first)
    for value in values[first:last + 1]:
        writer.u32(value)
    writer.end_chunk(start)


def _library_chunks(writer: _Writer, variables: list[MapVariable]) -> None:
    """A library's MSTR and ASTR (map variables and arrays initialized with strings) and MEXP (the names of
    its map variables, by number: what importers look up)."""
    _record_chunk(writer, b"MSTR", "<I", [(i,) for i, var in enumerate(variables) if var.has_string and not var.size])
    _record_chunk(writer, b"ASTR", "<I", [(i,) for i, var in enumerate(variables) if var.has_string and var.size])
    if variables:
        _name_list(writer, b"MEXP", [None if var.imported or var.name is None else encode_string(var.name)
                                     for var in variables])


def _import_chunks(writer: _Writer, module: Module) -> None:
    """MIMP (imported map variables), ARAY and AINI (this object's arrays), AIMP (imported arrays)."""
    variables = module.map_variables
    scalars = b"".join(struct.pack("<I", i) + encode_string(var.name) + b"\0"
                       for i, var in enumerate(variables) if var.imported and not var.size)
    if scalars:
        start = writer.begin_chunk(b"MIMP")
        writer.raw(scalars)
        writer.end_chunk(start)
    _record_chunk(writer, b"ARAY", "<II", [(i, var.size) for i, var in enumerate(variables)
                                           if var.size and not var.imported])
    for index, var in enumerate(variables):
        if var.elements and any(var.elements.values()):
            start = writer.begin_chunk(b"AINI")
            writer.u32(index)
            elements = bytearray(4 * var.size)
            for offset, value in var.elements.items():
                struct.pack_into("<I", elements, 4 * offset, value & 0xFFFFFFFF)
            writer.raw(bytes(elements))
            writer.end_chunk(start)
    arrays = [(i, var) for i, var in enumerate(variables) if var.imported and var.size]
    if arrays:
        start = writer.begin_chunk(b"AIMP")
        writer.u32(len(arrays))
        for index, var in arrays:
            writer.u32(index)
            writer.u32(var.size)
            writer.raw(encode_string(var.name) + b"\0")
        writer.end_chunk(start)

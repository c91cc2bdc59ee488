"""Disassembler for compiled ACS (BEHAVIOR lumps): header, chunks, scripts, functions, strings and p-codes.

``disassemble(data)`` returns a listing of one lump; ``parse_behavior(data)`` the structured form it is made
from; ``behavior_lumps(wad)`` the BEHAVIOR lumps of a WAD by map (``map_lumps`` any lump); ``disassemble_path(path)``
a lump file or every map of a WAD. Malformed input raises ValueError naming what is wrong and where.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

from wadgym.files import read_wad

from . import builtins
from .format import ACC_ONLY_SCRIPT_TYPES, DEFAULT_SCRIPT_VARIABLES, SCRIPT_FLAGS, SCRIPT_TYPES
from .pcodes import ACC_ONLY_OPERANDS, ACC_ONLY_PCODES, NO_FALLTHROUGH, PCD, PCODE_COUNT, PCODES, Arg, decode_opcode

# Listing names: the words that declare a script's type and flags, as ACS source writes them.
_TYPE_NAMES = {number: word if word == "closed" else word.upper() for word, number in SCRIPT_TYPES.items()}
_TYPE_NAMES.update({number: f"{word.upper()}*" for word, number in ACC_ONLY_SCRIPT_TYPES.items()})  # * not in ViZDoom
_FLAG_NAMES = {bit: word.upper() for word, bit in SCRIPT_FLAGS.items()}
_MIN_LUMP = 32            # the engine ignores shorter BEHAVIOR lumps

_ACC_ONLY_NAMES = {number: name for name, number in ACC_ONLY_PCODES.items()}
_SPECIAL_NAMES = {entry.number: entry.name for entry in builtins.SPECIALS.values()}
_SPECIAL_NAMES.update({entry.number: entry.name for entry in builtins.UNSUPPORTED.values()
                       if entry.category == "special"})
_CALLFUNC_NAMES = {entry.index: entry.name for entry in builtins.CALLFUNCS.values()}
_CALLFUNC_NAMES.update({entry.number: entry.name for entry in builtins.UNSUPPORTED.values()
                        if entry.category == "callfunc"})


class _Reader:
    """Bounds-checked little-endian reads from one buffer; ``what`` names the buffer in errors."""

    def __init__(self, data: bytes, what: str = "lump"):
        self.data = data
        self.what = what

    def need(self, offset: int, size: int, item: str) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise ValueError(f"{item} at offset {offset} ({size} bytes) runs past the end of the "
                             f"{self.what} ({len(self.data)} bytes)")

    def unpack(self, fmt: str, offset: int, item: str) -> tuple:
        self.need(offset, struct.calcsize(fmt), item)
        return struct.unpack_from(fmt, self.data, offset)

    def u32(self, offset: int, item: str) -> int:
        return self.unpack("<I", offset, item)[0]

    def cstring(self, offset: int, item: str) -> str:
        self.need(offset, 1, item)
        end = self.data.find(b"\0", offset)
        if end < 0:
            raise ValueError(f"{item} at offset {offset} has no terminating NUL")
        return self.data[offset:end].decode("latin-1")


@dataclass
class Chunk:
    tag: str
    offset: int          # of the chunk header in the lump
    payload: bytes


@dataclass
class Script:
    number: int
    type: int
    argc: int
    address: int
    name: str | None = None
    flags: int = 0
    var_count: int = DEFAULT_SCRIPT_VARIABLES
    arrays: list[int] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f'"{self.name}"' if self.name is not None else str(self.number)


@dataclass
class Function:
    index: int
    argc: int
    local_count: int
    returns: bool
    import_number: int
    address: int
    name: str | None = None
    arrays: list[int] = field(default_factory=list)


@dataclass
class Instruction:
    address: int
    size: int
    pcode: int
    operands: list          # ints; a list of ints for BYTES; (value, target) pairs for CASE_TABLE
    padding: bool = False   # zero bytes after the last instruction, decoded as NOPs

    @property
    def name(self) -> str:
        return PCODES[self.pcode].name if self.pcode < PCODE_COUNT else _ACC_ONLY_NAMES[self.pcode]

    @property
    def layout(self) -> tuple[Arg, ...]:
        return PCODES[self.pcode].operands if self.pcode < PCODE_COUNT else ACC_ONLY_OPERANDS[self.pcode]

    def targets(self) -> list[int]:
        """Addresses this instruction may jump to."""
        found = []
        for arg, value in zip(self.layout, self.operands):
            if arg is Arg.ADDR:
                found.append(value)
            elif arg is Arg.CASE_TABLE:
                found.extend(target for _, target in value)
        return found


@dataclass
class Behavior:
    """A parsed BEHAVIOR lump."""

    size: int
    format: str              # "ACSe", "ACSE" or "ACS0" (Hexen)
    compact: bool
    wrapped: bool            # the "ACS\0" header with the real tag before the directory
    directory_offset: int
    chunks: list[Chunk]
    scripts: list[Script]
    functions: list[Function]
    strings: list[str]
    code_start: int
    code_end: int
    instructions: list[Instruction]
    dummy_scripts: list[tuple[int, int, int]] = field(default_factory=list)  # (number, address, argc)
    map_var_inits: dict[int, int] = field(default_factory=dict)
    arrays: dict[int, int] = field(default_factory=dict)                  # map var index -> size
    array_inits: dict[int, list[int]] = field(default_factory=dict)
    libraries: list[str] = field(default_factory=list)   # LOAD: libraries it imports
    library: bool = False                                 # ALIB: it is a library
    exports: list = field(default_factory=list)           # MEXP: a library's map variable names (None: hidden)
    imports: dict[int, str] = field(default_factory=dict)  # MIMP and AIMP: map variable -> imported name
    notes: list[str] = field(default_factory=list)   # ways the engine would read it differently

    def entry_points(self) -> dict[int, str]:
        """Address -> 'script N' / 'function NAME' for every script and function body here."""
        points = {}
        for function in self.functions:
            if function.address:   # imported functions have no body here
                points.setdefault(function.address, f"function {function.name or function.index}")
        for script in self.scripts:
            points.setdefault(script.address, f"script {script.label} {_TYPE_NAMES.get(script.type, script.type)}")
        return points


def parse_behavior(data: bytes) -> Behavior:
    """Parse a BEHAVIOR lump; raises ValueError when it is not one the engine would load."""
    data = bytes(data)
    try:
        return _parse(data)
    except (struct.error, IndexError, UnicodeDecodeError, OverflowError) as error:
        raise ValueError(f"malformed BEHAVIOR lump: {error}") from None


def _parse(data: bytes) -> Behavior:
    reader = _Reader(data)
    if data[:3] != b"ACS" or data[3:4] not in (b"\0", b"E", b"e"):
        raise ValueError(f"not a BEHAVIOR lump: it starts with {data[:4]!r}, expected 'ACS\\0', 'ACSE' or 'ACSe'")
    dirofs = reader.u32(4, "directory offset")
    if not 8 <= dirofs <= len(data):
        raise ValueError(f"directory offset {dirofs} lies outside the lump (8..{len(data)})")
    notes = []
    if len(data) < _MIN_LUMP:
        notes.append(f"the engine ignores BEHAVIOR lumps under {_MIN_LUMP} bytes, so it runs nothing from this one")
    if data[3] == 0:
        pretag = data[dirofs - 4:dirofs] if dirofs >= 16 else b""
        if pretag in (b"ACSe", b"ACSE"):
            if dirofs < 24:
                notes.append("directory offset under 24: the engine reads this lump as the Hexen format")
            chunk_start = reader.u32(dirofs - 8, "chunk offset")
            if not 8 <= chunk_start <= dirofs - 8:
                raise ValueError(f"chunk offset {chunk_start} lies outside 8..{dirofs - 8}")
            behavior = _parse_enhanced(reader, pretag.decode(), dirofs, chunk_start, dirofs - 8, wrapped=True)
        else:
            behavior = _parse_hexen(reader, dirofs)
    else:
        behavior = _parse_enhanced(reader, data[:4].decode(), dirofs, dirofs, len(data), wrapped=False)
    behavior.notes = notes
    return behavior


def _parse_enhanced(reader: _Reader, tag: str, dirofs: int, chunk_start: int, chunk_end: int,
                    wrapped: bool) -> Behavior:
    compact = tag == "ACSe"
    chunks = _read_chunks(reader, chunk_start, chunk_end)
    by_tag: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_tag.setdefault(chunk.tag, []).append(chunk)
    dummies = _read_dummy_directory(reader, dirofs) if wrapped else []
    scripts = _read_scripts(by_tag, wide=not wrapped)
    functions = _read_functions(by_tag)
    strings = _read_strings(by_tag)
    code_end = min([chunk_start] + [address for _, address, _ in dummies if address >= 8])
    behavior = Behavior(len(reader.data), tag, compact, wrapped, dirofs, chunks, scripts, functions,
                        strings, 8, code_end, [], dummy_scripts=dummies)
    _read_variables(by_tag, behavior)
    _check_addresses(behavior)
    behavior.libraries = [name for chunk in by_tag.get("LOAD", [])
                          for name in chunk.payload.decode("latin-1").split("\0") if name]
    _read_library_tables(by_tag, behavior)
    behavior.instructions = _decode_code(reader.data, behavior)
    return behavior


def _parse_hexen(reader: _Reader, dirofs: int) -> Behavior:
    """The original Hexen layout: script directory and string table at dirofs, 4-byte code."""
    count = reader.u32(dirofs, "script count")
    reader.need(dirofs + 4, count * 12, f"script directory of {count} entries")
    scripts = []
    for i in range(count):
        number, address, argc = reader.unpack("<III", dirofs + 4 + 12 * i, "script entry")
        scripts.append(Script(number % 1000, number // 1000, argc, address))
    table = dirofs + 4 + 12 * count
    string_count = reader.u32(table, "string count")
    reader.need(table + 4, string_count * 4, f"string table of {string_count} entries")
    strings = [reader.cstring(reader.u32(table + 4 + 4 * i, "string offset"), f"string {i}")
               for i in range(string_count)]
    behavior = Behavior(len(reader.data), "ACS0", False, False, dirofs, [], scripts, [], strings, 8,
                        dirofs, [])
    _check_addresses(behavior)
    behavior.instructions = _decode_code(reader.data, behavior)
    return behavior


def _read_chunks(reader: _Reader, start: int, end: int) -> list[Chunk]:
    chunks = []
    offset = start
    while offset + 8 <= end:
        tag_bytes = reader.data[offset:offset + 4]
        size = reader.u32(offset + 4, "chunk size")
        if offset + 8 + size > end:
            raise ValueError(f"chunk {tag_bytes!r} at offset {offset} claims {size} bytes, past the "
                             f"end of the chunk area at {end}")
        chunks.append(Chunk(tag_bytes.decode("latin-1"), offset, reader.data[offset + 8:offset + 8 + size]))
        offset += 8 + size
    return chunks


def _read_dummy_directory(reader: _Reader, dirofs: int) -> list[tuple[int, int, int]]:
    """The Hexen-style directory acc keeps after the chunks for old editors."""
    if dirofs + 4 > len(reader.data):
        return []
    count = reader.u32(dirofs, "old-style script count")
    reader.need(dirofs + 4, count * 12, f"old-style directory of {count} entries")
    return [reader.unpack("<III", dirofs + 4 + 12 * i, "old-style script entry") for i in range(count)]


def _records(chunk: Chunk, fmt: str) -> list[tuple]:
    size = struct.calcsize(fmt)
    if len(chunk.payload) % size:
        raise ValueError(f"{chunk.tag} chunk at offset {chunk.offset}: {len(chunk.payload)} bytes is not "
                         f"a whole number of {size}-byte entries")
    return [struct.unpack_from(fmt, chunk.payload, i) for i in range(0, len(chunk.payload), size)]


def _name_table(chunk: Chunk) -> list[str]:
    """FNAM/SNAM/MEXP layout: u32 count, count u32 offsets into the payload, NUL-terminated names."""
    reader = _Reader(chunk.payload, f"{chunk.tag} chunk at offset {chunk.offset}")
    count = reader.u32(0, "name count")
    reader.need(4, count * 4, f"{count} name offsets")
    return [reader.cstring(reader.u32(4 + 4 * i, "name offset"), f"name {i}") for i in range(count)]


def _read_scripts(by_tag: dict[str, list[Chunk]], wide: bool) -> list[Script]:
    scripts = []
    for chunk in by_tag.get("SPTR", []):
        if wide:
            scripts += [Script(number, script_type & 0xFF, argc, address)
                        for number, script_type, address, argc in _records(chunk, "<hHII")]
        else:
            scripts += [Script(number, script_type, argc, address)
                        for number, script_type, argc, address in _records(chunk, "<hBBI")]
    by_number = {script.number: script for script in scripts}
    names = [name for chunk in by_tag.get("SNAM", []) for name in _name_table(chunk)]
    for script in scripts:
        if script.number < 0 and -1 - script.number < len(names):
            script.name = names[-1 - script.number]
    for tag, attribute in (("SFLG", "flags"), ("SVCT", "var_count")):
        for chunk in by_tag.get(tag, []):
            for number, value in _records(chunk, "<hH"):
                if number in by_number:
                    setattr(by_number[number], attribute, value)
    for number, sizes in _array_chunks(by_tag.get("SARY", []), signed=True):
        if number in by_number:
            by_number[number].arrays = sizes
    return scripts


def _array_chunks(chunks: list[Chunk], signed: bool) -> list[tuple[int, list[int]]]:
    """SARY/FARY: a 16-bit owner number, then one i32 size per local array."""
    found = []
    for chunk in chunks:
        if len(chunk.payload) < 2 or (len(chunk.payload) - 2) % 4:
            raise ValueError(f"{chunk.tag} chunk at offset {chunk.offset} has a bad size {len(chunk.payload)}")
        owner = struct.unpack_from("<h" if signed else "<H", chunk.payload)[0]
        sizes = list(struct.unpack_from(f"<{(len(chunk.payload) - 2) // 4}i", chunk.payload, 2))
        found.append((owner, sizes))
    return found


def _read_functions(by_tag: dict[str, list[Chunk]]) -> list[Function]:
    records = [record for chunk in by_tag.get("FUNC", []) for record in _records(chunk, "<BBBBI")]
    functions = [Function(index, argc, local_count, bool(returns), import_number, address)
                 for index, (argc, local_count, returns, import_number, address) in enumerate(records)]
    names = [name for chunk in by_tag.get("FNAM", []) for name in _name_table(chunk)]
    for function, name in zip(functions, names):
        function.name = name
    for index, sizes in _array_chunks(by_tag.get("FARY", []), signed=False):
        if index < len(functions):
            functions[index].arrays = sizes
    return functions


def _read_strings(by_tag: dict[str, list[Chunk]]) -> list[str]:
    chunks = by_tag.get("STRL", []) + by_tag.get("STRE", [])
    strings = []
    for chunk in chunks[:1]:
        reader = _Reader(chunk.payload, f"{chunk.tag} chunk at offset {chunk.offset}")
        count = reader.u32(4, "string count")
        reader.need(12, count * 4, f"{count} string offsets")
        for i in range(count):
            offset = reader.u32(12 + 4 * i, "string offset")
            if chunk.tag == "STRE":
                strings.append(_decrypt(reader, offset, i))
            else:
                strings.append(reader.cstring(offset, f"string {i}"))
    return strings


def _decrypt(reader: _Reader, offset: int, index: int) -> str:
    """STRE strings: byte i is XORed with (offset * 157135 + i // 2) & 255, up to the NUL."""
    key = (offset * 157135) & 0xFF
    chars = []
    i = 0
    while True:
        reader.need(offset + i, 1, f"encrypted string {index}")
        char = reader.data[offset + i] ^ ((key + (i >> 1)) & 0xFF)
        if char == 0:
            return bytes(chars).decode("latin-1")
        chars.append(char)
        i += 1


def _read_variables(by_tag: dict[str, list[Chunk]], behavior: Behavior) -> None:
    for chunk in by_tag.get("MINI", []):
        first, values = _indexed_values(chunk)
        for i, value in enumerate(values):
            behavior.map_var_inits[first + i] = value
    for chunk in by_tag.get("ARAY", []):
        for index, size in _records(chunk, "<II"):
            behavior.arrays[index] = size
    for chunk in by_tag.get("AINI", []):
        index, values = _indexed_values(chunk)
        behavior.array_inits[index] = values


def _read_library_tables(by_tag: dict[str, list[Chunk]], behavior: Behavior) -> None:
    behavior.library = "ALIB" in by_tag
    for chunk in by_tag.get("MEXP", []):
        count = struct.unpack_from("<I", chunk.payload)[0]
        offsets = struct.unpack_from(f"<{count}I", chunk.payload, 4)
        behavior.exports = [_cstring(chunk.payload, offset) if offset else None for offset in offsets]
    for chunk in by_tag.get("MIMP", []):
        at = 0
        while at + 4 < len(chunk.payload):
            index = struct.unpack_from("<I", chunk.payload, at)[0]
            name = _cstring(chunk.payload, at + 4)
            behavior.imports[index] = name
            at += 5 + len(name)
    for chunk in by_tag.get("AIMP", []):
        count = struct.unpack_from("<I", chunk.payload)[0]
        at = 4
        for _ in range(count):
            index, size = struct.unpack_from("<II", chunk.payload, at)
            name = _cstring(chunk.payload, at + 8)
            behavior.imports[index] = f"{name}[{size}]"
            at += 9 + len(name)


def _cstring(data: bytes, offset: int) -> str:
    end = data.index(b"\0", offset)
    return data[offset:end].decode("latin-1")


def _indexed_values(chunk: Chunk) -> tuple[int, list[int]]:
    """MINI/AINI: a u32 (first map variable, or the array's number), then i32 values."""
    if len(chunk.payload) < 4 or len(chunk.payload) % 4:
        raise ValueError(f"{chunk.tag} chunk at offset {chunk.offset} has a bad size {len(chunk.payload)}")
    first, *values = struct.unpack_from(f"<I{len(chunk.payload) // 4 - 1}i", chunk.payload)
    return first, values


def _check_addresses(behavior: Behavior) -> None:
    for address, owner in behavior.entry_points().items():
        if not behavior.code_start <= address < behavior.code_end:
            raise ValueError(f"{owner} starts at offset {address}, outside the code "
                             f"({behavior.code_start}..{behavior.code_end - 1})")


def _decode_code(data: bytes, behavior: Behavior) -> list[Instruction]:
    """Decode each body from its entry point to the next one (bodies are laid out one after another)."""
    starts = sorted(behavior.entry_points())
    instructions = []
    for start, end in zip(starts, starts[1:] + [behavior.code_end]):
        instructions += _decode_range(data, start, end, behavior.compact)
    return instructions


def _decode_range(data: bytes, start: int, end: int, compact: bool) -> list[Instruction]:
    code = data[:end]
    instructions = []
    offset = start
    while offset < end:
        if instructions and instructions[-1].pcode in NO_FALLTHROUGH and not any(code[offset:end]):
            instructions.append(Instruction(offset, end - offset, PCD.NOP, [], padding=True))
            break
        instruction = _decode_one(code, offset, compact)
        instructions.append(instruction)
        offset += instruction.size
    return instructions


def _decode_one(code: bytes, address: int, compact: bool) -> Instruction:
    pcode, offset = decode_opcode(code, address, compact)
    if pcode < PCODE_COUNT:
        layout, name = PCODES[pcode].operands, PCODES[pcode].name
    elif pcode in ACC_ONLY_OPERANDS:
        layout, name = ACC_ONLY_OPERANDS[pcode], _ACC_ONLY_NAMES[pcode]
    else:
        raise ValueError(f"unknown p-code {pcode} at offset {address} (the engine knows 0..{PCODE_COUNT - 1})")
    reader = _Reader(code, "code")
    operands = []
    for arg in layout:
        value, offset = _decode_operand(reader, arg, offset, compact, f"{name} operand")
        operands.append(value)
    return Instruction(address, offset - address, pcode, operands)


def _decode_operand(reader: _Reader, arg: Arg, offset: int, compact: bool, item: str):
    if arg is Arg.BYTES:
        reader.need(offset, 1, item)
        count = reader.data[offset]
        reader.need(offset + 1, count, item)
        return list(reader.data[offset + 1:offset + 1 + count]), offset + 1 + count
    if arg is Arg.CASE_TABLE:
        offset = (offset + 3) & ~3
        count = reader.u32(offset, "case count")
        reader.need(offset + 4, count * 8, f"case table of {count} entries")
        pairs = [struct.unpack_from("<iI", reader.data, offset + 4 + 8 * i) for i in range(count)]
        return pairs, offset + 4 + 8 * count
    size = arg.size(compact)
    if size == 1:
        reader.need(offset, 1, item)
        return reader.data[offset], offset + 1
    fmt = "<h" if size == 2 else ("<I" if arg is Arg.ADDR else "<i")
    return reader.unpack(fmt, offset, item)[0], offset + size


# ----------------------------------------------------------------------------------------------------
# Listing


def disassemble(data: bytes) -> str:
    """A readable listing of one BEHAVIOR lump."""
    behavior = parse_behavior(data)
    lines = _header_lines(behavior) + _table_lines(behavior) + _code_lines(behavior)
    return "\n".join(lines) + "\n"


def _header_lines(behavior: Behavior) -> list[str]:
    layout = "'ACS\\0' wrapper" if behavior.wrapped else "tag first"
    if behavior.format == "ACS0":
        layout = "Hexen"
    encoding = "compact" if behavior.compact else "4-byte"
    lines = [f"BEHAVIOR: {behavior.size} bytes, {behavior.format} ({encoding} p-codes, {layout}), "
             f"code {behavior.code_start}..{behavior.code_end - 1}, directory at {behavior.directory_offset}"]
    lines += [f"note: {note}" for note in behavior.notes]
    if behavior.dummy_scripts:
        lines.append(f"old-style directory: {len(behavior.dummy_scripts)} placeholder scripts "
                     + " ".join(f"{number}@{address}" for number, address, _ in behavior.dummy_scripts))
    if behavior.chunks:
        lines.append(f"chunks ({len(behavior.chunks)}):")
        lines += [f"  {chunk.offset:6d}  {chunk.tag:4s}  {len(chunk.payload)} bytes" for chunk in behavior.chunks]
    return lines


def _table_lines(behavior: Behavior) -> list[str]:
    lines = [f"scripts ({len(behavior.scripts)}):"]
    for script in behavior.scripts:
        flags = "|".join(name for bit, name in _FLAG_NAMES.items() if script.flags & bit) or "-"
        arrays = f"  arrays {script.arrays}" if script.arrays else ""
        lines.append(f"  {script.label:>8s}  {_TYPE_NAMES.get(script.type, f'type {script.type}'):12s}"
                     f" argc {script.argc}  flags {flags}  locals {script.var_count}  @{script.address}{arrays}")
    lines.append(f"functions ({len(behavior.functions)}):")
    for function in behavior.functions:
        arrays = f"  arrays {function.arrays}" if function.arrays else ""
        returns = "int" if function.returns else "void"
        imported = f"  import {function.import_number}" if function.import_number else ""
        lines.append(f"  {function.index:3d} {function.name or '?':20s} argc {function.argc}  "
                     f"locals {function.local_count}  returns {returns}  @{function.address}{imported}{arrays}")
    lines.append(f"strings ({len(behavior.strings)}):")
    lines += [f"  {i:3d} {_quote(text)}" for i, text in enumerate(behavior.strings)]
    if behavior.map_var_inits:
        lines.append("map variables: " + ", ".join(f"{index} = {value}"
                                                   for index, value in sorted(behavior.map_var_inits.items())))
    for index, size in sorted(behavior.arrays.items()):
        init = behavior.array_inits.get(index)
        lines.append(f"map array {index}[{size}]" + (f" = {init}" if init is not None else ""))
    if behavior.library:
        lines.append("a library; map variables it exports: "
                     + (", ".join(f"{i} {name}" for i, name in enumerate(behavior.exports) if name) or "none"))
    if behavior.imports:
        lines.append("imported map variables: " + ", ".join(f"{index} {name}"
                                                           for index, name in sorted(behavior.imports.items())))
    if behavior.libraries:
        lines.append("libraries: " + ", ".join(behavior.libraries))
    return lines


def _code_lines(behavior: Behavior) -> list[str]:
    at = {instruction.address for instruction in behavior.instructions}
    targets = sorted({target for instruction in behavior.instructions for target in instruction.targets()})
    labels = {address: f"L{i + 1}" for i, address in enumerate(targets)}
    entries = behavior.entry_points()
    lines = []
    for instruction in behavior.instructions:
        if instruction.address in entries:
            lines += ["", f"{entries[instruction.address]}:"]
        if instruction.address in labels:
            lines.append(f"{labels[instruction.address]}:")
        text = "(padding)" if instruction.padding else _instruction_text(instruction, behavior, labels, at)
        lines.append(f"  {instruction.address:6d}  {text}")
    return lines


def _instruction_text(instruction: Instruction, behavior: Behavior, labels: dict[int, str],
                      at: set[int]) -> str:
    def target(address: int) -> str:
        if address in labels and address in at:
            return labels[address]
        return f"@{address} (not an instruction)"

    parts = []
    notes = []
    special_byte = instruction.name.startswith("LSPEC") and instruction.name.endswith("DIRECTB")
    if instruction.pcode >= PCODE_COUNT:
        notes.append("acc-only p-code: this engine stops the script here")
        special_byte = instruction.name.startswith("LSPEC")
    for position, (arg, value) in enumerate(zip(instruction.layout, instruction.operands)):
        if arg is Arg.ADDR:
            parts.append(target(value))
        elif arg is Arg.CASE_TABLE:
            parts.append(", ".join(f"{case} -> {target(address)}" for case, address in value) or "(empty)")
        elif arg is Arg.BYTES:
            parts.append(" ".join(map(str, value)))
        else:
            parts.append(str(value))
            if arg is Arg.SPECIAL or (special_byte and position == 0):
                notes.append(_SPECIAL_NAMES.get(value, f"special {value}"))
            else:
                notes += _operand_notes(instruction, arg, value, behavior)
    text = instruction.name + (" " + ", ".join(parts) if parts else "")
    return text + ("    ; " + "; ".join(notes) if notes else "")


def _operand_notes(instruction: Instruction, arg: Arg, value: int, behavior: Behavior) -> list[str]:
    if arg is Arg.FUNC:
        return [_CALLFUNC_NAMES.get(value, f"CALLFUNC {value}")]
    if arg is Arg.STRING:
        return [_quote(behavior.strings[value]) if 0 <= value < len(behavior.strings) else "no such string"]
    if arg is Arg.INDEX and instruction.pcode in (PCD.CALL, PCD.CALLDISCARD, PCD.PUSHFUNCTION):
        if value >= len(behavior.functions):
            return ["no such function"]
        return [behavior.functions[value].name or f"function {value}"]
    if arg is Arg.INT and instruction.pcode == PCD.PUSHNUMBER and value and value % 65536 == 0:
        return [f"fixed {value // 65536}.0"]
    return []


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# ----------------------------------------------------------------------------------------------------
# WADs

_MAP_LUMPS = {"THINGS", "TEXTMAP"}   # the lump after a map marker (Doom/Hexen and UDMF maps)


def map_lumps(wad: bytes | str | os.PathLike, lump_name: str) -> list[tuple[str, bytes]]:
    """(map name, lump) for each lump called ``lump_name`` in a map of a WAD given as bytes or a path."""
    found = []
    previous = current_map = None
    for name, lump in read_wad(wad):
        if name in _MAP_LUMPS and previous is not None:
            current_map = previous
        elif name == lump_name.upper():
            found.append((current_map or "?", lump))
        previous = name
    return found


def behavior_lumps(wad: bytes | str | os.PathLike) -> list[tuple[str, bytes]]:
    """(map name, BEHAVIOR lump) for each map of a WAD, given as bytes or a path."""
    return map_lumps(wad, "BEHAVIOR")


def library_lumps(wad: bytes | str | os.PathLike) -> list[tuple[str, bytes]]:
    """(lump name, lump) for each ACS library of a WAD: the lumps between A_START and A_END."""
    found = []
    inside = False
    for name, lump in read_wad(wad):
        if name == "A_START":
            inside = True
        elif name == "A_END":
            inside = False
        elif inside:
            found.append((name, lump))
    return found


def disassemble_path(path: str | os.PathLike) -> str:
    """Listing of a BEHAVIOR lump file, or of every map's BEHAVIOR lump and every ACS library in a WAD."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:4] not in (b"IWAD", b"PWAD"):
        return disassemble(data)
    sections = [(f"{map_name} BEHAVIOR", lump) for map_name, lump in behavior_lumps(data)]
    sections += [(f"library {name}", lump) for name, lump in library_lumps(data)]
    if not sections:
        raise ValueError(f"{os.fspath(path)}: the WAD has no BEHAVIOR lump and no ACS library")
    return "\n".join(f"==== {title} ====\n{disassemble(lump)}" for title, lump in sections)

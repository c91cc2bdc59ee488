"""ACS p-codes that ViZDoom 1.3 runs: numbers, names and operand layouts, for codegen and the disassembler.

Facts come from the engine (p_acs.h's PCD enum, p_acs.cpp's interpreter loop); names are the engine's
without the ``PCD_`` prefix. ``PCD.PUSHNUMBER == 3``; ``PCODES[n]`` describes p-code ``n``.

Encoding (``compact`` is the ``ACSe`` form the reference compiler writes by default, else ``ACSE``):
- opcode: compact: one byte below 240, else two bytes ``240 + ((n-240) >> 8), (n-240) & 255``;
  non-compact: u32.
- operands, by :class:`Arg`: INDEX/SPECIAL/ARGC are the engine's NEXTBYTE (u8 compact, i32 otherwise),
  FUNC is NEXTSHORT (i16 compact, i32 otherwise), INT/ADDR/STRING are always i32, BYTE is always u8
  (PUSHBYTE, PUSHnBYTES and the *DIRECTB forms read raw bytes even in non-compact code), BYTES is a u8
  count then that many u8, and CASE_TABLE (CASEGOTOSORTED) is zero padding to a 4-byte boundary of the
  lump offset, a u32 count and count pairs (i32 value, u32 address).
"""

from __future__ import annotations

import enum
import struct
import types
from dataclasses import dataclass

# Engine enum order; each row starts at the number in its margin.
_NAME_ROWS = """
/  0/ NOP TERMINATE SUSPEND PUSHNUMBER LSPEC1 LSPEC2 LSPEC3 LSPEC4 LSPEC5 LSPEC1DIRECT
/ 10/ LSPEC2DIRECT LSPEC3DIRECT LSPEC4DIRECT LSPEC5DIRECT ADD SUBTRACT MULTIPLY DIVIDE MODULUS EQ
/ 20/ NE LT GT LE GE ASSIGNSCRIPTVAR ASSIGNMAPVAR ASSIGNWORLDVAR PUSHSCRIPTVAR PUSHMAPVAR
/ 30/ PUSHWORLDVAR ADDSCRIPTVAR ADDMAPVAR ADDWORLDVAR SUBSCRIPTVAR SUBMAPVAR SUBWORLDVAR
      MULSCRIPTVAR MULMAPVAR MULWORLDVAR
/ 40/ DIVSCRIPTVAR DIVMAPVAR DIVWORLDVAR MODSCRIPTVAR MODMAPVAR MODWORLDVAR INCSCRIPTVAR
      INCMAPVAR INCWORLDVAR DECSCRIPTVAR
/ 50/ DECMAPVAR DECWORLDVAR GOTO IFGOTO DROP DELAY DELAYDIRECT RANDOM RANDOMDIRECT THINGCOUNT
/ 60/ THINGCOUNTDIRECT TAGWAIT TAGWAITDIRECT POLYWAIT POLYWAITDIRECT CHANGEFLOOR
      CHANGEFLOORDIRECT CHANGECEILING CHANGECEILINGDIRECT RESTART
/ 70/ ANDLOGICAL ORLOGICAL ANDBITWISE ORBITWISE EORBITWISE NEGATELOGICAL LSHIFT RSHIFT
      UNARYMINUS IFNOTGOTO
/ 80/ LINESIDE SCRIPTWAIT SCRIPTWAITDIRECT CLEARLINESPECIAL CASEGOTO BEGINPRINT ENDPRINT
      PRINTSTRING PRINTNUMBER PRINTCHARACTER
/ 90/ PLAYERCOUNT GAMETYPE GAMESKILL TIMER SECTORSOUND AMBIENTSOUND SOUNDSEQUENCE
      SETLINETEXTURE SETLINEBLOCKING SETLINESPECIAL
/100/ THINGSOUND ENDPRINTBOLD ACTIVATORSOUND LOCALAMBIENTSOUND SETLINEMONSTERBLOCKING
      PLAYERBLUESKULL PLAYERREDSKULL PLAYERYELLOWSKULL PLAYERMASTERSKULL PLAYERBLUECARD
/110/ PLAYERREDCARD PLAYERYELLOWCARD PLAYERMASTERCARD PLAYERBLACKSKULL PLAYERSILVERSKULL
      PLAYERGOLDSKULL PLAYERBLACKCARD PLAYERSILVERCARD PLAYERONTEAM PLAYERTEAM
/120/ PLAYERHEALTH PLAYERARMORPOINTS PLAYERFRAGS PLAYEREXPERT BLUETEAMCOUNT REDTEAMCOUNT
      BLUETEAMSCORE REDTEAMSCORE ISONEFLAGCTF LSPEC6
/130/ LSPEC6DIRECT PRINTNAME MUSICCHANGE TEAM2FRAGPOINTS CONSOLECOMMAND SINGLEPLAYER FIXEDMUL
      FIXEDDIV SETGRAVITY SETGRAVITYDIRECT
/140/ SETAIRCONTROL SETAIRCONTROLDIRECT CLEARINVENTORY GIVEINVENTORY GIVEINVENTORYDIRECT
      TAKEINVENTORY TAKEINVENTORYDIRECT CHECKINVENTORY CHECKINVENTORYDIRECT SPAWN
/150/ SPAWNDIRECT SPAWNSPOT SPAWNSPOTDIRECT SETMUSIC SETMUSICDIRECT LOCALSETMUSIC
      LOCALSETMUSICDIRECT PRINTFIXED PRINTLOCALIZED MOREHUDMESSAGE
/160/ OPTHUDMESSAGE ENDHUDMESSAGE ENDHUDMESSAGEBOLD SETSTYLE SETSTYLEDIRECT SETFONT
      SETFONTDIRECT PUSHBYTE LSPEC1DIRECTB LSPEC2DIRECTB
/170/ LSPEC3DIRECTB LSPEC4DIRECTB LSPEC5DIRECTB DELAYDIRECTB RANDOMDIRECTB PUSHBYTES
      PUSH2BYTES PUSH3BYTES PUSH4BYTES PUSH5BYTES
/180/ SETTHINGSPECIAL ASSIGNGLOBALVAR PUSHGLOBALVAR ADDGLOBALVAR SUBGLOBALVAR MULGLOBALVAR
      DIVGLOBALVAR MODGLOBALVAR INCGLOBALVAR DECGLOBALVAR
/190/ FADETO FADERANGE CANCELFADE PLAYMOVIE SETFLOORTRIGGER SETCEILINGTRIGGER GETACTORX
      GETACTORY GETACTORZ STARTTRANSLATION
/200/ TRANSLATIONRANGE1 TRANSLATIONRANGE2 ENDTRANSLATION CALL CALLDISCARD RETURNVOID
      RETURNVAL PUSHMAPARRAY ASSIGNMAPARRAY ADDMAPARRAY
/210/ SUBMAPARRAY MULMAPARRAY DIVMAPARRAY MODMAPARRAY INCMAPARRAY DECMAPARRAY DUP SWAP
      WRITETOINI GETFROMINI
/220/ SIN COS VECTORANGLE CHECKWEAPON SETWEAPON TAGSTRING PUSHWORLDARRAY ASSIGNWORLDARRAY
      ADDWORLDARRAY SUBWORLDARRAY
/230/ MULWORLDARRAY DIVWORLDARRAY MODWORLDARRAY INCWORLDARRAY DECWORLDARRAY PUSHGLOBALARRAY
      ASSIGNGLOBALARRAY ADDGLOBALARRAY SUBGLOBALARRAY MULGLOBALARRAY
/240/ DIVGLOBALARRAY MODGLOBALARRAY INCGLOBALARRAY DECGLOBALARRAY SETMARINEWEAPON
      SETACTORPROPERTY GETACTORPROPERTY PLAYERNUMBER ACTIVATORTID SETMARINESPRITE
/250/ GETSCREENWIDTH GETSCREENHEIGHT THING_PROJECTILE2 STRLEN SETHUDSIZE GETCVAR
      CASEGOTOSORTED SETRESULTVALUE GETLINEROWOFFSET GETACTORFLOORZ
/260/ GETACTORANGLE GETSECTORFLOORZ GETSECTORCEILINGZ LSPEC5RESULT GETSIGILPIECES
      GETLEVELINFO CHANGESKY PLAYERINGAME PLAYERISBOT SETCAMERATOTEXTURE
/270/ ENDLOG GETAMMOCAPACITY SETAMMOCAPACITY PRINTMAPCHARARRAY PRINTWORLDCHARARRAY
      PRINTGLOBALCHARARRAY SETACTORANGLE GRABINPUT SETMOUSEPOINTER MOVEMOUSEPOINTER
/280/ SPAWNPROJECTILE GETSECTORLIGHTLEVEL GETACTORCEILINGZ SETACTORPOSITION
      CLEARACTORINVENTORY GIVEACTORINVENTORY TAKEACTORINVENTORY CHECKACTORINVENTORY
      THINGCOUNTNAME SPAWNSPOTFACING
/290/ PLAYERCLASS ANDSCRIPTVAR ANDMAPVAR ANDWORLDVAR ANDGLOBALVAR ANDMAPARRAY ANDWORLDARRAY
      ANDGLOBALARRAY EORSCRIPTVAR EORMAPVAR
/300/ EORWORLDVAR EORGLOBALVAR EORMAPARRAY EORWORLDARRAY EORGLOBALARRAY ORSCRIPTVAR ORMAPVAR
      ORWORLDVAR ORGLOBALVAR ORMAPARRAY
/310/ ORWORLDARRAY ORGLOBALARRAY LSSCRIPTVAR LSMAPVAR LSWORLDVAR LSGLOBALVAR LSMAPARRAY
      LSWORLDARRAY LSGLOBALARRAY RSSCRIPTVAR
/320/ RSMAPVAR RSWORLDVAR RSGLOBALVAR RSMAPARRAY RSWORLDARRAY RSGLOBALARRAY GETPLAYERINFO
      CHANGELEVEL SECTORDAMAGE REPLACETEXTURES
/330/ NEGATEBINARY GETACTORPITCH SETACTORPITCH PRINTBIND SETACTORSTATE THINGDAMAGE2
      USEINVENTORY USEACTORINVENTORY CHECKACTORCEILINGTEXTURE CHECKACTORFLOORTEXTURE
/340/ GETACTORLIGHTLEVEL SETMUGSHOTSTATE THINGCOUNTSECTOR THINGCOUNTNAMESECTOR
      CHECKPLAYERCAMERA MORPHACTOR UNMORPHACTOR GETPLAYERINPUT CLASSIFYACTOR PRINTBINARY
/350/ PRINTHEX CALLFUNC SAVESTRING PRINTMAPCHRANGE PRINTWORLDCHRANGE PRINTGLOBALCHRANGE
      STRCPYTOMAPCHRANGE STRCPYTOWORLDCHRANGE STRCPYTOGLOBALCHRANGE PUSHFUNCTION
/360/ CALLSTACK SCRIPTWAITNAMED TRANSLATIONRANGE3 GOTOSTACK ASSIGNSCRIPTARRAY
      PUSHSCRIPTARRAY ADDSCRIPTARRAY SUBSCRIPTARRAY MULSCRIPTARRAY DIVSCRIPTARRAY
/370/ MODSCRIPTARRAY INCSCRIPTARRAY DECSCRIPTARRAY ANDSCRIPTARRAY EORSCRIPTARRAY
      ORSCRIPTARRAY LSSCRIPTARRAY RSSCRIPTARRAY PRINTSCRIPTCHARARRAY PRINTSCRIPTCHRANGE
/380/ STRCPYTOSCRIPTCHRANGE
"""


def _parse_name_rows(rows: str) -> list[str]:
    names: list[str] = []
    for line in rows.strip().splitlines():
        if line.startswith("/"):
            start = int(line[1:line.index("/", 1)])
            if start != len(names):
                raise AssertionError(f"p-code table row /{start}/ begins at {len(names)}")
            line = line[line.index("/", 1) + 1:]
        names.extend(line.split())
    return names


_NAMES = _parse_name_rows(_NAME_ROWS)

# The reference compiler (acc 1.58) names four of these slots differently; same numbers.
ACC_ALIASES = {
    "ISNETWORKGAME": 118,
    "GETINVASIONWAVE": 129,
    "GETINVASIONSTATE": 130,
    "CONSOLECOMMANDDIRECT": 133,
}

PCD = enum.IntEnum("PCD", [(name, number) for number, name in enumerate(_NAMES)]
                   + list(ACC_ALIASES.items()), module=__name__)
PCD.__doc__ = "ACS p-code numbers (engine names; acc's differing names are aliases)."
PCODE_COUNT = len(_NAMES)  # the engine accepts 0 .. PCODE_COUNT-1

# p-codes acc 1.58 can emit that this engine has no number for (only the zdoom target writes them).
ACC_ONLY_PCODES = {
    "LSPEC5EX": 381,
    "LSPEC5EXRESULT": 382,
    "TRANSLATIONRANGE4": 383,
    "TRANSLATIONRANGE5": 384,
}

# The same numbers as plain ints (``OP.GOTO == PCD.GOTO``), for the code generator: an IntEnum member costs
# several times an int to look up and to append to a bytearray, and codegen does both for every p-code.
OP = types.SimpleNamespace(**{name: int(member) for name, member in PCD.__members__.items()}, **ACC_ONLY_PCODES)


class Arg(enum.Enum):
    """Kind of one inline operand (see the module docstring for each one's encoding)."""

    INDEX = "index"            # variable/array slot or user-function number (engine NEXTBYTE)
    SPECIAL = "special"        # line special number (NEXTBYTE)
    ARGC = "argc"              # CALLFUNC argument count (NEXTBYTE)
    FUNC = "func"              # CALLFUNC function index, signed (NEXTSHORT)
    INT = "int"
    STRING = "string"          # string-table index given inline (the *DIRECT forms that take names)
    ADDR = "addr"              # absolute jump target in the lump
    BYTE = "byte"              # raw byte in both encodings
    BYTES = "bytes"            # u8 count, then count raw bytes (PUSHBYTES)
    CASE_TABLE = "case_table"  # CASEGOTOSORTED: pad to 4, u32 count, count x (i32 value, u32 address)

    def size(self, compact: bool) -> int | None:
        """Encoded size in bytes; None when it depends on the data (BYTES, CASE_TABLE)."""
        sizes = _ARG_SIZES[self]
        return None if sizes is None else sizes[0 if compact else 1]


# (compact, non-compact) sizes
_ARG_SIZES = {
    Arg.INDEX: (1, 4), Arg.SPECIAL: (1, 4), Arg.ARGC: (1, 4), Arg.FUNC: (2, 4),
    Arg.INT: (4, 4), Arg.STRING: (4, 4), Arg.ADDR: (4, 4), Arg.BYTE: (1, 1),
    Arg.BYTES: None, Arg.CASE_TABLE: None,
}


def _variable_ops() -> dict[str, tuple[Arg, ...]]:
    ops = ("ASSIGN", "PUSH", "ADD", "SUB", "MUL", "DIV", "MOD", "INC", "DEC",
           "AND", "EOR", "OR", "LS", "RS")
    scopes = ("SCRIPTVAR", "MAPVAR", "WORLDVAR", "GLOBALVAR",
              "SCRIPTARRAY", "MAPARRAY", "WORLDARRAY", "GLOBALARRAY")
    return {op + scope: (Arg.INDEX,) for op in ops for scope in scopes if op + scope in _NAME_SET}


_NAME_SET = frozenset(_NAMES)
_I, _S = Arg.INT, Arg.STRING

# Inline operands per p-code, read off the engine's interpreter; absent means none.
_OPERANDS: dict[str, tuple[Arg, ...]] = {
    **_variable_ops(),
    "PUSHNUMBER": (_I,),
    **{f"LSPEC{n}": (Arg.SPECIAL,) for n in range(1, 6)},
    "LSPEC5RESULT": (Arg.SPECIAL,),
    **{f"LSPEC{n}DIRECT": (Arg.SPECIAL,) + (_I,) * n for n in range(1, 6)},
    **{f"LSPEC{n}DIRECTB": (Arg.BYTE,) * (n + 1) for n in range(1, 6)},
    "PUSHBYTE": (Arg.BYTE,),
    **{f"PUSH{n}BYTES": (Arg.BYTE,) * n for n in range(2, 6)},
    "PUSHBYTES": (Arg.BYTES,),
    "GOTO": (Arg.ADDR,),
    "IFGOTO": (Arg.ADDR,),
    "IFNOTGOTO": (Arg.ADDR,),
    "CASEGOTO": (_I, Arg.ADDR),
    "CASEGOTOSORTED": (Arg.CASE_TABLE,),
    "CALL": (Arg.INDEX,),
    "CALLDISCARD": (Arg.INDEX,),
    "PUSHFUNCTION": (Arg.INDEX,),
    "CALLFUNC": (Arg.ARGC, Arg.FUNC),
    "DELAYDIRECT": (_I,),
    "DELAYDIRECTB": (Arg.BYTE,),
    "RANDOMDIRECT": (_I, _I),
    "RANDOMDIRECTB": (Arg.BYTE, Arg.BYTE),
    "THINGCOUNTDIRECT": (_I, _I),
    "TAGWAITDIRECT": (_I,),
    "POLYWAITDIRECT": (_I,),
    "SCRIPTWAITDIRECT": (_I,),
    "CHANGEFLOORDIRECT": (_I, _S),
    "CHANGECEILINGDIRECT": (_I, _S),
    "SETGRAVITYDIRECT": (_I,),
    "SETAIRCONTROLDIRECT": (_I,),
    "SETFONTDIRECT": (_S,),
    "GIVEINVENTORYDIRECT": (_S, _I),
    "TAKEINVENTORYDIRECT": (_S, _I),
    "CHECKINVENTORYDIRECT": (_S,),
    "SPAWNDIRECT": (_S, _I, _I, _I, _I, _I),
    "SPAWNSPOTDIRECT": (_S, _I, _I, _I),
    # The engine skips three words though only two are used; acc writes three.
    "SETMUSICDIRECT": (_S, _I, _I),
    "LOCALSETMUSICDIRECT": (_S, _I, _I),
    # Not in the engine's interpreter, but acc writes them (the zdoom target): their const: arguments inline.
    "SETSTYLEDIRECT": (_I,),
    "TEAM2FRAGPOINTS": (_I, _I, _I),  # acc's CONSOLECOMMANDDIRECT
}

# In the engine's enum but absent from its interpreter: running one prints "Unknown P-Code" and
# ends the script (so their operands, if any, are never read).
UNHANDLED_PCODES = frozenset(
    [PCD[n] for n in (
        "PLAYERBLUESKULL PLAYERREDSKULL PLAYERYELLOWSKULL PLAYERMASTERSKULL PLAYERBLUECARD "
        "PLAYERREDCARD PLAYERYELLOWCARD PLAYERMASTERCARD PLAYERBLACKSKULL PLAYERSILVERSKULL "
        "PLAYERGOLDSKULL PLAYERBLACKCARD PLAYERSILVERCARD PLAYERONTEAM PLAYERTEAM PLAYEREXPERT "
        "BLUETEAMCOUNT REDTEAMCOUNT BLUETEAMSCORE REDTEAMSCORE ISONEFLAGCTF LSPEC6 LSPEC6DIRECT "
        "TEAM2FRAGPOINTS SETSTYLE SETSTYLEDIRECT WRITETOINI GETFROMINI GRABINPUT SETMOUSEPOINTER "
        "MOVEMOUSEPOINTER").split()])

# Control never falls through these to the next instruction.
NO_FALLTHROUGH = frozenset([PCD.TERMINATE, PCD.GOTO, PCD.RESTART, PCD.RETURNVOID, PCD.RETURNVAL,
                            PCD.GOTOSTACK, PCD.CASEGOTOSORTED])


@dataclass(frozen=True)
class Pcode:
    """One p-code: number, engine name, inline operands, whether the engine's interpreter runs it."""

    number: int
    name: str
    operands: tuple[Arg, ...]
    handled: bool


PCODES: tuple[Pcode, ...] = tuple(
    Pcode(number, name, _OPERANDS.get(name, ()), PCD[name] not in UNHANDLED_PCODES)
    for number, name in enumerate(_NAMES))

# acc writes the special number of LSPEC5EX(RESULT) as a full int even in compact code.
ACC_ONLY_OPERANDS = {381: (Arg.INT,), 382: (Arg.INT,), 383: (), 384: ()}

_unknown_layouts = set(_OPERANDS) - _NAME_SET
if _unknown_layouts:
    raise AssertionError(f"operand layouts for unknown p-codes: {sorted(_unknown_layouts)}")

COMPACT_SPLIT = 240  # compact opcodes from here on take two bytes


def decode_opcode(data: bytes, offset: int, compact: bool = True) -> tuple[int, int]:
    """(p-code number, offset after the opcode); raises ValueError past the end of ``data``."""
    if compact:
        if offset >= len(data):
            raise ValueError(f"opcode at offset {offset} runs past the end of the code ({len(data)} bytes)")
        first = data[offset]
        if first < COMPACT_SPLIT:
            return first, offset + 1
        if offset + 1 >= len(data):
            raise ValueError(f"two-byte opcode at offset {offset} runs past the end of the code")
        return COMPACT_SPLIT + ((first - COMPACT_SPLIT) << 8) + data[offset + 1], offset + 2
    if offset + 4 > len(data):
        raise ValueError(f"opcode at offset {offset} runs past the end of the code ({len(data)} bytes)")
    return struct.unpack_from("<I", data, offset)[0], offset + 4

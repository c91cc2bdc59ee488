"""Facts of the compiled-ACS object shared by the compiler and the disassembler: script types and flags, and
the number of locals the engine gives a script that has no SVCT entry."""

from __future__ import annotations

# Script type numbers the engine runs (p_acs.h), by the word that declares them; "closed" has no word.
SCRIPT_TYPES = {
    "closed": 0, "open": 1, "respawn": 2, "death": 3, "enter": 4, "pickup": 5, "bluereturn": 6, "redreturn": 7,
    "whitereturn": 8, "lightning": 12, "unloading": 13, "disconnect": 14, "return": 15,
}
# Script types acc knows that this engine does not run: the vizdoom target refuses them, the zdoom target writes
# acc's numbers (GZDoom and Zandronum run them).
ACC_ONLY_SCRIPT_TYPES = {"event": 16, "kill": 17, "reopen": 18}
UNSUPPORTED_SCRIPT_TYPES = tuple(ACC_ONLY_SCRIPT_TYPES)
# Script flag bits (SFLG), by the word that sets them, in the order acc reads them.
SCRIPT_FLAGS = {"net": 1, "clientside": 2}
# Locals the engine gives a script without an SVCT entry (LOCAL_SIZE); Hexen's layout has no SVCT at all.
DEFAULT_SCRIPT_VARIABLES = 20

"""Where #include and #import find files: acc 1.58's order (token.c, TK_Include): the folder of the file that
holds the directive, then each -i folder in the order given, then (wadgym-acc, as acc) the current folder, then
acc's own folder, whose zcommon.acs, zspecial.acs, zdefs.acs and zwvars.acs wadgym has built in. So a mod's own
zspecial.acs (a port's extended list) is read in place of the built-in one, whole, as acc reads it.

acc is not run here. A mod's header is shown to compile as acc compiles it in three steps: the program with
the header's text written in place of the #include line gives the same bytes (the splice acc makes); with the
built-in header, whose bytes the golden tests pin to acc's, the same program gives the same bytes except the
CALLFUNC operand the mod's declaration names (the object format: CALLFUNC, u8 argc, i16 index); and a full
zspecial.acs and zdefs.acs in acc's syntax, read from an -i folder in place of the built-ins, give acc's own
objects for every golden file of tests/acs/data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wadgym.acs import AcsError, builtins, compile_file, compile_source
from wadgym.acs.__main__ import main as acc_main
from wadgym.acs.dis import parse_behavior

DATA = Path(__file__).parent / "data"

MOD_ZCOMMON = '#include "zspecial.acs"\n#include "zdefs.acs"\n#include "zwvars.acs"\n'
# A port's extended list, in acc's syntax: acc 1.58's declarations of what the map uses, and one acc lacks.
MOD_ZSPECIAL = """// zspecial.acs of a mod
special
     80:ACS_Execute(2,5),
    132:Thing_Remove(1),
    -50:VectorLength(2),
  -9001:Mod_Extra(2);
"""
LEVEL = """#include "zcommon.acs"
global int 1:result;
script 1 OPEN
{
    result = VectorLength(3, 4);
    Thing_Remove(5);
    ACS_Execute(2, 0, 1);
    SetActorProperty(0, APROP_Speed, 1.5);
}
"""
MOD_LEVEL = LEVEL.replace("VectorLength", "Mod_Extra")
# CALLFUNC (351) in compact p-code is 0xF0 0x6F; then argc 2 and the i16 index: VectorLength's 50, Mod_Extra's 9001.
VECTORLENGTH_CALL = b"\xf0\x6f\x02" + (50).to_bytes(2, "little")
MOD_EXTRA_CALL = b"\xf0\x6f\x02" + (9001).to_bytes(2, "little")


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def expected_mod_object() -> bytes:
    """MOD_LEVEL's object, derived without acc: LEVEL's with the built-in headers, the one CALLFUNC's index
    changed from VectorLength's to the one the mod declares."""
    builtin = compile_source(LEVEL, "level.acs", target="zdoom")
    calls = [i for i in parse_behavior(builtin).instructions if i.name == "CALLFUNC"]
    assert [c.operands for c in calls] == [[2, 50]] and builtin.count(VECTORLENGTH_CALL) == 1
    return builtin.replace(VECTORLENGTH_CALL, MOD_EXTRA_CALL)


# ---- a mod's own headers ----------------------------------------------------------------------------------


def test_a_mods_own_zspecial_wins_over_the_built_in_one(project):
    write(project, {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL, "level.acs": MOD_LEVEL})
    assert acc_main(["level.acs"]) == 0
    compiled = (project / "level.o").read_bytes()
    assert compiled == expected_mod_object()
    calls = [i.operands for i in parse_behavior(compiled).instructions if i.name == "CALLFUNC"]
    assert calls == [[2, 9001]]
    # The same program with the mod's header written where acc reads it (its zdefs.acs is acc's own).
    spliced = MOD_LEVEL.replace('#include "zcommon.acs"\n',
                                MOD_ZSPECIAL + '#include "zdefs.acs"\n#include "zwvars.acs"\n')
    assert compile_source(spliced, "spliced.acs", target="zdoom") == compiled
    assert compile_file(project / "level.acs", target="zdoom") == compiled


def test_without_the_mods_header_its_function_is_unknown(project):
    write(project, {"level.acs": MOD_LEVEL})
    assert acc_main(["level.acs"]) == 1
    assert "unknown function 'Mod_Extra'" in (project / "acs.err").read_text()


def test_the_mods_copy_is_read_whole_not_merged_with_the_built_in_one(project):
    # Thing_Remove declared at another number is called at that number; a name the mod's list lacks is
    # unknown, though the built-in zspecial.acs declares it.
    write(project, {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL.replace("132:", "133:"),
                    "level.acs": MOD_LEVEL})
    specials = [i for i in parse_behavior(compile_file(project / "level.acs", target="zdoom")).instructions
                if i.name.startswith("LSPEC")]
    assert [(i.name, i.operands[0]) for i in specials] == [("LSPEC1", 133), ("LSPEC3", 80)]
    (project / "level.acs").write_text(MOD_LEVEL.replace("Thing_Remove(5)", "Thing_Destroy(5)"))
    with pytest.raises(AcsError) as info:
        compile_file(project / "level.acs", target="zdoom")
    assert info.value.message == (f"unknown function 'Thing_Destroy': {str(project / 'zspecial.acs')!r}, "
                                  "read in place of wadgym's built-in zspecial.acs (as acc reads the first it "
                                  "finds), does not declare it")
    assert (info.value.line, info.value.col) == (6, 5)


def test_the_built_in_zcommon_brings_the_built_in_zspecial(project):
    # acc's own zcommon.acs includes the zspecial.acs beside it (in acc's folder), not one beside the source:
    # a mod that ships only zspecial.acs has it read where it includes "zspecial.acs" itself.
    write(project, {"zspecial.acs": MOD_ZSPECIAL, "level.acs": MOD_LEVEL})
    with pytest.raises(AcsError, match="unknown function 'Mod_Extra'"):
        compile_file(project / "level.acs", target="zdoom")
    (project / "level.acs").write_text(MOD_LEVEL.replace('"zcommon.acs"', '"zspecial.acs"\n#include "zdefs.acs"'))
    assert compile_file(project / "level.acs", target="zdoom") == expected_mod_object()


def test_headers_in_an_i_folder_and_theirs_beside_them(project):
    # The mod's zcommon.acs lies in an -i folder: its own #include "zspecial.acs" looks beside it first, so
    # the zspecial.acs there wins over another in the current folder.
    write(project / "modinc", {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL})
    write(project / "maps", {"level.acs": MOD_LEVEL})
    write(project, {"zspecial.acs": "special 132:Thing_Remove(1);\n"})
    assert acc_main(["-i", "modinc", os.path.join("maps", "level.acs")]) == 0
    assert (project / "maps" / "level.o").read_bytes() == expected_mod_object()


# A port's full list declares what no script of a map calls: specials over 255, an end marker such as
# -100000:__EndOfList__(10). acc 1.58 takes every declaration as written (parse.c's OuterSpecialDef checks
# nothing), so wadgym refuses only a call that cannot be encoded, never the declaration.
ODD_SPECIALS = """special
    300:Floor_Wide(2, 3),
      7:Mod_Many(1, 8),
      9:Mod_Backwards(3, 2),
    -60:Mod_Huge(0, 300),
 -40000:Mod_Far(1),
-100000:__EndOfList__(10);
"""
# A mod's own header beside zcommon.acs: a name for a constant ViZDoom's engine ignores (SetActorProperty knows
# properties 0..43 only), and one derived from it.
ODD_DEFINES = "#define MOD_COUNTER APROP_Counter0\n#define MOD_NEXT (MOD_COUNTER + 1)\n"
MOD_LEVEL_WITH_DEFS = MOD_LEVEL.replace('#include "zcommon.acs"\n', '#include "zcommon.acs"\n#include "moddefs.acs"\n')


def odd_mod(project, script: str = "") -> Path:
    """The mod beside level.acs, its headers with ODD_SPECIALS and ODD_DEFINES; ``script`` (a statement) is
    added at the end of MOD_LEVEL's script, on line 11, column 5."""
    level = MOD_LEVEL_WITH_DEFS.replace("1.5);\n}", f"1.5);\n\n    {script}\n}}") if script else MOD_LEVEL_WITH_DEFS
    write(project, {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL + ODD_SPECIALS,
                    "moddefs.acs": ODD_DEFINES, "level.acs": level})
    return project / "level.acs"


@pytest.mark.parametrize("hexen", [False, "warn"], ids=["compact", "acse"])
@pytest.mark.parametrize("target", builtins.TARGETS)
def test_declarations_no_call_uses_compile_for_every_target_to_the_same_bytes(project, target, hexen):
    write(project, {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL, "moddefs.acs": "",
                    "level.acs": MOD_LEVEL_WITH_DEFS})
    plain = compile_file(project / "level.acs", target=target, hexen=hexen)
    if target == "zdoom" and not hexen:
        assert plain == expected_mod_object()
    assert compile_file(odd_mod(project), target=target, hexen=hexen) == plain


@pytest.mark.parametrize("script, message", [
    ("__EndOfList__(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);",
     "__EndOfList__ is CALLFUNC index 100000, out of range (1..32767: compact p-code stores the index as a "
     "signed 16-bit number, so the call would reach another function or none)"),
    ("result = Mod_Far(1);",
     "Mod_Far is CALLFUNC index 40000, out of range (1..32767: compact p-code stores the index as a signed "
     "16-bit number, so the call would reach another function or none)"),
    ("Floor_Wide(1, 2);",
     "Floor_Wide is line special 300, out of range for ViZDoom's engine (0..255: acc calls a higher number "
     "with LSPEC5EX, which the engine lacks)"),
    ("result = MOD_NEXT;",
     "'MOD_NEXT' is #defined from 'APROP_Counter0', which is not available in ViZDoom's engine: "
     "SetActorProperty/GetActorProperty know properties 0..43 only"),
])
def test_a_call_the_vizdoom_target_cannot_encode_is_refused_where_it_is_made(project, script, message):
    level = odd_mod(project, script)
    with pytest.raises(AcsError) as info:
        compile_file(level)
    assert info.value.message == message
    column = 5 + (script.index("= ") + 2 if "= " in script else 0)  # the call, or the name used
    assert (info.value.file, info.value.line, info.value.col) == (str(level), 11, column)
    assert compile_file(level, target="zdoom")  # acc's bytes (LSPEC5EX; the index's low 16 bits)


def test_a_callfunc_index_over_32767_is_written_as_each_encoding_holds_it(project):
    level = odd_mod(project, "__EndOfList__(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);")

    def calls(**options) -> list:
        return [i.operands for i in parse_behavior(compile_file(level, **options)).instructions
                if i.name == "CALLFUNC"]

    # ACSE (acc's -h and #nocompact) stores the index in four bytes, which the engine reads whole: the call
    # compiles for both targets (the engine returns 0 for an index it lacks, as for any function of a mod's list).
    for target in builtins.TARGETS:
        assert calls(target=target, hexen="warn") == [[2, 9001], [10, 100000]]
    # Compact code for the zdoom target: acc's i16, 100000's low 16 bits (the vizdoom target refuses the call).
    assert calls(target="zdoom") == [[2, 9001], [10, 100000 - 0x20000]]


@pytest.mark.parametrize("target", builtins.TARGETS)
@pytest.mark.parametrize("script, message", [
    ("Mod_Many(1, 2, 3, 4, 5, 6);", "Mod_Many is declared to take up to 8 arguments, but a line special takes at "
                                    "most 5 (LSPEC1..LSPEC5); 6 given"),
    ("Mod_Backwards(1, 2);", "Mod_Backwards cannot be called: its declaration's minimum of 3 arguments is above "
                             "its maximum of 2"),
    (f"Mod_Huge({', '.join(['1'] * 256)});", "Mod_Huge is given 256 arguments; compact p-code counts a "
                                             "CALLFUNC's arguments in one byte, so at most 255"),
])
def test_a_call_no_target_can_encode_is_refused_and_a_call_within_the_limits_compiles(project, target, script,
                                                                                       message):
    with pytest.raises(AcsError) as info:
        compile_file(odd_mod(project, script), target=target)
    assert (info.value.message, info.value.line, info.value.col) == (message, 11, 5)
    within = {"Mod_Many": "Mod_Many(1, 2, 3, 4, 5);", "Mod_Huge": "Mod_Huge(1, 2);"}.get(script.split("(")[0])
    if within:
        assert compile_file(odd_mod(project, within), target=target)


def test_a_full_header_in_accs_syntax_gives_accs_objects_for_the_golden_files(tmp_path):
    """zspecial.acs and zdefs.acs written from the zdoom target's tables (acc 1.58's names, numbers and argument
    counts), read from an -i folder in place of the built-ins, give acc's objects byte for byte."""
    tables = builtins.ZDOOM
    calls = [(e.number, e) for e in tables.specials.values()] + [(-e.index, e) for e in tables.callfuncs.values()]
    lines = [f"{number}:{e.name}({e.min_args}" + (f",{e.max_args})" if e.max_args != e.min_args else ")")
             for number, e in calls]
    defines = "".join(f"#define {e.name} {e.value}\n" for e in tables.constants.values())
    headers = write(tmp_path / "headers", {"zcommon.acs": MOD_ZCOMMON, "zwvars.acs": "",
                                           "zspecial.acs": "special\n" + ",\n".join(lines) + ";\n",
                                           "zdefs.acs": defines})
    golden = sorted(p for p in DATA.glob("*/*.acs") if p.with_suffix(".o").exists())
    assert len(golden) == 18
    for path in golden:
        hexen = {"hexen.acs": True, "hexenup.acs": "warn"}.get(path.name, False)
        folders = [path.parent / "inc"] if (path.parent / "inc").is_dir() else []
        options = {"target": "zdoom" if path.parent.name == "zdoom" else "vizdoom", "hexen": hexen}
        acc = path.with_suffix(".o").read_bytes()
        assert compile_file(path, include_dirs=folders, **options) == acc, path.name
        assert compile_file(path, include_dirs=[*folders, headers], target="zdoom", hexen=hexen) == acc, path.name


# ---- acc's order, for every include ---------------------------------------------------------------------

PLACES = ("maps", "a", "b", ".")   # the source's folder, -i a, -i b, the current folder


@pytest.mark.parametrize("name", ["defs.acs", "zdefs.acs"])
def test_every_include_is_found_in_accs_order(project, name):
    write(project / "maps", {"level.acs": f'#include "{name}"\nint v = VALUE;\n'})
    for number, place in enumerate(PLACES, start=1):
        write(project / place, {name: f"#define VALUE {number}\n"})
    command = ["-i", "a", "-i", "b", os.path.join("maps", "level.acs")]
    for number, place in enumerate(PLACES, start=1):
        assert acc_main(command) == 0
        assert parse_behavior((project / "maps" / "level.o").read_bytes()).map_var_inits == {0: number}, place
        os.remove(project / place / name)
    assert acc_main(command) == 1
    error = (project / "maps" / "acs.err").read_text()
    if name == "zdefs.acs":   # none found: the built-in copy, which has no VALUE
        assert "unknown constant 'VALUE'" in error
    else:
        assert "cannot find include file 'defs.acs' (searched, in order: 'maps', 'a', 'b', '.')" in error


def test_import_looks_in_the_same_order(project):
    write(project / "maps", {"level.acs": '#import "lib.acs"\nscript 1 OPEN { }\n'})
    for place in PLACES:
        write(project / place, {"lib.acs": f'#library "in{place.strip(".") or "cwd"}"\n'})
    command = ["-i", "a", "-i", "b", os.path.join("maps", "level.acs")]
    for place in PLACES:
        assert acc_main(command) == 0
        assert parse_behavior((project / "maps" / "level.o").read_bytes()).libraries == [
            f"in{place.strip('.') or 'cwd'}"]
        os.remove(project / place / "lib.acs")
    assert acc_main(command) == 1
    assert "cannot find library 'lib.acs' (searched, in order: " in (project / "maps" / "acs.err").read_text()


def test_an_included_file_looks_beside_itself_then_its_includer_beside_itself_again(project):
    # acc's first folder is the folder of the file being read: inc/a.acs finds inc/b.acs before ./b.acs; back
    # in main.acs, its next include is found beside main.acs again (./c.acs before inc/c.acs).
    write(project, {"main.acs": '#include "a.acs"\n#include "c.acs"\nint x = FROM_B;\nint y = FROM_C;\n',
                    "b.acs": "#define FROM_B 1\n", "c.acs": "#define FROM_C 1\n"})
    write(project / "inc", {"a.acs": '#include "b.acs"\n', "b.acs": "#define FROM_B 2\n",
                            "c.acs": "#define FROM_C 2\n"})
    assert acc_main(["-i", "inc", "main.acs"]) == 0
    assert parse_behavior((project / "main.o").read_bytes()).map_var_inits == {0: 2, 1: 1}


def test_a_missing_include_names_the_given_files_and_the_folders(tmp_path):
    with pytest.raises(AcsError) as info:
        compile_source('#include "gone.acs"\n', str(tmp_path / "x.acs"), include_dirs=[tmp_path / "inc"],
                       files={"other.acs": ""})
    assert info.value.message == ("cannot find include file 'gone.acs' (searched, in order: the given files "
                                  f"(other.acs), {str(tmp_path)!r}, {str(tmp_path / 'inc')!r})")


# ---- compile_source: text with no folder of its own ---------------------------------------------------------


def test_compile_source_ignores_headers_in_the_current_folder(project):
    # The envs compile their generated scripts with compile_source(text, "name.acs"): whatever the current
    # folder holds, they get the built-in headers, as before.
    before = compile_source(LEVEL, "level.acs", target="zdoom")
    write(project, {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL.replace("132:", "133:"),
                    "zdefs.acs": ""})
    assert compile_source(LEVEL, "level.acs", target="zdoom") == before
    assert compile_source(LEVEL, target="zdoom") == before
    with pytest.raises(AcsError, match="unknown function 'Mod_Extra'"):
        compile_source(MOD_LEVEL, "level.acs", target="zdoom")
    # Given files stand in for includes and libraries, not for the built-in headers.
    with pytest.raises(AcsError, match="unknown function 'Mod_Extra'"):
        compile_source(MOD_LEVEL, "level.acs", target="zdoom", files={"zspecial.acs": MOD_ZSPECIAL})


def test_compile_source_reads_a_mods_headers_from_its_include_dirs(tmp_path):
    mod = write(tmp_path / "mod", {"zcommon.acs": MOD_ZCOMMON, "zspecial.acs": MOD_ZSPECIAL})
    assert compile_source(MOD_LEVEL, "level.acs", include_dirs=mod, target="zdoom") == expected_mod_object()

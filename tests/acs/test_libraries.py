"""ACS libraries: #library objects and #import'ing objects byte-identical to acc 1.58's (tests/acs/data/libraries,
see its README), and the errors for imports that cannot work. The engine side is in tests/wads/test_libraries.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from wadgym.acs import AcsError, compile_file, compile_source
from wadgym.acs.dis import parse_behavior

DATA = Path(__file__).parent / "data" / "libraries"
GOLDEN = sorted(path.stem for path in DATA.glob("*.acs"))


@pytest.mark.parametrize("name", GOLDEN)
def test_compiles_to_accs_bytes(name):
    compiled = compile_file(DATA / f"{name}.acs", include_dirs=[DATA / "inc"])
    assert compiled == (DATA / f"{name}.o").read_bytes()


def test_the_golden_set_covers_libraries_and_importers():
    assert len(GOLDEN) == 11
    kinds = {name: parse_behavior((DATA / f"{name}.o").read_bytes()) for name in GOLDEN}
    assert {name for name, b in kinds.items() if b.library} == {"mathlib", "core", "shop", "quiet", "longname",
                                                                   "secret"}
    assert kinds["twolibs"].libraries == ["core", "shop"] and kinds["useboth"].libraries == ["averylon", "secret"]


def test_a_library_exports_its_map_variables_and_tags_its_strings():
    lump = parse_behavior(compile_file(DATA / "mathlib.acs"))
    assert lump.exports == ["counter", "table", "grid", "title", "names", "plain", None]  # None: a static local
    assert "TAGSTRING" in {i.name for i in lump.instructions}
    assert lump.dummy_scripts == []          # acc leaves a library's old-style directory empty


def test_names_mentioned_by_a_later_import_are_registered_again_as_acc_does():
    functions = [f.name for f in parse_behavior((DATA / "twolibs.o").read_bytes()).functions]
    assert functions == ["coreadd", "corename", "corereset", "shopbuy", "coreadd", "corereset"]


def test_include_dirs_apply_to_import(tmp_path):
    with pytest.raises(AcsError, match="cannot find library 'dirlib.acs'"):
        compile_file(DATA / "usedir.acs")
    assert compile_file(DATA / "usedir.acs", include_dirs=DATA / "inc") == (DATA / "usedir.o").read_bytes()


def test_files_given_in_memory_are_imported_before_the_disk():
    library = (DATA / "mathlib.acs").read_text()
    source = (DATA / "usemath.acs").read_text()
    assert compile_source(source, "usemath.acs", files={"MathLib.acs": library}) == (DATA / "usemath.o").read_bytes()


def error_at(tmp_path, files: dict[str, str], main: str = "main.acs") -> AcsError:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(AcsError) as info:
        compile_file(tmp_path / main)
    return info.value


LIB = '#library "lib"\nfunction int Get(void) { return 1; }\nint shared;\n#define PRIVATE 2\n#libdefine PUBLIC 3\n'


@pytest.mark.parametrize("main, line, col, message", [
    ('#import "plain.acs"\n', 1, 9, "'plain.acs' is not a library: a file that is #imported must start with a "
                                    "#library \"name\" line"),
    ('#import "missing.acs"\n', 1, 9, "cannot find library 'missing.acs' (searched, in order: "),
    ('#import "main.acs"\n', 1, 9, "main.acs is the file being compiled (or #included by it): it cannot import "
                                   "itself"),
    ('#import "lib.acs"\n#import "lib.acs"\n', 2, 9, "'lib.acs' is already imported (line 1)"),
    ('script 1 OPEN { #import "lib.acs" }\n', 1, 17, "#import must stand outside scripts and functions"),
    ('#import lib\n', 1, 9, "#import needs a file name in double quotes"),
    ('#import "lib.acs"\nint x = PRIVATE;\n', 2, 9, "unknown constant 'PRIVATE'"),
    ('#import "lib.acs"\nscript 1 OPEN { Get(1); }\n', 2, 17, "function 'Get' takes 0 arguments, 1 given"),
    ('script 1 OPEN { Get(); }\n#import "lib.acs"\n', 1, 17, "unknown function 'Get'"),
    ('#import "lib.acs"\nint shared;\n', 2, 5, "'shared' is already defined (as a map variable)"),
    ('#include "zcommon.acs"\n#library "main"\n', 2, 2, "#library must come before anything else"),
    ('#import "late.acs"\n', 2, 2, "#library must come before anything else"),
])
def test_import_errors_point_at_the_spot(tmp_path, main, line, col, message):
    error = error_at(tmp_path, {"lib.acs": LIB, "plain.acs": "int x;\n", "main.acs": main,
                                "late.acs": 'int y;\n#library "late"\n'})
    assert message in error.message, str(error)
    assert (error.line, error.col) == (line, col), str(error)


def test_libdefine_outlives_the_import_and_define_does_not(tmp_path):
    (tmp_path / "lib.acs").write_text(LIB)
    (tmp_path / "main.acs").write_text('#import "lib.acs"\nint x = PUBLIC;\nscript 1 OPEN { shared = Get(); }\n')
    lump = parse_behavior(compile_file(tmp_path / "main.acs"))
    assert lump.map_var_inits == {0: 3} and lump.imports == {1: "shared"} and lump.libraries == ["lib"]


def test_an_error_inside_an_imported_library_points_into_the_library(tmp_path):
    error = error_at(tmp_path, {"lib.acs": '#library "lib"\nint table[UNKNOWN];\n', "main.acs": '#import "lib.acs"\n'})
    assert error.file.endswith("lib.acs") and (error.line, error.col) == (2, 11), str(error)
    assert "unknown constant 'UNKNOWN'" in error.message


def test_importing_libraries_of_each_other_is_no_cycle(tmp_path):
    # acc skips the #import lines of a library it imports, so two libraries may import each other.
    (tmp_path / "a.acs").write_text('#library "a"\n#import "b.acs"\nfunction int A(void) { return B(); }\n')
    (tmp_path / "b.acs").write_text('#library "b"\n#import "a.acs"\nfunction int B(void) { return 2; }\n')
    assert parse_behavior(compile_file(tmp_path / "a.acs")).libraries == ["b"]
    assert parse_behavior(compile_file(tmp_path / "b.acs")).libraries == ["a"]


def test_the_files_own_names_keep_their_one_place_after_an_import(tmp_path):
    # acc gives a function or map variable the file declared before an #import a second FUNC entry or a
    # fresh map slot at its next mention (losing the variable's value); wadgym keeps one (README).
    (tmp_path / "lib.acs").write_text(LIB)
    (tmp_path / "main.acs").write_text('int mine = 5;\nfunction int Own(void) { return mine; }\n#import "lib.acs"\n'
                                       'script 1 OPEN { mine = Own() + Get(); }\n')
    lump = parse_behavior(compile_file(tmp_path / "main.acs"))
    assert [f.name for f in lump.functions] == ["own", "get"]
    assert lump.map_var_inits == {0: 5} and lump.imports == {}
    assigns = [i.operands for i in lump.instructions if i.name == "ASSIGNMAPVAR"]
    assert assigns == [[0]]


@pytest.mark.parametrize("files", [["lib.acs"], {"lib.acs": 5}, {3: "x"}])
def test_files_must_map_names_to_sources(files):
    with pytest.raises(TypeError, match="files"):
        compile_source("script 1 OPEN { }", files=files)

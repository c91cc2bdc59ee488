"""The acc-compatible command line (python -m wadgym.acs / wadgym-acc) and `wadgym acs compile|dis`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from wadgym.acs import compile_source
from wadgym.acs.__main__ import main as acc_main
from wadgym.cli import main as wadgym_main

SOURCE = '#include "zcommon.acs"\nglobal int 0:reward;\nscript 1 OPEN { reward = 5.0; Print(s:"hi"); }\n'


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "map.acs").write_text(SOURCE)
    return tmp_path


def test_default_output_name_is_the_source_with_o(project, capsys):
    assert acc_main(["map.acs"]) == 0
    assert (project / "map.o").read_bytes() == compile_source(SOURCE)
    assert not list(project.glob(".*.tmp"))


def test_extensions_are_added_like_acc(project):
    assert acc_main(["map", "out"]) == 0
    assert (project / "out.o").exists()


def test_a_map_editor_can_build_a_library_and_its_importer_as_with_acc(project):
    golden = os.path.join(os.path.dirname(__file__), "data", "libraries")
    for name in ("mathlib.acs", "usemath.acs", "usedir.acs"):
        shutil.copy(os.path.join(golden, name), project)
    (project / "libs").mkdir()
    shutil.copy(os.path.join(golden, "inc", "dirlib.acs"), project / "libs")
    assert acc_main(["mathlib.acs"]) == 0 and acc_main(["usemath"]) == 0 and acc_main(["-i", "libs", "usedir"]) == 0
    for name in ("mathlib", "usemath", "usedir"):
        with open(os.path.join(golden, f"{name}.o"), "rb") as acc_output:
            assert (project / f"{name}.o").read_bytes() == acc_output.read()


def test_include_dirs_with_and_without_space(project):
    (project / "inc").mkdir()
    (project / "inc" / "defs.acs").write_text("#define VALUE 42\n")
    (project / "uses.acs").write_text('#include "defs.acs"\nint v = VALUE;\n')
    assert acc_main(["-i", "inc", "uses.acs", "a.o"]) == 0
    assert acc_main(["-iinc", "uses.acs", "b.o"]) == 0
    assert (project / "a.o").read_bytes() == (project / "b.o").read_bytes()
    assert acc_main(["uses.acs", "c.o"]) == 1


def test_error_exit_stderr_and_acs_err(project, capsys):
    (project / "bad.acs").write_text("script 1 OPEN { nope(); }\n")
    (project / "bad.o").write_bytes(b"old")
    assert acc_main(["bad.acs"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("bad.acs:1:17: error: unknown function 'nope'")
    assert (project / "bad.o").read_bytes() == b"old"
    assert (project / "acs.err").read_text().startswith('Line 1 in file "bad.acs" ...\nbad.acs:1: ')
    assert acc_main(["map.acs"]) == 0
    assert not (project / "acs.err").exists()


def test_the_current_folder_is_searched_after_the_i_folders_as_acc_does(project):
    (project / "maps").mkdir()
    (project / "shared.acs").write_text("#define SHARED 7\n")
    (project / "maps" / "level.acs").write_text('#include "shared.acs"\nint v = SHARED;\n')
    assert acc_main([os.path.join("maps", "level.acs")]) == 0
    assert (project / "maps" / "level.o").exists()


def test_bad_arguments(project, capsys):
    assert acc_main([]) == 1
    assert acc_main(["-x", "map.acs"]) == 1
    assert acc_main(["--target", "gzdoom", "map.acs"]) == 1
    assert acc_main(["a.acs", "b.o", "c.o"]) == 1
    assert "usage: wadgym-acc" in capsys.readouterr().err


def test_help_names_the_default_target_and_why_d_is_refused(capsys):
    assert acc_main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--target zdoom   (the default, as acc)" in out and "-d[FILE]         refused" in out


def test_debug_file_option_is_refused_with_the_reason(project, capsys):
    assert acc_main(["-ddebug.txt", "map.acs"]) == 1
    assert "-d (acc's debug listing) is not written by wadgym-acc" in capsys.readouterr().err
    assert not (project / "map.o").exists() and not (project / "debug.txt").exists()


def test_wadgym_acc_defaults_to_the_zdoom_target_and_wadgym_acs_compile_to_vizdoom(project, capsys):
    (project / "spec.acs").write_text('#include "zcommon.acs"\nscript 1 KILL { ConsoleCommand("echo"); }\n')
    assert acc_main(["spec.acs"]) == 0
    assert (project / "spec.o").read_bytes() == compile_source((project / "spec.acs").read_text(), target="zdoom")
    assert acc_main(["--target", "vizdoom", "spec.acs", "viz.o"]) == 1
    assert "KILL scripts are not supported by ViZDoom's engine" in (project / "acs.err").read_text()
    assert wadgym_main(["acs", "compile", "spec.acs", "cli.o"]) == 1
    assert wadgym_main(["acs", "compile", "--target", "zdoom", "spec.acs", "cli.o"]) == 0
    assert (project / "cli.o").read_bytes() == (project / "spec.o").read_bytes()


def test_hexen_options_as_acc(project, capsys):
    data = os.path.join(os.path.dirname(__file__), "data", "zdoom")
    for name in ("hexen", "hexenup"):
        shutil.copy(os.path.join(data, f"{name}.acs"), project)
    assert acc_main(["-h", "hexen.acs"]) == 0
    assert acc_main(["-h", "hexenup.acs"]) == 1
    assert "not compatible with Hexen's p-code" in (project / "acs.err").read_text()
    capsys.readouterr()
    assert acc_main(["-hh", "hexenup.acs"]) == 0
    assert "These scripts have been upgraded because they use new features." in capsys.readouterr().err
    for name in ("hexen", "hexenup"):
        with open(os.path.join(data, f"{name}.o"), "rb") as acc_output:
            assert (project / f"{name}.o").read_bytes() == acc_output.read()


def test_acs_err_has_accs_shape_and_lines(project):
    """acc's acs.err for a missing semicolon (data/errors): the same location lines; the message is ours."""
    errors = os.path.join(os.path.dirname(__file__), "data", "errors")
    shutil.copy(os.path.join(errors, "semicolon.acs"), project)
    assert acc_main(["semicolon.acs"]) == 1
    with open(os.path.join(errors, "semicolon.err"), newline="") as file:
        accs = file.read().split("\n")
    ours = (project / "acs.err").read_bytes().decode().split("\n")
    assert len(ours) == len(accs) == 5 and ours[-1] == ""
    assert ours[0] == accs[0] == 'Line 7 in file "semicolon.acs" ...'
    assert ours[1].startswith("semicolon.acs:7: ") and accs[1].startswith("semicolon.acs:7: ")
    assert ours[2:] == accs[2:] == [">  Delay(", ">      ^", ""]


def test_acs_err_is_written_beside_the_source_not_in_the_current_folder(project):
    (project / "maps").mkdir()
    (project / "maps" / "bad.acs").write_text("script 1 OPEN\n{\n  nope();\n}\n")
    assert acc_main([os.path.join("maps", "bad.acs")]) == 1
    assert not (project / "acs.err").exists()
    lines = (project / "maps" / "acs.err").read_text().splitlines()
    name = os.path.join("maps", "bad.acs")
    assert lines[0] == f'Line 3 in file "{name}" ...' and lines[1].startswith(f"{name}:3: unknown function 'nope'")
    assert lines[2:] == [">   nope(", ">      ^"]


def test_console_script_and_module_run(project):
    runs = [[sys.executable, "-m", "wadgym.acs", "map.acs", "module.o"]]
    script = shutil.which("wadgym-acc", path=os.path.dirname(sys.executable))
    if script:
        runs.append([script, "map.acs", "script.o"])
    for command in runs:
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert (project / command[-1]).read_bytes() == compile_source(SOURCE)
    assert script, "the wadgym-acc console script is not installed"


def test_wadgym_acs_compile_and_dis(project, capsys):
    assert wadgym_main(["acs", "compile", "map.acs", "cli.o"]) == 0
    assert (project / "cli.o").read_bytes() == compile_source(SOURCE)
    capsys.readouterr()
    assert wadgym_main(["acs", "dis", "cli.o"]) == 0
    listing = capsys.readouterr().out
    assert "SPTR" in listing and '"hi"' in listing and "ENDPRINT" in listing
    assert wadgym_main(["acs", "dis", "map.acs"]) == 1
    assert "error" in capsys.readouterr().err


def test_text_after_a_del_byte_is_ignored_as_acc_does_and_said(project, capsys):
    source = project / "binary.acs"
    source.write_bytes(b'script 1 OPEN { print(s:"hi"); }\n\x7f\x00\x01\x02 binary tail')
    assert acc_main([str(source), str(project / "binary.o")]) == 0
    err = capsys.readouterr().err
    assert "binary.acs:2:1: warning: a DEL byte (0x7F) ends the source here" in err
    assert "the 15 bytes after it were ignored" in err
    assert (project / "binary.o").read_bytes() == compile_source('script 1 OPEN { print(s:"hi"); }\n')


def test_object_files_get_the_usual_permissions(project):
    mask = os.umask(0o022)
    os.umask(mask)
    (project / "plain.acs").write_text("script 1 OPEN { }\n")
    assert acc_main([str(project / "plain.acs")]) == 0
    assert (project / "plain.o").stat().st_mode & 0o777 == 0o666 & ~mask


def test_acs_err_without_a_position_is_the_message_alone_as_acc(project):
    assert acc_main(["missing.acs"]) == 1
    text = (project / "acs.err").read_text()
    assert text.startswith("cannot read 'missing.acs': ") and text.count("\n") == 1


def test_the_wadgym_acc_command_starts_without_gymnasium(project):
    """A map editor starts wadgym-acc once per compile: the command registers no env, so gymnasium and numpy
    stay unimported; any other process that imports wadgym has the envs registered."""
    probe = ("import sys; sys.argv[0] = {name!r}; import wadgym.acs.__main__; "
             "print('gymnasium' in sys.modules, 'numpy' in sys.modules)")
    for name, expected in (("/usr/bin/wadgym-acc", "False False"), ("script.py", "True True")):
        out = subprocess.run([sys.executable, "-c", probe.format(name=name)], capture_output=True, text=True,
                             check=True, cwd=project).stdout.split("\n")[0]
        assert out == expected, name

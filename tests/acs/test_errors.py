"""Compile errors: where they point, what they say, and that nothing but AcsError escapes."""

from __future__ import annotations

import pytest

from wadgym.acs import AcsError, compile_file, compile_source
from wadgym.acs.dis import parse_behavior

Z = '#include "zcommon.acs"\n'


def error_of(source, **kwargs) -> AcsError:
    with pytest.raises(AcsError) as info:
        compile_source(source, "bad.acs", **kwargs)
    return info.value


def test_message_format_points_at_the_spot():
    error = error_of(Z + "script 1 OPEN\n{\n\tSetActorProprety(0, APROP_Health, 5);\n}\n")
    assert (error.file, error.line, error.col) == ("bad.acs", 4, 2)
    lines = str(error).split("\n")
    assert lines[0] == ("bad.acs:4:2: error: unknown function 'SetActorProprety' "
                        "(did you mean 'SetActorProperty'?)")
    assert lines[1] == "\tSetActorProprety(0, APROP_Health, 5);"
    assert lines[2] == "\t^"


@pytest.mark.parametrize("source, line, col, message", [
    (Z + "int x;\nscript 1 OPEN { x = y; }", 3, 21, "unknown name 'y'"),
    (Z + "int count;\nscript 1 OPEN { cuont = 1; }", 3, 17, "unknown variable 'cuont' (did you mean 'count'?)"),
    (Z + "script 1 OPEN { int v = APROP_Healht; }", 2, 25, "did you mean 'APROP_Health'?"),
    ("script 1 OPEN { Thing_Remove(1); }", 1, 17, 'it is declared in zspecial.acs; add #include "zcommon.acs"'),
    ("script 1 OPEN { Thing_Remov(1); }", 1, 17, "did you mean 'Thing_Remove'? it needs #include"),
    (Z + "script 1 OPEN { ConsoleCommand(\"quit\"); }", 2, 17, "'ConsoleCommand' is not available in ViZDoom's engine"),
    (Z + "script 1 OPEN { SetMusicVolume(1.0); }", 2, 17, "'SetMusicVolume' is not available in ViZDoom's engine"),
    (Z + "script 1 OPEN { Line_Horizon(); }", 2, 17, "'Line_Horizon' is not available"),
    (Z + "script 1 OPEN { Thing_Remove(1, 2); }", 2, 17, "Thing_Remove takes 1 argument, 2 given"),
    (Z + "script 1 OPEN { SetActorProperty(0, 1); }", 2, 17, "SetActorProperty takes 3 arguments, 2 given"),
    (Z + "script 1 OPEN { int x = Spawn(\"Clip\"); }", 2, 25, "Spawn takes 4 to 6 arguments, 1 given"),
    (Z + "script 1 OPEN { PlaySound(0, \"a\", 0, 1.0, 0, 1.0, 0); }", 2, 17,
     "PlaySound takes 2 to 6 arguments, 7 given (acc would accept up to 7, but ViZDoom's engine reads only 6)"),
    (Z + "function int f(int a) { return a; }\nscript 1 OPEN { f(1, 2); }", 3, 17, "takes 1 argument, 2 given"),
    (Z + "function void f(void) { }\nscript 1 OPEN { int x = f(); }", 3, 25, "function 'f' is void"),
    (Z + "function int f(void) { if (1) return 1; }", 2, 41, "function 'f' must return a value"),
    (Z + "function void f(void) { delay(1); }", 2, 25, "Delay waits, so it cannot be used inside a function"),
    (Z + "function void f(void) { terminate; }", 2, 25, "'terminate' cannot be used inside a function"),
    (Z + "script 1 OPEN { return; }", 2, 17, "'return' outside a function"),
    (Z + "script 1 OPEN { break; }", 2, 17, "'break' outside a loop or switch"),
    (Z + "script 1 OPEN { switch (1) { case 1: continue; } }", 2, 38, "'continue' outside a loop"),
    (Z + "script 1 OPEN { case 1: ; }", 2, 17, "'case' outside a switch"),
    (Z + "script 1 OPEN { switch (1) { case 2: case 2: ; } }", 2, 43, "duplicate case value 2"),
    (Z + "script 1 OPEN { int a; int a; }", 2, 28, "'a' is already declared"),
    (Z + "int v;\nscript 1 OPEN { int v; }", 3, 21, "'v' is already defined globally"),
    (Z + "script 1 OPEN { }\nscript 1 ENTER { }", 3, 8, "script 1 is already defined (line 2)"),
    (Z + "script 0 OPEN { }", 2, 8, "script 0 must be written <<0>>"),
    (Z + "script 40000 OPEN { }", 2, 8, "script number 40000 is out of range"),
    (Z + "script 1 (int a, int b, int c, int d, int e) { }", 2, 43, "at most 4 arguments"),
    (Z + "script 1 (int a) OPEN { }", 2, 15, "OPEN scripts take no arguments"),
    (Z + "script 1 DISCONNECT { }", 2, 1, "DISCONNECT script takes exactly one argument"),
    (Z + "script 1 KILL { }", 2, 1, "KILL scripts are not supported"),
    (Z + "global int 64:g;", 2, 12, "global variable number 64 is out of range (0..63)"),
    (Z + "int a[2] = { 1, 2, 3 };", 2, 20, "too many initializers for 'a'"),
    (Z + "int a[0];", 2, 7, "array size must be positive"),
    (Z + "int x = 1 / 0;", 2, 11, "division by zero in a constant expression"),
    (Z + "int y; int x = y;", 2, 16, "must be a constant expression"),
    (Z + "int arr[3];\nscript 1 OPEN { arr = 1; }", 3, 17, "'arr' is an array"),
    (Z + "int arr[3][3];\nscript 1 OPEN { arr[1] = 1; }", 3, 17, "'arr' has 2 dimensions; 1 index given"),
    (Z + "script 1 OPEN { APROP_Health = 1; }", 2, 17, "cannot assign to 'APROP_Health': it is a constant"),
    (Z + "script 1 OPEN { Print(q:1); }", 2, 23, "expected a print item"),
    (Z + "script 1 OPEN { int x = 1 }", 2, 27, "expected ';' after the declaration, found '}'"),
    (Z + "script 1 OPEN { if (1 { } }", 2, 23, "expected ')', found '{'"),
    (Z + "script 1 OPEN {", 2, 15, "this '{' is never closed"),
    (Z + "script 1 OPEN { else; }", 2, 17, "'else' without a matching 'if'"),
    (Z + "int while;", 2, 5, "'while' is a reserved word"),
    (Z + "#nocompact\nscript 1 OPEN { }\n#nocompact", 4, 2, "#nocompact must come before"),
    (Z + "#pragma once", 2, 1, "unknown directive '#pragma'"),
    (Z + 'script 1 OPEN { Print(s:"abc); }', 2, 25, "unterminated string"),
    (Z + "script 1 OPEN { int x = 3 $ 4; }", 2, 27, "unexpected character '$'"),
    (Z + "script 1 OPEN { int x = 8_9; }", 2, 27, "digit '9' is not valid in base 8"),
    (Z + "script 1 OPEN { int x = GetActorX; }", 2, 25, "'GetActorX' is a built-in function; call it with ( )"),
    (Z + 'script 1 OPEN { ACS_NamedExecuteWait("a", 0); }\nfunction void f(void) { ACS_ExecuteWait(1, 0); }',
     3, 25, "ACS_ExecuteWait waits"),
])
def test_errors(source, line, col, message):
    error = error_of(source)
    assert message in error.message, str(error)
    assert (error.line, error.col) == (line, col), str(error)


def test_include_resolution_cycles_and_missing_files(tmp_path):
    (tmp_path / "defs.acs").write_text('#define SHARED 7\n#include "sub/more.acs"\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more.acs").write_text("#define MORE 8\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "lib.acs").write_text("int from_lib = SHARED + MORE;\n")
    main = tmp_path / "main.acs"
    main.write_text('#include "zcommon.acs"\n#include "defs.acs"\n#include "lib.acs"\nscript 1 OPEN { }\n')
    lump = compile_file(main, include_dirs=[other])
    assert b"MINI" in lump and (15).to_bytes(4, "little") in lump

    (tmp_path / "a.acs").write_text('#include "b.acs"\n')
    (tmp_path / "b.acs").write_text('#include "a.acs"\n')
    with pytest.raises(AcsError) as info:
        compile_file(tmp_path / "a.acs")
    assert "include cycle: a.acs -> b.acs -> a.acs" in info.value.message
    assert info.value.file.endswith("b.acs") and info.value.line == 1

    with pytest.raises(AcsError) as info:
        compile_file(main, include_dirs=[])
    assert "cannot find include file 'lib.acs'" in info.value.message

    with pytest.raises(AcsError) as info:
        compile_file(tmp_path / "missing.acs")
    assert "cannot read" in str(info.value)


def test_include_inside_a_script_is_refused():
    assert "#include must stand outside" in error_of('script 1 OPEN { #include "x.acs" }').message


@pytest.mark.parametrize("source", [
    b"\xff\xfe\x00garbage",
    b"script 1 OPEN { Print(s:\"\xe9\xff\"); }",
    "script 1 OPEN { int x = " + "(" * 5000 + "1" + ")" * 5000 + "; }",
    "script 1 OPEN { int x = " + "-" * 5000 + "1; }",
    "script 1 OPEN { " + "if (1) " * 3000 + "; }",
    "script 1 OPEN { " + "{" * 3000 + "}" * 3000 + " }",
    "int a[99999999][99999999];",
    "int a[2147483647];",
    "script 99999999999999999999999999 OPEN {}",
    "#define X 1\n#define X 2",
    "\x00\x01\x02\x7f",
    "script \"\ud800\" OPEN {}",
    "",
])
def test_nothing_but_acs_error_escapes(source):
    try:
        lump = compile_source(source, "odd.acs")
    except AcsError as error:
        assert "internal compiler error" not in str(error)
    else:
        assert lump[:4] == b"ACS\0"


def test_long_operator_chains_compile():
    lump = compile_source("int x;\nscript 1 OPEN { x = " + " + ".join(["1"] * 20000) + "; }")
    assert lump.count(bytes((0x0E,))) >= 19999  # one ADD per '+'


def test_a_comment_left_open_runs_to_the_end_of_the_file_as_in_acc():
    assert compile_source(Z + "int x = 1;\n/* script 1 OPEN { bad syntax") == compile_source(Z + "int x = 1;")


def test_bytes_and_str_sources_give_the_same_lump():
    text = '#include "zcommon.acs"\nscript 1 OPEN { Print(s:"caf\u00e9"); }\n'
    assert compile_source(text) == compile_source(text.encode("utf-8"))
    assert "caf\u00e9".encode("utf-8") in compile_source(text)
    # bytes that are not UTF-8 reach the string table unchanged
    assert b"\xe9\xff" in compile_source(b'script 1 OPEN { Print(s:"\xe9\xff"); }')


@pytest.mark.parametrize("literal", ["'\\x'", "'\\X'", "'\\q'", "'\\8'", "'\\\t'"])
def test_bad_escapes_in_character_constants(literal):
    error = error_of(Z + f"script 1 OPEN {{ int x = {literal}; }}")
    assert "bad character constant" in error.message and (error.line, error.col) == (2, 25), str(error)


def test_control_character_in_a_character_constant_is_a_space():
    assert compile_source("int x = '\t';") == compile_source("int x = ' ';")
    assert compile_source("int x = '\\t';") != compile_source("int x = ' ';")


def _function(params: int, locals_: int, nocompact: bool = False) -> str:
    args = ", ".join(f"int p{i}" for i in range(params)) or "void"
    body = " ".join(f"int v{i};" for i in range(locals_))
    return ("#nocompact\n" if nocompact else "") + f"function void f({args}) {{ {body} v{locals_ - 1} = p0; }}\n"


def test_function_variables_past_one_byte_are_refused_in_compact_code():
    error = error_of(_function(10, 247))
    assert error.message == ("function 'f' has 257 variables (10 arguments and 247 locals); compact p-code "
                             "numbers them in one byte, so at most 256 (use fewer, or #nocompact)"), str(error)
    assert (error.line, error.col) == (1, _function(10, 247).index("v246") + 1)
    compile_source(_function(10, 246))


def test_function_variables_in_four_byte_code():
    from wadgym.acs.dis import parse_behavior

    behavior = parse_behavior(compile_source(_function(10, 250, nocompact=True)))
    assert (behavior.functions[0].argc, behavior.functions[0].local_count) == (10, 250)
    assigns = [i.operands for i in behavior.instructions if i.name == "ASSIGNSCRIPTVAR"]
    assert assigns == [[259]]   # v249 is slot 259, not 259 & 255 = p3
    error = error_of(_function(1, 256, nocompact=True))
    assert "function 'f' has 256 locals; the FUNC table holds at most 255" in error.message, str(error)
    error = error_of(_function(256, 1, nocompact=True))
    assert "function 'f' takes more than 255 arguments" in error.message, str(error)
    assert (error.line, error.col) == (2, _function(256, 1).index("p255") + 1)


def test_script_variables_past_one_byte_are_refused_in_compact_code():
    body = " ".join(f"int v{i};" for i in range(257))
    error = error_of(f"script 1 OPEN {{ {body} }}")
    assert error.message == ("script 1 has 257 variables; compact p-code numbers them in one byte, so at "
                             "most 256 (use fewer, or #nocompact)"), str(error)
    named = error_of(f'script "many" OPEN {{ {body} }}')
    assert named.message.startswith('script "many" has 257 variables')
    compile_source(f"#nocompact\nscript 1 OPEN {{ {body} }}")


@pytest.mark.parametrize("dirs", ["inc", "path"])
def test_include_dirs_may_be_one_folder(tmp_path, dirs):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.acs").write_text("#define SEVEN 7\n")
    (tmp_path / "main.acs").write_text('#include "defs.acs"\nint x = SEVEN;\n')
    folder = tmp_path / "inc" if dirs == "path" else str(tmp_path / "inc")
    lump = compile_source('#include "defs.acs"\nint x = SEVEN;\n', include_dirs=folder)
    assert lump == compile_file(tmp_path / "main.acs", include_dirs=folder)
    assert (7).to_bytes(4, "little") in lump


@pytest.mark.parametrize("call, message", [
    ("Floor_LowerByValue(1);", "Floor_LowerByValue takes 3 arguments, 1 given"),
    ("UsePuzzleItem();", "UsePuzzleItem takes 2 to 5 arguments, 0 given"),
    ("PlaySound(0, \"a\", 0, 1.0, 0, 1.0, 0);", "PlaySound takes 2 to 6 arguments, 7 given (acc would accept "
                                               "up to 7, but ViZDoom's engine reads only 6)"),
])
def test_the_acc_note_only_explains_too_many_arguments(call, message):
    assert error_of(Z + f"script 1 OPEN {{ {call} }}").message == message


@pytest.mark.parametrize("raised, message", [
    (RecursionError, "bad.acs: error: program nested too deeply to compile"),
    (ValueError("boom"), "bad.acs: error: internal compiler error (ValueError: boom); please report it"),
])
def test_errors_without_a_position_name_the_file(monkeypatch, tmp_path, raised, message):
    from wadgym.acs import checks

    def fail(self, program):
        raise raised

    monkeypatch.setattr(checks.Checker, "check", fail)
    assert str(error_of("script 1 OPEN { }")) == message
    (tmp_path / "bad.acs").write_text("script 1 OPEN { }")
    with pytest.raises(AcsError) as info:
        compile_file(tmp_path / "bad.acs")
    assert str(info.value) == message.replace("bad.acs", str(tmp_path / "bad.acs"))


def test_callfunc_index_is_a_signed_16_bit_number_in_compact_code():
    compile_source("special -32767:Last(0, 1);\nscript 1 OPEN { Last(1); }")
    error = error_of("special -32768:TooFar(0, 1);\nscript 1 OPEN { TooFar(1); }")
    assert error.message == ("TooFar is CALLFUNC index 32768, out of range (1..32767: compact p-code stores the "
                             "index as a signed 16-bit number, so the call would reach another function or none)")
    assert (error.line, error.col) == (2, 17)
    # ACSE (#nocompact, -h) stores the index in four bytes, which the engine reads whole.
    calls = [i.operands for i in parse_behavior(compile_source("#nocompact\nspecial -32768:TooFar(0, 1);\n"
                                                                "script 1 OPEN { TooFar(1); }")).instructions
             if i.name == "CALLFUNC"]
    assert calls == [[1, 32768]]


def test_a_special_declared_with_no_maximum_takes_no_arguments_whatever_its_minimum():
    # acc's LeadingLineSpecial reads a maximum of 0 as "no arguments" (called with one constant 0) before it
    # looks at the minimum, so the declaration (1, 0) compiles as (0).
    script = "script 1 OPEN { Mod_None(); }"
    assert compile_source(f"special 10:Mod_None(1, 0);\n{script}") == \
        compile_source(f"special 10:Mod_None(0);\n{script}")
    assert error_of("special 10:Mod_None(1, 0);\nscript 1 OPEN { Mod_None(1); }").message == \
        "Mod_None takes 0 arguments, 1 given"

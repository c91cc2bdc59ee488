"""acc-compatible command line: ``wadgym-acc [options] source[.acs] [object[.o]]`` (also ``python -m wadgym.acs``).

It takes acc 1.58's arguments, names its output as acc does, exits 0 on success and 1 on any error, and on an
error writes ``acs.err`` in acc's shape beside the source, where map editors (SLADE, Ultimate Doom Builder) read
it; a successful compile removes a stale one. The engine target defaults to ``zdoom`` (what acc compiles); the
environments compile with ``vizdoom``.
"""

from __future__ import annotations

import os
import sys

from wadgym.files import write_atomic

from . import AcsError, compile_file

USAGE = """usage: wadgym-acc [options] source[.acs] [object[.o]]
Compiles ACS like acc 1.58 (same arguments, output names, exit status 0/1, and acs.err beside the source on
an error), without a C toolchain. #include and #import files are looked for as acc does: beside the file
that names them, then in each -i folder in order, then in the current folder. zcommon.acs, zdefs.acs,
zspecial.acs and zwvars.acs are built in, in place of acc's own copies, so a file of one of these names
found in those folders (a mod's own zspecial.acs) is read instead, as acc reads it.

  -i DIR           also look for #include and #import files in DIR (after the source's own folder;
                   repeatable; -iDIR works too)
  -h               Hexen-compatible p-code, as acc -h: an error if the scripts need a newer feature
  -hh              like -h, but upgrade to ZDoom's format with a warning instead
  -d[FILE]         refused: wadgym-acc does not write acc's debug listing (acc's internal parser trace,
                   which no editor reads); list the compiled object with `wadgym acs dis OBJECT.o`
  --target zdoom   (the default, as acc) everything acc 1.58 compiles with its stock headers, with acc's
                   bytes: for mods that run in GZDoom or Zandronum
  --target vizdoom refuse what ViZDoom's engine cannot run (functions, specials and script types it
                   lacks), as wadgym's environments compile
  --help           this text"""


class UsageError(ValueError):
    """Arguments that make no sense; the message says which."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if any(arg in ("--help", "-?", "/?") for arg in args):
        print(USAGE)
        return 0
    try:
        options = parse_args(args)
    except UsageError as exc:
        _say(f"wadgym-acc: {exc}\n{USAGE}")
        return 1
    # acc looks in the including file's folder, then the -i folders, then the current folder, then (on Unix)
    # /usr/local/share/acc/ and its own folder: those last two hold acc's headers, which are built in here.
    include_dirs = [*options["include_dirs"], "."]
    return compile_to_file(options["source"], options["output"], include_dirs, error_file=True,
                           target=options["target"], hexen=options["hexen"])


def parse_args(args: list[str]) -> dict:
    """acc-style arguments as {source, output, include_dirs, target, hexen}; UsageError when they make no
    sense."""
    files: list[str] = []
    include_dirs: list[str] = []
    target = "zdoom"
    hexen: bool | str = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--target"):
            if "=" in arg:
                target = arg.split("=", 1)[1]
            elif i + 1 < len(args):
                i += 1
                target = args[i]
            else:
                raise UsageError("--target needs zdoom or vizdoom")
            if target not in ("zdoom", "vizdoom"):
                raise UsageError(f"unknown target {target!r} (valid: zdoom, vizdoom)")
        elif arg.startswith("-") and len(arg) > 1:
            option = arg[1].upper()
            if option == "I":
                if len(arg) > 2:
                    include_dirs.append(arg[2:])
                elif i + 1 < len(args):
                    i += 1
                    include_dirs.append(args[i])
                else:
                    raise UsageError("-i needs a directory")
            elif option == "H":
                if arg[2:].upper() not in ("", "H"):
                    raise UsageError(f"unknown option {arg} (-h or -hh)")
                hexen = "warn" if arg[2:] else True
            elif option == "D":
                raise UsageError("-d (acc's debug listing) is not written by wadgym-acc: it is acc's internal "
                                 "parser trace, which no editor reads; list the compiled object with "
                                 "`wadgym acs dis OBJECT.o` instead")
            else:
                raise UsageError(f"unknown option {arg}")
        else:
            files.append(arg)
        i += 1
    if not files or len(files) > 2:
        raise UsageError("give one source file and at most one output file")
    source = _suggest_extension(files[0], ".acs")
    output = _suggest_extension(files[1], ".o") if len(files) == 2 else _strip_extension(source) + ".o"
    return {"source": source, "output": output, "include_dirs": include_dirs, "target": target, "hexen": hexen}


def _name_start(path: str) -> int:
    """Where the file name starts (after the last / or \\, acc's directory delimiters)."""
    return max(path.rfind("/"), path.rfind("\\")) + 1


def _suggest_extension(path: str, extension: str) -> str:
    """acc's MS_SuggestFileExt: add ``extension`` when the file name has no '.' at all."""
    return path if "." in path[_name_start(path) + 1:] else path + extension


def _strip_extension(path: str) -> str:
    """acc's MS_StripFileExt: cut the file name at its last '.'."""
    start = _name_start(path)
    dot = path.rfind(".", start + 1)
    return path[:dot] if dot > 0 else path


def error_file_path(source: str) -> str:
    """acc's acs.err: in the source's folder as the source was named (the current folder for a bare name)."""
    return source[:_name_start(source)] + "acs.err"


def compile_to_file(source: str, output: str, include_dirs=(), error_file: bool = False, target: str = "vizdoom",
                    hexen: bool | str = False) -> int:
    """Compile ``source`` into ``output`` (written atomically); returns the exit status. With ``error_file``,
    a failure also writes acs.err (error_file_path) and a success removes it, as acc does."""
    err_path = error_file_path(source)
    try:
        data = compile_file(source, include_dirs, target=target, hexen=hexen)
        _warn_ignored_tail(source)
        if hexen == "warn" and _upgraded(data):
            _say("\nThese scripts have been upgraded because they use new features.\n"
                 "They will not be compatible with Hexen.")
        write_atomic(output, data)
    except AcsError as exc:
        _say(str(exc))
        if error_file:
            write_error_file(err_path, exc)
        return 1
    except OSError as exc:
        message = f"{output}: error: cannot write the object file: {exc.strerror or exc}"
        _say(message)
        if error_file:
            write_error_file(err_path, AcsError(f"cannot write the object file {output}: {exc.strerror or exc}"))
        return 1
    if error_file and os.path.exists(err_path):
        try:
            os.remove(err_path)
        except OSError:
            pass
    return 0


def _upgraded(data: bytes) -> bool:
    """Whether an object came out in ZDoom's layout rather than Hexen's (its tag sits before the directory)."""
    dirofs = int.from_bytes(data[4:8], "little")
    return data[:4] in (b"ACSE", b"ACSe") or data[dirofs - 4:dirofs] in (b"ACSE", b"ACSe")


def _warn_ignored_tail(source: str) -> None:
    """acc stops reading a file at its first DEL byte (0x7F), as wadgym does: say what that left out."""
    try:
        with open(source, "rb") as file:
            data = file.read()
    except OSError:
        return
    stop = data.find(b"\x7f")
    if stop >= 0 and data[stop + 1:].strip():
        line = data.count(b"\n", 0, stop) + 1
        column = stop - (data.rfind(b"\n", 0, stop) + 1) + 1
        _say(f"{source}:{line}:{column}: warning: a DEL byte (0x7F) ends the source here, as in acc: "
             f"the {len(data) - stop - 1} bytes after it were ignored")


def error_file_text(exc: AcsError) -> str:
    """acs.err as acc 1.58 writes it (error.c, its default GCC style), for an error with a position:

        Line 7 in file "items.acs" ...
        items.acs:7: unknown function 'GiveInventroy' (did you mean 'GiveInventory'?)
        > GiveInventroy(
        >             ^

    The first line is the one older editors look for; the second is ``file:line: message``; the last two are
    acc's view of the source: the line as read up to the character after the faulty token (control characters,
    tabs included, shown as spaces) and a caret under that token's end. An error without a position (a file
    that cannot be read) is the message alone."""
    if exc.line is None:
        where = f"{exc.file}: " if exc.file and exc.file not in exc.message else ""
        return f"{where}{exc.message}\n"
    line = exc.source_line or ""
    start = max(exc.col - 1, 0)
    end = start + 1
    if start < len(line) and (line[start].isalnum() or line[start] == "_"):
        while end < len(line) and (line[end].isalnum() or line[end] == "_"):
            end += 1
    read = "".join(c if c >= " " else " " for c in line[:min(end + 1, len(line))])
    caret = "^".rjust(max(len(read), 1))
    return (f'Line {exc.line} in file "{exc.file}" ...\n'
            f"{exc.file}:{exc.line}: {exc.message}\n"
            f"> {read}\n"
            f">{caret}\n")


def write_error_file(path: str, exc: AcsError) -> None:
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as file:
            file.write(error_file_text(exc))
    except OSError:
        pass


def _say(message: str) -> None:
    stream = sys.stderr
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(message.encode(encoding, "backslashreplace").decode(encoding, "replace") + "\n")
    stream.flush()


if __name__ == "__main__":
    sys.exit(main())

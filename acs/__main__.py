"""acc-compatible command line: ``python -m wadgym.acs [-i DIR]... input.acs [output.o]`` (also ``wadgym-acc``).

Exit status 0 on success, 1 on error; messages go to stderr. Like acc, a failed compile leaves ``acs.err``
(the message) beside the source for map editors that read it, and a successful one removes it.
"""

from __future__ import annotations

import os
import sys

from wadgym.files import write_atomic

from . import AcsError, compile_file

USAGE = """usage: wadgym-acc [options] source[.acs] [object[.o]]
  -i DIR     add a directory for #include and #import (searched after the source's own directory)
  -d[FILE]   accepted for acc compatibility; ignored
zcommon.acs, zdefs.acs, zspecial.acs and zwvars.acs are built in."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        source, output, include_dirs = parse_args(args)
    except ValueError as exc:
        _say(f"wadgym-acc: {exc}\n{USAGE}")
        return 1
    return compile_to_file(source, output, include_dirs, error_file=True)


def parse_args(args: list[str]) -> tuple[str, str, list[str]]:
    """(source, output, include dirs) from acc-style arguments; ValueError when they make no sense."""
    files: list[str] = []
    include_dirs: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and len(arg) > 1:
            option = arg[1].upper()
            if option == "I":
                if len(arg) > 2:
                    include_dirs.append(arg[2:])
                elif i + 1 < len(args):
                    i += 1
                    include_dirs.append(args[i])
                else:
                    raise ValueError("-i needs a directory")
            elif option == "H":
                raise ValueError("-h (Hexen-compatible p-code) is not supported; ViZDoom runs ZDoom's format")
            elif option != "D":
                raise ValueError(f"unknown option {arg}")
        else:
            files.append(arg)
        i += 1
    if not files or len(files) > 2:
        raise ValueError("give one source file and at most one output file")
    source = _with_extension(files[0], ".acs")
    if len(files) == 2:
        output = _with_extension(files[1], ".o")
    else:
        output = os.path.splitext(source)[0] + ".o"
    return source, output, include_dirs


def _with_extension(path: str, extension: str) -> str:
    """acc's MS_SuggestFileExt: add ``extension`` when the file name has none."""
    return path if os.path.splitext(os.path.basename(path))[1] else path + extension


def compile_to_file(source: str, output: str, include_dirs=(), error_file: bool = False) -> int:
    """Compile ``source`` into ``output`` (written atomically); returns the exit status."""
    err_path = os.path.join(os.path.dirname(source), "acs.err")
    try:
        data = compile_file(source, include_dirs)
        _warn_ignored_tail(source)
        write_atomic(output, data)
    except AcsError as exc:
        _say(str(exc))
        if error_file:
            _write_error_file(err_path, exc)
        return 1
    except OSError as exc:
        _say(f"{output}: error: cannot write the object file: {exc.strerror or exc}")
        return 1
    if error_file and os.path.exists(err_path):
        try:
            os.remove(err_path)
        except OSError:
            pass
    return 0


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


def _write_error_file(path: str, exc: AcsError) -> None:
    # acc's first line, which editors such as Doom Builder look for, then the gcc-style message.
    lines = []
    if exc.line is not None:
        lines.append(f'Line {exc.line} in file "{exc.file}" ...')
        lines.append(f"{exc.file}:{exc.line}: {exc.message}")
    else:
        lines.append(str(exc))
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as file:
            file.write("\n".join(lines) + "\n")
    except OSError:
        pass


def _say(message: str) -> None:
    stream = sys.stderr
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(message.encode(encoding, "backslashreplace").decode(encoding, "replace") + "\n")
    stream.flush()


if __name__ == "__main__":
    sys.exit(main())

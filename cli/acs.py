"""`wadgym acs`: compile ACS to a BEHAVIOR lump (`wadgym acs compile`) or list one (`wadgym acs dis`)."""

from __future__ import annotations

import argparse
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="acs_command", metavar="ACTION")
    compile_parser = sub.add_parser("compile", help="compile an .acs file to a BEHAVIOR lump (acc's output)",
                                    description="Compile ACS source to a BEHAVIOR lump. Included files are "
                                                "looked for as acc looks: beside the including file, then in the "
                                                "-i folders, then '.'; zcommon.acs and the other acc headers are "
                                                "built in, used where no such file is found first.")
    compile_parser.add_argument("source", help="the .acs file")
    compile_parser.add_argument("output", nargs="?", help="the object file (default: the source with .o)")
    compile_parser.add_argument("-i", "--include", dest="include_dirs", action="append", default=[],
                                metavar="DIR", help="also look for #include and #import files here (repeatable)")
    compile_parser.add_argument("--target", choices=("vizdoom", "zdoom"), default="vizdoom",
                                help="the engine the lump is for: vizdoom (default; refuses what ViZDoom's engine "
                                     "cannot run) or zdoom (everything acc 1.58 compiles, with acc's bytes, for "
                                     "GZDoom and Zandronum; what wadgym-acc does)")
    dis_parser = sub.add_parser("dis", help="list a compiled lump's chunks, scripts, strings and p-codes",
                                description="Disassemble a BEHAVIOR lump, or every map's BEHAVIOR in a WAD.")
    dis_parser.add_argument("file", help="a compiled lump (.o) or a WAD")
    parser.set_defaults(_acs_parser=parser)


def run(args: argparse.Namespace) -> int:
    if args.acs_command == "compile":
        from wadgym.acs.__main__ import compile_to_file

        output = args.output or os.path.splitext(args.source)[0] + ".o"
        return compile_to_file(args.source, output, args.include_dirs, target=args.target)
    if args.acs_command == "dis":
        return _disassemble(args.file)
    args._acs_parser.print_help()
    return 2


def _disassemble(path: str) -> int:
    import sys

    from wadgym.acs.dis import disassemble_path

    try:
        listing = disassemble_path(path)
    except (OSError, ValueError) as exc:
        print(f"{path}: error: {exc}", file=sys.stderr)
        return 1
    try:
        print(listing)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    return 0
